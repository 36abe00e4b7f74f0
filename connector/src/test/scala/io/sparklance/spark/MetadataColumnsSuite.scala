package io.sparklance.spark

import java.io.File

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{Golden, LocalSpark}

/** `_rowid` and `_rowaddr` equal pylance's for every version, with and without stable row ids. */
class MetadataColumnsSuite extends AnyFunSuite with LocalSpark {

  private def check(name: String): Unit = {
    val ds = Golden.dataset(name)
    ds.versions.foreach { v =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val (schema, expected) = Golden.expectedRows(new File(ds.expectedFile(v).getParentFile, s"rowids_v$v.arrow"), allocator)
        val names = schema.getFields.asScala.map(_.getName)
        val want = expected.map(r => (r(names.indexOf("_rowid")).asInstanceOf[Number].longValue, r(names.indexOf("_rowaddr")).asInstanceOf[Number].longValue))
        val got = spark.read.format("lance").option("version", v.toString).load(ds.uri)
          .select("_rowid", "_rowaddr", "_fragid").collect().toIndexedSeq
        assert(got.map(r => (r.getLong(0), r.getLong(1))) == want, s"$name v$v")
        assert(got.forall(r => r.getLong(2) == (r.getLong(1) >>> 32)))
      } finally allocator.close()
    }
  }

  test("stable row ids survive updates and compaction (range, holes, bitmap, arrays)") { check("stable_row_ids") }
  test("row addresses after deletions; without stable ids the row id is the address") { check("deletions") }

  test("metadata columns next to data columns, and in filters") {
    val uri = Golden.dataset("deletions").uri
    val df = spark.read.format("lance").load(uri)
    val rows = df.select("id", "_rowaddr").where("_fragid = 1").collect()
    assert(rows.nonEmpty && rows.forall(r => (r.getLong(1) >>> 32) == 1L))
  }
}
