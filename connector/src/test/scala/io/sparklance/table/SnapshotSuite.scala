package io.sparklance.table

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.CountingStore
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.testutil.Golden
import io.sparklance.util.{Json, LanceException}

/** Finding a version: the latest-version hint when it is current, listing when it is not. */
class SnapshotSuite extends AnyFunSuite {

  /** A private copy of basic_types (versions 1 to 3, hint {"version":3}). */
  private def copy(): File = {
    val dir = Files.createTempDirectory("lance-hint").toFile
    FileUtils.copyDirectory(new File(Golden.dataset("basic_types").uri), dir)
    dir
  }

  private def writeHint(dir: File, text: String): Unit =
    Files.write(new File(dir, s"_versions/${Snapshot.VersionHintFile}").toPath, text.getBytes(UTF_8))

  private def latest(dir: File): (Long, Int) = {
    val store = new CountingStore(new HadoopObjectStore(new Configuration()))
    (Snapshot.resolve(store, dir.getPath, None, VersionSpec.Latest).version, store.listings)
  }

  test("a current hint finds the latest version without listing _versions/") {
    val dir = copy()
    try assert(latest(dir) == (3L, 0)) finally FileUtils.deleteDirectory(dir)
  }

  /** Listing `_versions/` is one call, files and folders alike (a folder named like a manifest is a version). */
  private val Listing = 1

  test("a stale, missing, malformed or wrong hint falls back to listing") {
    val dir = copy()
    try {
      writeHint(dir, """{"version":1}""") // stale: version 2 exists
      assert(latest(dir) == (3L, Listing))
      writeHint(dir, """{"version":99}""") // names a manifest that does not exist
      assert(latest(dir) == (3L, Listing))
      writeHint(dir, """{"version":""") // truncated
      assert(latest(dir) == (3L, Listing))
      writeHint(dir, """[3]""")
      assert(latest(dir) == (3L, Listing))
      new File(dir, s"_versions/${Snapshot.VersionHintFile}").delete()
      assert(latest(dir) == (3L, Listing))
    } finally FileUtils.deleteDirectory(dir)
  }

  test("a hint nested too deeply for the stack, or too large, only means listing") {
    val dir = copy()
    try {
      Seq(
        "[" * 100000 + "]" * 100000,
        "{\"version\":" + "[" * 50000 + "3" + "]" * 50000 + "}",
        "{\"a\":" * 20000 + "1" + "}" * 20000,
        "[" * 1000000,
        " " * (2 << 20) + "{\"version\":3}").foreach { text => // the last: larger than a hint may be
        writeHint(dir, text)
        assert(latest(dir) == (3L, Listing))
      }
    } finally FileUtils.deleteDirectory(dir)
  }

  test("JSON nests up to the bound and no deeper") {
    val ok = "[" * Json.MaxDepth + "]" * Json.MaxDepth
    assert(Json.parse(ok).isInstanceOf[Seq[_]])
    val e = intercept[IllegalArgumentException](Json.parse("[" + ok + "]"))
    assert(e.getMessage.contains(s"${Json.MaxDepth}"))
    assert(Json.parse("""{"version": 3, "a": [[1], {"b": null}]}""") == Map("version" -> BigDecimal(3), "a" -> Vector(Vector(BigDecimal(1)), Map("b" -> null))))
  }

  test("a numbered version is found by its name; a missing one lists what exists") {
    val store = new CountingStore(new HadoopObjectStore(new Configuration()))
    val uri = Golden.dataset("basic_types").uri
    assert(Snapshot.resolve(store, uri, None, VersionSpec.Number(2)).version == 2)
    assert(store.listings == 0)
    val e = intercept[LanceException](Snapshot.resolve(store, uri, None, VersionSpec.Number(7)))
    assert(e.getMessage.contains("7") && e.getMessage.contains("1, 2, 3"), e.getMessage)
  }

  test("V1-named manifests (no hint) resolve by listing and by name") {
    val store = new CountingStore(new HadoopObjectStore(new Configuration()))
    val uri = Golden.dataset("legacy_manifest_names").uri
    val versions = Snapshot.listVersions(store, uri).map(_._1)
    assert(Snapshot.resolve(store, uri, None, VersionSpec.Latest).version == versions.last)
    assert(Snapshot.resolve(store, uri, None, VersionSpec.Number(versions.head)).version == versions.head)
  }
}
