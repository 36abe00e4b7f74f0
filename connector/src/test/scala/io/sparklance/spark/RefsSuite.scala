package io.sparklance.spark

import java.io.File

import org.apache.arrow.memory.RootAllocator
import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.table.Refs
import io.sparklance.testutil.{Canonical, Golden, LocalSpark}
import io.sparklance.util.LanceException

/** Tags, branches (nested too) and timestamps select the versions pylance reads for them. */
class RefsSuite extends AnyFunSuite with LocalSpark {
  private lazy val ds = Golden.dataset("branches_tags")

  private def same(df: DataFrame, expectedFile: String): Unit = {
    val allocator = new RootAllocator(Long.MaxValue)
    try {
      val (_, expected) = Golden.expectedRows(new File(ds.expectedFile(1).getParentFile, expectedFile), allocator)
      val schema = df.schema
      val actual = df.queryExecution.toRdd.map(_.copy()).collect().toIndexedSeq.map(Canonical.fromSpark(_, schema))
      assert(actual == expected, expectedFile)
    } finally allocator.close()
  }

  private def read(opts: (String, String)*): DataFrame = spark.read.format("lance").options(opts.toMap).load(ds.uri)

  test("tags on the main line and on a branch") {
    same(read("tag" -> "first"), "tag_first.arrow")
    same(read("tag" -> "main_head"), "tag_main_head.arrow")
    same(read("tag" -> "dev_snapshot"), "tag_dev_snapshot.arrow")
  }

  test("branches, latest and at a version, nested branches") {
    same(read("branch" -> "dev"), "branch_dev_v3.arrow")
    Seq(1, 2, 3).foreach(v => same(read("branch" -> "dev", "version" -> v.toString), s"branch_dev_v$v.arrow"))
    same(read("branch" -> "dev/feature"), "branch_dev__feature_v3.arrow")
    same(read("branch" -> "dev/feature", "version" -> "2"), "branch_dev__feature_v2.arrow")
  }

  test("the main line is untouched by branches") {
    same(read(), "v3.arrow")
  }

  test("timestamps pick the newest version committed by then") {
    same(read("timestamp" -> "2999-01-01T00:00:00Z"), "v3.arrow")
    val e = intercept[Exception](read("timestamp" -> "2000-01-01T00:00:00Z").count())
    assert(e.getMessage.contains("LANCE_VERSION_NOT_FOUND"))
  }

  private def errorOf(f: => Any): LanceException = {
    val t = intercept[Throwable](f)
    Iterator.iterate(t)(_.getCause).takeWhile(_ != null).collectFirst { case e: LanceException => e }.getOrElse(fail(t))
  }

  test("missing refs list what exists; conflicting options are refused") {
    val tag = errorOf(read("tag" -> "nope"))
    assert(tag.errorClass == "LANCE_REF_NOT_FOUND" && tag.getMessage.contains("dev_snapshot, first, main_head"))
    val branch = errorOf(read("branch" -> "nope"))
    assert(branch.errorClass == "LANCE_REF_NOT_FOUND" && branch.getMessage.contains("dev, dev/feature"))
    assert(errorOf(read("tag" -> "first", "version" -> "1")).errorClass == "LANCE_INVALID_ARGUMENT")
    assert(errorOf(read("timestamp" -> "yesterday")).getMessage.contains("'timestamp'"))
  }

  // ---- ref names that would climb out of the table ------------------------------------

  test("ref names are checked as Lance checks them") {
    Seq("v1", "v1.2.3-rc4", "with_underscore", "dot.in.middle", "Ünïcödé", "٣").foreach(n => assert(Refs.tagNameProblem(n).isEmpty, n))
    Seq("", "../x", ".x", "x.", "a/b", "a\\b", "x.lock", "a..b", "x y", "x*", "x@{y", "~x", "..").foreach(n =>
      assert(Refs.tagNameProblem(n).isDefined, n))
    Seq("dev", "dev/feature", "user/someone/my-feature", "release/v1.2.3", "with.dot").foreach(n => assert(Refs.branchNameProblem(n).isEmpty, n))
    Seq("", "/x", "x/", "a//b", "a/../b", "..", "../../elsewhere", "a\\b", "x.lock", "main", "bad@char", "bad segment").foreach(n =>
      assert(Refs.branchNameProblem(n).isDefined, n))
  }

  /** A copy of branches_tags at `dir/table`, and a copy of basic_types at `dir/elsewhere`. */
  private def tableBesideAnother(): File = {
    val dir = io.sparklance.testutil.HostileCopies.tempDir("lance-refs")
    org.apache.commons.io.FileUtils.copyDirectory(new File(ds.uri), new File(dir, "table"))
    org.apache.commons.io.FileUtils.copyDirectory(new File(Golden.dataset("basic_types").uri), new File(dir, "elsewhere"))
    new File(dir, "table")
  }

  private def write(f: File, text: String): Unit = {
    f.getParentFile.mkdirs()
    java.nio.file.Files.write(f.toPath, text.getBytes("UTF-8"))
  }

  test("branch and tag options that would leave the table are refused") {
    val table = tableBesideAnother()
    // As a ref file would make it look: tree/../../elsewhere is the other dataset.
    write(new File(table, "_refs/branches/" + java.net.URLEncoder.encode("../../elsewhere", "UTF-8") + ".json"),
      """{"parentBranch":null,"parentVersion":1}""")
    val load = (k: String, v: String) => spark.read.format("lance").option(k, v).load(table.getPath).count()
    Seq("../../elsewhere", "../../../../elsewhere/ds", "..", "dev/../..", "/tmp", "dev//feature", "dev\\..", "main").foreach { b =>
      assert(errorOf(load("branch", b)).errorClass == "LANCE_INVALID_OPTION", b)
    }
    Seq("../first", "a/b", ".hidden", "x.lock", "a..b").foreach { t =>
      assert(errorOf(load("tag", t)).errorClass == "LANCE_INVALID_OPTION", t)
    }
  }

  test("a tag or branch file naming a branch outside the table is corrupt") {
    val table = tableBesideAnother()
    Seq("../../elsewhere", "..", "dev/../../..", "/tmp/x").foreach { b =>
      write(new File(table, "_refs/tags/evil.json"), s"""{"branch":"${b.replace("\\", "\\\\")}","version":1}""")
      assert(errorOf(spark.read.format("lance").option("tag", "evil").load(table.getPath).count()).errorClass == "LANCE_CORRUPT_FILE", b)
      write(new File(table, "_refs/branches/dev.json"), s"""{"parentBranch":"$b","parentVersion":1}""")
      assert(errorOf(spark.read.format("lance").option("branch", "dev").load(table.getPath).count()).errorClass == "LANCE_CORRUPT_FILE", b)
    }
  }

  test("tag and branch files nested too deeply for the stack, or too large, are corrupt, not a crash") {
    val table = tableBesideAnother()
    Seq("[" * 100000, "{\"version\":" + "[" * 100000 + "]" * 100000 + "}", "{\"a\":" * 50000,
        " " * (2 << 20) + "{\"version\":1}").foreach { text => // the last: larger than a ref file may be
      write(new File(table, "_refs/tags/first.json"), text)
      assert(errorOf(spark.read.format("lance").option("tag", "first").load(table.getPath).count()).errorClass == "LANCE_CORRUPT_FILE")
      write(new File(table, "_refs/branches/dev.json"), text)
      assert(errorOf(spark.read.format("lance").option("branch", "dev").load(table.getPath).count()).errorClass == "LANCE_CORRUPT_FILE")
    }
  }
}
