package io.sparklance.table

import org.apache.arrow.memory.RootAllocator
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.testutil.{Golden, TableRows}

/**
 * Every version of every golden dataset read by the table and format layers equals, row by
 * row and value by value, what pylance 14.0.2 read from it.
 */
class GoldenReadSuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())

  private def check(name: String, batchRows: Int = 8192): Unit = {
    val ds = Golden.dataset(name)
    assert(ds.versions.nonEmpty)
    ds.versions.foreach { v =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val (schema, expected) = Golden.expectedRows(ds.expectedFile(v), allocator)
        val snapshot = Snapshot.open(store, ds.uri, Some(v))
        assert(snapshot.manifest.schema.toArrow("test").getFields.toString == schema.getFields.toString, s"$name v$v schema")
        val actual = TableRows.read(store, snapshot, allocator, batchRows)
        assert(actual.length == expected.length, s"$name v$v row count")
        actual.indices.foreach { i =>
          if (actual(i) != expected(i))
            fail(s"$name v$v row $i differs:\n ours:    ${actual(i)}\n pylance: ${expected(i)}")
        }
      } finally allocator.close() // fails if any buffer leaked
    }
  }

  Seq("basic_types", "basic_types_large", "no_nulls", "projection_and_count", "legacy_manifest_names", "format_v2_1")
    .foreach(name => test(s"golden dataset $name equals pylance, every version")(check(name)))

  test("deleted rows (arrow and roaring deletion files, merged, whole fragments) never come back") {
    check("deletions")
    check("deletions", batchRows = 100)
  }

  test("odd batch sizes cross chunk and page boundaries") {
    check("basic_types", batchRows = 333)
    check("basic_types_large", batchRows = 1000)
  }

  test("the latest version is the default") {
    val ds = Golden.dataset("basic_types")
    assert(Snapshot.open(store, ds.uri, None).version == ds.versions.max)
  }
}
