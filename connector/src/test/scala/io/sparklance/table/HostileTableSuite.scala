package io.sparklance.table

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.scalatest.concurrent.{Signaler, TimeLimits}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.time.SpanSugar._

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.proto.TableProtos
import io.sparklance.testutil.{Golden, HostileCopies}
import io.sparklance.testutil.HostileCopies.{copy, editManifest, mkfifo, newestManifest}
import io.sparklance.util.LanceException

/**
 * Tables whose files point outside the table, name what cannot be read, or are not files
 * at all: each is refused with our error, naming where, and nothing is followed or hangs.
 */
class HostileTableSuite extends AnyFunSuite with TimeLimits {
  private val store = new HadoopObjectStore(new Configuration())

  private def latest(table: File): Snapshot = Snapshot.resolve(store, table.getPath, None, VersionSpec.Latest)

  private def errorOf(f: => Any): LanceException = intercept[LanceException](f)

  /** Runs `body`, failing (and releasing readers blocked on `fifos`) if it takes a minute. */
  private def withoutHanging[T](fifos: File*)(body: => T): T = {
    implicit val release: Signaler = (t: Thread) => { fifos.foreach(HostileCopies.release); t.interrupt() }
    failAfter(60.seconds)(body)
  }

  // ---- paths in manifests -------------------------------------------------------------

  private val climbing = Seq(
    "../../../../elsewhere/ds/data/x.lance", "../x.lance", "sub/../../x.lance", "/etc/passwd",
    "file:/etc/passwd", "..\\..\\x.lance", "./x.lance", "a//b.lance", "")

  test("data file paths that leave the data folder are refused, naming manifest, fragment and path") {
    climbing.foreach { bad =>
      val table = copy("basic_types")
      val m = newestManifest(table)
      editManifest(m)(b => b.setFragments(1, b.getFragments(1).toBuilder.setFiles(0, b.getFragments(1).getFiles(0).toBuilder.setPath(bad))))
      val e = errorOf(latest(table))
      assert(e.errorClass == "LANCE_CORRUPT_FILE", bad)
      val id = ManifestFile.read(store, HostileCopies.manifests(table).filterNot(_ == m).head.getPath).fragments(1).id
      assert(e.getMessage.contains(m.getName) && e.getMessage.contains(s"fragment $id") && e.getMessage.contains(s"'$bad'"), e.getMessage)
    }
  }

  test("a climbing path in an older version is refused when that version is read") {
    val table = copy("basic_types")
    val oldest = HostileCopies.manifests(table).maxBy(_.getName) // V2 names: the oldest sorts last
    editManifest(oldest)(b => b.setFragments(0, b.getFragments(0).toBuilder.setFiles(0, b.getFragments(0).getFiles(0).toBuilder.setPath("../../../etc/passwd"))))
    assert(latest(table).version == 3)
    assert(errorOf(Snapshot.resolve(store, table.getPath, None, VersionSpec.Number(1))).errorClass == "LANCE_CORRUPT_FILE")
  }

  test("external row id paths that leave the table are refused") {
    Seq("../../elsewhere/rowids.bin", "/etc/passwd", "a/../../b").foreach { bad =>
      val table = copy("stable_row_ids")
      editManifest(newestManifest(table)) { b =>
        val f = b.getFragments(0).toBuilder
        f.setExternalRowIds(TableProtos.ExternalFile.newBuilder().setPath(bad).setOffset(0).setSize(8))
        b.setFragments(0, f)
      }
      val e = errorOf(latest(table))
      assert(e.errorClass == "LANCE_CORRUPT_FILE" && e.getMessage.contains(s"'$bad'"), e.getMessage)
    }
  }

  test("a file that is not Lance is refused without printing its bytes") {
    val table = copy("basic_types")
    val data = new File(table, "data").listFiles().head
    Files.write(data.toPath, "root:x:0:0:root:/root:/bin/bash\n".getBytes(UTF_8))
    val e = errorOf(io.sparklance.format.DataFileReader.open(store, data.getPath, None, io.sparklance.format.FileVersion.V2_2).close())
    assert(e.errorClass == "LANCE_CORRUPT_FILE")
    Seq("61 73 68 0a", "sh\n", "bash").foreach(b => assert(!e.getMessage.contains(b), e.getMessage))
  }

  // ---- column indices -----------------------------------------------------------------

  test("a 2.x data file with fewer column indices than fields is refused, naming file and field") {
    val cases: Seq[TableProtos.DataFile.Builder => Unit] = Seq(
      d => { val keep = d.getColumnIndicesList.asScala.dropRight(1); d.clearColumnIndices().addAllColumnIndices(keep.asJava) },
      d => d.clearColumnIndices(),
      d => { val keep = d.getColumnIndicesList.asScala.take(1); d.clearColumnIndices().addAllColumnIndices(keep.asJava) })
    cases.foreach { cut =>
      val table = copy("basic_types")
      var expected = ""
      editManifest(newestManifest(table)) { b =>
        val f = b.getFragments(2).toBuilder
        val d = f.getFiles(0).toBuilder
        cut(d)
        expected = s"field ${d.getFields(d.getColumnIndicesCount)}"
        b.setFragments(2, f.setFiles(0, d))
      }
      val e = errorOf(latest(table))
      val file = ManifestFile.read(store, newestManifest(copy("basic_types")).getPath).fragments(2).files(0).path
      assert(e.errorClass == "LANCE_CORRUPT_FILE" && e.getMessage.contains(file) && e.getMessage.contains(expected), e.getMessage)
    }
  }

  test("legacy data files list fields without column indices and still read") {
    val ds = Golden.dataset("types_legacy")
    val s = Snapshot.resolve(store, ds.uri, None, VersionSpec.Latest)
    assert(s.manifest.fragments.flatMap(_.files).forall(_.columnIndices.isEmpty))
    val allocator = new org.apache.arrow.memory.RootAllocator(Long.MaxValue)
    try {
      val (_, expected) = Golden.expectedRows(ds.expectedFile(s.version), allocator)
      assert(io.sparklance.testutil.TableRows.read(store, s, allocator, 500) == expected)
    } finally allocator.close()
  }

  // ---- base paths ---------------------------------------------------------------------

  test("relative base paths are made absolute once, when the snapshot is opened, as Lance does") {
    val table = copy("multi_base")
    val cwd = new File("").getAbsoluteFile.toPath
    val original = latest(table).manifest.basePaths.map(_.path)
    editManifest(newestManifest(table)) { b =>
      (0 until b.getBasePathsCount).foreach { i =>
        val base = b.getBasePaths(i)
        b.setBasePaths(i, base.toBuilder.setPath(cwd.relativize(java.nio.file.Paths.get(base.getPath)).toString))
      }
    }
    assert(HostileCopies.manifests(table).nonEmpty && !ManifestFile.read(store, newestManifest(table).getPath).basePaths.head.path.startsWith("/"))
    val s = latest(table)
    assert(s.manifest.basePaths.map(_.path) == original)
    val paths = ScanPlanner.plan(store, s).flatMap(_.files.map(_.path))
    assert(paths.forall(_.startsWith("/")), paths)
    assert(original.forall(b => paths.exists(_.startsWith(b))), paths)
  }

  private def resolveAllowed(uri: String, allowed: String*): Snapshot =
    Snapshot.resolve(store, uri, None, VersionSpec.Latest, Some(allowed.flatMap(BasePaths.canonical)))

  test("allowed base path prefixes: inside passes, outside, look-alike and climbing prefixes are refused") {
    val ds = Golden.dataset("multi_base").uri
    val parent = new File(latest(new File(ds)).manifest.basePaths.head.path).getParent // where the generator put the bases
    assert(resolveAllowed(ds, parent).manifest.basePaths.length == 2)
    assert(resolveAllowed(ds, "file://" + parent + "/").manifest.basePaths.length == 2)
    assert(resolveAllowed(ds, parent + "/bucket1", parent + "/bucket2_root").manifest.basePaths.length == 2)
    Seq(Seq("/nowhere"), Seq(parent + "/bucket"), Seq(parent + "/bucket1"), Seq(parent + "/bucket1/../nowhere"), Seq("s3://" + parent))
      .foreach { allowed =>
        val e = errorOf(resolveAllowed(ds, allowed: _*))
        assert(e.errorClass == "LANCE_BASE_PATH_NOT_ALLOWED", allowed)
      }
    // A base path that climbs out of an allowed prefix is outside it.
    val table = copy("multi_base")
    editManifest(newestManifest(table))(b => b.setBasePaths(0, b.getBasePaths(0).toBuilder.setPath(parent + "/bucket1/../../../etc")))
    assert(errorOf(resolveAllowed(table.getPath, parent)).errorClass == "LANCE_BASE_PATH_NOT_ALLOWED")
  }

  test("the table's own folder is always allowed: branches read with any allowed prefixes") {
    val ds = Golden.dataset("branches_tags").uri
    val s = Snapshot.resolve(store, ds, Some("dev"), VersionSpec.Latest, Some(Seq("/nowhere").flatMap(BasePaths.canonical)))
    assert(s.manifest.basePaths.nonEmpty && s.version == 3)
    val clone = Golden.dataset("shallow_clone").uri
    assert(errorOf(resolveAllowed(clone, "/nowhere")).errorClass == "LANCE_BASE_PATH_NOT_ALLOWED")
    val source = latest(new File(clone)).manifest.basePaths.head.path
    assert(resolveAllowed(clone, new File(source).getParent).manifest.basePaths.nonEmpty)
  }

  // ---- what cannot be read ------------------------------------------------------------

  test("a folder named like the newest manifest fails instead of serving the version before") {
    def check(table: File, hint: Boolean): Unit = {
      if (!hint) new File(table, s"_versions/${Snapshot.VersionHintFile}").delete()
      val e = errorOf(latest(table))
      assert(e.errorClass == "LANCE_CORRUPT_FILE" && e.getMessage.contains("directory"), e.getMessage)
    }
    Seq(true, false).foreach { hint =>
      val next = copy("basic_types") // versions 1-3: a folder named like version 4
      assert(new File(next, s"_versions/${ManifestNaming.V2.fileName(4)}").mkdir())
      check(next, hint)
      val replaced = copy("basic_types") // version 3's manifest replaced by a folder
      val m = newestManifest(replaced)
      assert(m.delete() && m.mkdir())
      check(replaced, hint)
    }
    val v1 = copy("legacy_manifest_names")
    val newest = Snapshot.listVersions(store, v1.getPath).last._1
    assert(new File(v1, s"_versions/${ManifestNaming.V1.fileName(newest + 1)}").mkdir())
    check(v1, hint = false)
    // Asked for by number, a folder is a version that cannot be read, not a missing one.
    val byNumber = copy("basic_types")
    assert(new File(byNumber, s"_versions/${ManifestNaming.V2.fileName(4)}").mkdir())
    assert(errorOf(Snapshot.resolve(store, byNumber.getPath, None, VersionSpec.Number(4))).errorClass == "LANCE_CORRUPT_FILE")
  }

  test("named pipes in place of a manifest, data file, deletion file or tag are refused, not waited on") {
    val manifest = copy("basic_types")
    val m = newestManifest(manifest)
    mkfifo(m)
    withoutHanging(m)(assert(errorOf(latest(manifest)).errorClass == "LANCE_CORRUPT_FILE"))

    val data = copy("basic_types")
    val d = new File(data, "data").listFiles().head
    mkfifo(d)
    withoutHanging(d) {
      val e = errorOf(store.open(d.getPath, Some(1000L)).close())
      assert(e.errorClass == "LANCE_CORRUPT_FILE" && e.getMessage.contains("named pipe"), e.getMessage)
      assert(errorOf(store.readAll(d.getPath)).errorClass == "LANCE_CORRUPT_FILE")
    }

    val deletions = copy("deletions")
    val del = new File(deletions, "_deletions").listFiles().head
    mkfifo(del)
    withoutHanging(del) {
      assert(errorOf(DeletionVector.read(store, del.getPath, DeletionFileType.ArrowArray, 0, 1000)).errorClass == "LANCE_CORRUPT_FILE")
    }

    val tags = copy("branches_tags")
    val tag = new File(tags, "_refs/tags/first.json")
    mkfifo(tag)
    withoutHanging(tag) {
      assert(errorOf(Snapshot.resolve(store, tags.getPath, None, VersionSpec.TagName("first"))).errorClass == "LANCE_CORRUPT_FILE")
    }
  }

  test("a named pipe as the version hint only means listing _versions/") {
    val table = copy("basic_types")
    val hint = new File(table, s"_versions/${Snapshot.VersionHintFile}")
    mkfifo(hint)
    withoutHanging(hint)(assert(latest(table).version == 3))
  }
}
