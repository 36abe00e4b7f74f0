package io.sparklance.spark

import java.io.File

import org.apache.arrow.memory.RootAllocator
import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

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
}
