package io.sparklance.spark.procedures

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.table.{BasePath, Manifest, ManifestFile, Snapshot}
import io.sparklance.table.commit.Operation
import io.sparklance.table.proto.TransactionCodec
import io.sparklance.testutil.{CatalogTables, PylanceScript}
import io.sparklance.util.Bytes

/**
 * restore, clone and add_bases from Spark, each checked by pylance 14 (the rows of every
 * version, the base paths it lists, the operation recorded), and tables pylance made
 * continued by us. Bad input changes nothing in the table's folder.
 */
class VersionProceduresSuite extends AnyFunSuite with CatalogTables {

  /** pylance's view: latest version, its base paths, and the sorted ids at each version given. */
  private val PylanceView =
    """import sys, json, lance
      |uri = sys.argv[1]
      |ds = lance.dataset(uri)
      |bases = {str(k): [b.name, b.path, b.is_dataset_root] for k, b in ds.base_paths().items()}
      |reads = {v: sorted(lance.dataset(uri, version=int(v)).to_table(columns=["id"])["id"].to_pylist()) for v in sys.argv[2:]}
      |print(json.dumps({"version": ds.version, "bases": bases, "reads": reads,
      |                  "latest": sorted(ds.to_table(columns=["id"])["id"].to_pylist())}))
      |""".stripMargin

  private case class View(version: Long, bases: Map[Int, (Option[String], String, Boolean)], reads: Map[Long, Seq[Long]], latest: Seq[Long])

  private def num(x: Any): Long = x.asInstanceOf[BigDecimal].toLongExact
  private def ids(x: Any): Seq[Long] = x.asInstanceOf[Vector[Any]].map(num)

  private def pylance(uri: String, versions: Long*): View = {
    val m = PylanceScript.run(PylanceView, (uri +: versions.map(_.toString)): _*)
    View(num(m("version")),
      m("bases").asInstanceOf[Map[String, Vector[Any]]].map { case (k, v) =>
        k.toInt -> (Option(v(0)).map(_.asInstanceOf[String]), v(1).asInstanceOf[String], v(2).asInstanceOf[Boolean]) },
      m("reads").asInstanceOf[Map[String, Vector[Any]]].map { case (k, v) => k.toLong -> ids(v) },
      ids(m("latest")))
  }

  private def py(script: String, args: String*): Map[String, Any] = PylanceScript.run(script, args: _*)
  private def newDir(): String = Files.createTempDirectory("versions").toString
  private def call(sql: String): Seq[Row] = spark.sql(s"CALL lance.system.$sql").collect().toSeq
  private def folder(dir: String): Map[String, Int] =
    if (!new File(dir).exists) Map.empty
    else Files.walk(new File(dir).toPath).iterator().asScala.filter(Files.isRegularFile(_))
      .map(p => p.toString -> java.util.Arrays.hashCode(Files.readAllBytes(p))).toMap
  private def manifestOf(root: String, version: Option[Long] = None): Manifest =
    ManifestFile.read(store, Snapshot.open(store, root, version).manifestPath)
  private def operationOf(root: String, m: Manifest): Operation = {
    val path = s"$root/_transactions/${m.transactionFile.get}"
    TransactionCodec.parse(Bytes.wrap(path, 0, store.readAll(path))).operation
  }
  private def append(path: String, from: Long, to: Long): Unit = spark.range(from, to).write.format("lance").mode("append").save(path)

  /** ids 0..4 (v1), 5..9 appended (v2), ids < 3 deleted (v3), by Spark. */
  private def threeVersions(): String = {
    val t = s"${newDir()}/t"
    spark.range(5).write.format("lance").save(t)
    append(t, 5, 10)
    py("""import sys, lance; lance.dataset(sys.argv[1]).delete("id < 3"); print("{}")""", t)
    t
  }

  // ---- restore ---------------------------------------------------------------------------

  test("restore commits the old content as a new version; pylance reads every version and we write on") {
    val t = threeVersions()
    val highWater = manifestOf(t).maxFragmentId
    assert(call(s"restore(table => '$t', version => 1)") == Seq(Row(1L, 4L)))
    val m = manifestOf(t)
    assert(m.version == 4 && operationOf(t, m) == Operation.Restore(1))
    assert(m.fragments == manifestOf(t, Some(1L)).fragments && m.schema == manifestOf(t, Some(1L)).schema)
    assert(m.maxFragmentId == highWater && highWater.get > manifestOf(t, Some(1L)).maxFragmentId.get,
      "the fragment-id high-water mark of the latest version stays")
    var seen = pylance(t, 1, 2, 3, 4)
    assert(seen.version == 4 && seen.reads == Map(1L -> (0L until 5L), 2L -> (0L until 10L), 3L -> (3L until 10L), 4L -> (0L until 5L)))
    append(t, 20, 22)
    seen = pylance(t, 5)
    assert(seen.reads(5L) == (0L until 5L) ++ Seq(20L, 21L) && seen.latest == seen.reads(5L))
    assert(manifestOf(t).fragments.map(_.id).filterNot(m.fragments.map(_.id).toSet).forall(_ > highWater.get),
      "the new fragments get ids never used before")

    // By tag, and on a table pylance restored before.
    py("""import sys, lance; ds = lance.dataset(sys.argv[1]); ds.tags.create("three", 3); ds.checkout_version(2).restore(); print("{}")""", t)
    assert(pylance(t).latest == (0L until 10L))
    assert(call(s"restore(table => '$t', tag => 'three')") == Seq(Row(3L, 7L)))
    assert(pylance(t, 6, 7).reads == Map(6L -> (0L until 10L), 7L -> (3L until 10L)))

    // Bad input: nothing written.
    val before = folder(t)
    assert(lanceError(call(s"restore(table => '$t', version => 99)")).errorClass == "LANCE_VERSION_NOT_FOUND")
    assert(lanceError(call(s"restore(table => '$t')")).errorClass == "LANCE_INVALID_ARGUMENT")
    assert(lanceError(call(s"restore(table => '$t', version => 1, tag => 'three')")).errorClass == "LANCE_INVALID_ARGUMENT")
    assert(folder(t) == before)
  }

  // ---- shallow clone ---------------------------------------------------------------------

  test("a shallow clone by us is what pylance writes: same version, base 0, no data copied; it evolves alone") {
    val t = threeVersions()
    val c = s"${newDir()}/clone"
    assert(call(s"clone(table => '$t', target => '$c', version => 2)") == Seq(Row(2L, 2L, c)))
    val m = manifestOf(c)
    assert(m.version == 2 && m.readerFeatureFlags == 16 && m.writerFeatureFlags == 16)
    assert(m.basePaths == Seq(BasePath(0, None, isDatasetRoot = true, t)))
    assert(m.fragments.flatMap(_.files).map(_.baseId).toSet == Set(Some(0)))
    assert(operationOf(c, m) == Operation.Clone(shallow = true, 2, t, None, None))
    assert(!new File(s"$c/data").exists, "no data file copied")
    // pylance's own clone of the same version, for comparison.
    val pc = s"${newDir()}/pyclone"
    py("""import sys, lance; lance.dataset(sys.argv[1]).shallow_clone(sys.argv[2], 2); print("{}")""", t, pc)
    val theirs = manifestOf(pc)
    assert(theirs.basePaths == m.basePaths && theirs.fragments.map(_.files.map(f => (f.path, f.baseId))) == m.fragments.map(_.files.map(f => (f.path, f.baseId))))
    assert(theirs.readerFeatureFlags == m.readerFeatureFlags && theirs.version == m.version)
    var seen = pylance(c, 2)
    assert(seen.version == 2 && seen.bases == Map(0 -> (None, t, true)) && seen.latest == (0L until 10L))

    // The clone evolves alone: appends to clone/data, deletions (also of inherited rows) to clone/_deletions.
    append(c, 100, 103)
    spark.sql(s"CREATE TABLE cl USING lance LOCATION '$c'")
    try {
      spark.sql("DELETE FROM cl WHERE id IN (0, 101)")
      spark.sql("UPDATE cl SET id = id + 1000 WHERE id = 7")
    } finally spark.sql("DROP TABLE cl")
    seen = pylance(c, 2, 3)
    assert(seen.reads(2L) == (0L until 10L) && seen.reads(3L) == (0L until 10L) ++ (100L until 103L))
    assert(seen.latest == ((1L until 10L).filter(_ != 7) ++ Seq(100L, 102L, 1007L)).sorted)
    val own = manifestOf(c).fragments.flatMap(_.files).filter(_.baseId.isEmpty).map(_.path).toSet
    assert(own.nonEmpty && own.subsetOf(new File(s"$c/data").list().toSet) && new File(s"$c/_deletions").list().nonEmpty)
    assert(manifestOf(c).fragments.flatMap(_.deletionFile).forall(_.baseId.isEmpty), "deletions of inherited rows are the clone's")
    assert(pylance(t).latest == (3L until 10L), "the source is untouched")
    assert(manifestOf(t).version == 3)

    // A clone pylance made, continued by us.
    append(pc, 50, 52)
    assert(pylance(pc).latest == (0L until 10L) ++ Seq(50L, 51L))

    // Clone of the latest, and by tag.
    py("""import sys, lance; lance.dataset(sys.argv[1]).tags.create("one", 1); print("{}")""", t)
    val c2 = s"${newDir()}/c2"
    assert(call(s"clone(table => '$t', target => '$c2', tag => 'one')") == Seq(Row(1L, 1L, c2)))
    assert(pylance(c2).latest == (0L until 5L))
    val c3 = s"${newDir()}/c3"
    assert(call(s"clone(table => '$t', target => '$c3')") == Seq(Row(3L, 3L, c3)))
    assert(pylance(c3).latest == (3L until 10L))

    // A target that is not empty: refused, nothing written.
    val full = newDir()
    Files.write(new File(full, "keep.txt").toPath, "x".getBytes)
    val before = folder(full) ++ folder(t)
    val e = lanceError(call(s"clone(table => '$t', target => '$full')"))
    assert(e.errorClass == "LANCE_INVALID_ARGUMENT" && e.getMessage.contains("not empty"), e)
    assert(lanceError(call(s"clone(table => '$t', target => '$c')")).errorClass == "LANCE_INVALID_ARGUMENT")
    assert(lanceError(call(s"clone(table => '$t', target => '$t')")).errorClass == "LANCE_INVALID_ARGUMENT")
    // Nor a folder inside the table (or around it): each table keeps a folder of its own.
    Seq(s"$t/nested", s"$t/data/../x", new File(t).getParent).foreach { target =>
      val nested = lanceError(call(s"clone(table => '$t', target => '$target')"))
      assert(nested.errorClass == "LANCE_INVALID_ARGUMENT" && nested.getMessage.contains("inside one another"), nested)
    }
    assert(folder(full) ++ folder(t) == before)
  }

  // ---- add_bases -------------------------------------------------------------------------

  test("bases added by us are the base paths pylance lists; pylance's initial bases continued; clashes refused") {
    val dir = newDir()
    val t = s"$dir/t"
    spark.range(5).write.format("lance").save(t)
    val rows = call(s"add_bases(table => '$t', bases => map('b1', '$dir/b1', 'b2', '$dir/b2'))")
    assert(rows == Seq(Row(1, "b1", s"$dir/b1", false, 2L), Row(2, "b2", s"$dir/b2", false, 2L)))
    assert(operationOf(t, manifestOf(t)).isInstanceOf[Operation.UpdateBases])
    var seen = pylance(t, 1, 2)
    assert(seen.bases == Map(1 -> (Some("b1"), s"$dir/b1", false), 2 -> (Some("b2"), s"$dir/b2", false)))
    assert(seen.reads == Map(1L -> (0L until 5L), 2L -> (0L until 5L)))
    assert(call(s"add_bases(table => '$t', bases => map('r3', '$dir/r3'), is_dataset_root => true)") == Seq(Row(3, "r3", s"$dir/r3", true, 3L)))
    assert(pylance(t).bases(3) == (Some("r3"), s"$dir/r3", true))

    // Clashes: a name or a path the table has; nothing written.
    val before = folder(dir)
    for (bad <- Seq(s"map('b1', '$dir/other')", s"map('b9', '$dir/b2')", s"map('b9', '$dir/b2/')")) {
      val e = lanceError(call(s"add_bases(table => '$t', bases => $bad)"))
      assert(e.errorClass == "LANCE_INVALID_ARGUMENT" && e.getMessage.contains("already exists"), s"$bad: $e")
    }
    assert(folder(dir) == before)

    // A table pylance wrote with initial bases: we add one, pylance lists all and reads the rows.
    val p = s"$dir/p"
    py("""import sys, lance, pyarrow as pa
         |from lance import DatasetBasePath
         |d = sys.argv[1]
         |lance.write_dataset(pa.table({"id": list(range(6))}), d + "/p", max_rows_per_file=2,
         |    initial_bases=[DatasetBasePath(d + "/pb1", name="pb1")], target_bases=["pb1"])
         |print("{}")""".stripMargin, dir)
    assert(call(s"add_bases(table => '$p', bases => map('ours', '$dir/ours'))") == Seq(Row(2, "ours", s"$dir/ours", false, 2L)))
    seen = pylance(p)
    assert(seen.bases == Map(1 -> (Some("pb1"), s"$dir/pb1", false), 2 -> (Some("ours"), s"$dir/ours", false)))
    assert(seen.latest == (0L until 6L))
    append(p, 6, 8)
    assert(pylance(p).latest == (0L until 8L))
  }

  // ---- multi-base writes -----------------------------------------------------------------

  /** The files of the latest version: (base id, where the file is) for each data file, and the deletion files' base ids. */
  private def placement(t: String): (Seq[(Option[Int], String)], Seq[Option[Int]]) = {
    val s = Snapshot.open(store, t, None)
    val where = new io.sparklance.table.FileLocations(t, s.manifest)
    (s.manifest.fragments.flatMap(_.files).map(f => f.baseId -> where.dataFile(f)), s.manifest.fragments.flatMap(_.deletionFile).map(_.baseId))
  }

  test("a table over three local folders: appends with targetBases and targetAllBases, read by pylance; pylance's continued") {
    val dir = newDir()
    val t = s"$dir/t"
    spark.range(4).write.format("lance").save(t)
    call(s"add_bases(table => '$t', bases => map('b1', '$dir/b1'))")
    call(s"add_bases(table => '$t', bases => map('b2', '$dir/b2'), is_dataset_root => true)")
    spark.range(10, 16).coalesce(1).write.format("lance").mode("append").option("targetBases", "b1, b2").option("maxRowsPerFile", "2").save(t)
    val (files, _) = placement(t)
    val added = files.filter(_._1.isDefined)
    assert(added.map(_._1) == Seq(Some(1), Some(2), Some(1)), "round-robin over the targets, one file each")
    assert(added.forall { case (id, f) => f.startsWith(if (id.contains(1)) s"$dir/b1/" else s"$dir/b2/data/") && new File(f).isFile }, added)
    assert(!new File(s"$dir/b1/data").exists, "a base that is not a dataset root holds its files directly")
    var seen = pylance(t)
    assert(seen.latest == (0L until 4L) ++ (10L until 16L))

    // By path, then all bases in turn (the table's own folder first); a deletion stays in the primary _deletions/.
    spark.range(20, 22).coalesce(1).write.format("lance").mode("append").option("target_bases", s"$dir/b2").save(t)
    assert(placement(t)._1.last._1 == Some(2))
    spark.range(30, 36).coalesce(1).write.format("lance").mode("append").option("targetAllBases", "true").option("maxRowsPerFile", "2").save(t)
    assert(placement(t)._1.takeRight(3).map(_._1) == Seq(None, Some(1), Some(2)))
    py("""import sys, lance; lance.dataset(sys.argv[1]).delete("id in (11, 31)"); print("{}")""", t)
    spark.sql(s"CREATE TABLE mb USING lance LOCATION '$t'")
    try spark.sql("DELETE FROM mb WHERE id IN (14, 35)") finally spark.sql("DROP TABLE mb")
    assert(placement(t)._2.nonEmpty && placement(t)._2.forall(_.isEmpty))
    seen = pylance(t)
    val expected = ((0L until 4L) ++ (10L until 16L) ++ Seq(20L, 21L) ++ (30L until 36L)).filterNot(Set(11L, 31L, 14L, 35L))
    assert(seen.latest == expected)
    assert(seen.bases == Map(1 -> (Some("b1"), s"$dir/b1", false), 2 -> (Some("b2"), s"$dir/b2", true)))

    // A target base that does not exist: refused before anything is written.
    val before = folder(dir)
    val e = lanceError(spark.range(3).write.format("lance").mode("append").option("targetBases", "nope").save(t))
    assert(e.errorClass == "LANCE_INVALID_ARGUMENT" && e.getMessage.contains("nope"), e)
    assert(folder(dir) == before)

    // pylance's multi-base table continued by us with targetBases; pylance appends after us.
    val p = s"$dir/p"
    py("""import sys, lance, pyarrow as pa
         |from lance import DatasetBasePath
         |d = sys.argv[1]
         |lance.write_dataset(pa.table({"id": list(range(4))}), d + "/p", max_rows_per_file=2,
         |    initial_bases=[DatasetBasePath(d + "/q1", name="q1"), DatasetBasePath(d + "/q2", name="q2", is_dataset_root=True)],
         |    target_bases=["q1", "q2"])
         |print("{}")""".stripMargin, dir)
    spark.range(100, 104).coalesce(1).write.format("lance").mode("append").option("targetBases", "q2").option("maxRowsPerFile", "2").save(p)
    val ours = placement(p)._1.takeRight(2)
    val q2 = Snapshot.open(store, p, None).manifest.basePaths.find(_.name.contains("q2")).get
    assert(ours.forall { case (id, f) => id.contains(q2.id) && f.startsWith(s"$dir/q2/data/") && new File(f).isFile }, ours)
    py("""import sys, lance, pyarrow as pa
         |lance.write_dataset(pa.table({"id": [200, 201]}), sys.argv[1], mode="append", target_bases=["q1"])
         |print("{}")""".stripMargin, p)
    assert(pylance(p).latest == (0L until 4L) ++ (100L until 104L) ++ Seq(200L, 201L))
    assert(spark.read.format("lance").load(p).count() == 10)
  }

  test("initialBases creates a multi-base table pylance reads; bad bases refused with nothing written") {
    val dir = newDir()
    val t = s"$dir/t"
    val bases = s"""[{"name": "b1", "path": "$dir/b1"}, {"name": "b2", "path": "$dir/b2", "isDatasetRoot": true}]"""
    spark.range(6).coalesce(1).write.format("lance").option("initialBases", bases).option("targetAllBases", "true")
      .option("maxRowsPerFile", "2").save(t)
    assert(placement(t)._1.map(_._1) == Seq(None, Some(1), Some(2)))
    assert(placement(t)._1.forall(f => new File(f._2).isFile))
    val seen = pylance(t)
    assert(seen.version == 1 && seen.latest == (0L until 6L))
    assert(seen.bases == Map(1 -> (Some("b1"), s"$dir/b1", false), 2 -> (Some("b2"), s"$dir/b2", true)))
    assert(Snapshot.open(store, t, None).manifest.readerFeatureFlags == 16)
    // pylance appends to one of our bases.
    py("""import sys, lance, pyarrow as pa
         |lance.write_dataset(pa.table({"id": [50, 51]}), sys.argv[1], mode="append", target_bases=["b2"])
         |print("{}")""".stripMargin, t)
    assert(pylance(t).latest == (0L until 6L) ++ Seq(50L, 51L))

    val before = folder(dir)
    def refused(opts: (String, String)*): Unit = {
      val e = lanceError(spark.range(3).write.format("lance").options(opts.toMap).mode("append").save(s"$dir/new"))
      assert(e.errorClass.startsWith("LANCE_INVALID"), s"$opts: $e")
    }
    refused("initialBases" -> s"""[{"name": "b1", "path": "$dir/x"}, {"name": "b1", "path": "$dir/y"}]""")
    refused("initialBases" -> "b1=/x")
    refused("initialBases" -> s"""[{"name": "b1", "path": "$dir/x"}]""", "targetBases" -> "b9")
    val e = lanceError(spark.range(3).write.format("lance").option("initialBases", s"""[{"name": "z", "path": "$dir/z"}]""").mode("append").save(t))
    assert(e.errorClass == "LANCE_INVALID_ARGUMENT" && e.getMessage.contains("add_bases"), e)
    assert(folder(dir) == before)
  }

  test("conflicts: an add_bases of a name another writer added meanwhile, and an append over a restore, are refused") {
    import io.sparklance.table.commit.{CommitRequest, TableCommitter}
    val dir = newDir()
    val t = s"$dir/t"
    spark.range(3).write.format("lance").save(t)
    call(s"add_bases(table => '$t', bases => map('x', '$dir/x'))") // version 2, read at 1
    val committer = new TableCommitter(store, t)
    val stale = lanceError(committer.commit(CommitRequest(Some(1L), Operation.UpdateBases(IndexedSeq(BasePath(0, Some("x"), isDatasetRoot = false, s"$dir/y"))))))
    assert(stale.getMessage.contains("same id, name or path"), stale)
    // Another name passes over it (Lance: compatible) and gets the next id.
    committer.commit(CommitRequest(Some(1L), Operation.UpdateBases(IndexedSeq(BasePath(0, Some("y"), isDatasetRoot = false, s"$dir/y")))))
    assert(pylance(t).bases.map { case (id, b) => id -> b._1.get } == Map(1 -> "x", 2 -> "y"))
    // An append read before a restore conflicts with it (the restore replaced the content).
    call(s"restore(table => '$t', version => 1)")
    val appendOverRestore = lanceError(committer.commit(CommitRequest(Some(3L), Operation.Append(manifestOf(t, Some(1L)).fragments.map(_.copy(id = 0L))))))
    assert(appendOverRestore.errorClass.contains("CONFLICT"), appendOverRestore)
    assert(pylance(t).version == 4)
  }
}
