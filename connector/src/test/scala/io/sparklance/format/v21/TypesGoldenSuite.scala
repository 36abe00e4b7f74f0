package io.sparklance.format.v21

import org.apache.arrow.memory.RootAllocator
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.Snapshot
import io.sparklance.testutil.{Golden, TableRows}

/**
 * Every type family pylance writes in file formats 2.1 and 2.2, nested ones included, reads
 * into the same Arrow values as pylance's own reading, column by column.
 */
class TypesGoldenSuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())

  private def check(name: String, batchRows: Int): Unit = {
    val ds = Golden.dataset(name)
    ds.versions.foreach { v =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val (schema, expected) = Golden.expectedRows(ds.expectedFile(v), allocator)
        val snapshot = Snapshot.open(store, ds.uri, Some(v))
        val fields = snapshot.manifest.schema.fields
        fields.indices.foreach { c =>
          val f = fields(c)
          val actual = TableRows.read(store, snapshot, allocator, batchRows, IndexedSeq(f)).map(_.head)
          val exp = expected.map(_(schema.getFields.indexOf(schema.findField(f.name))))
          assert(actual.length == exp.length, s"$name v$v ${f.name}: row count")
          actual.indices.foreach { i =>
            if (actual(i) != exp(i)) fail(s"$name v$v column ${f.name} row $i:\n ours:    ${actual(i)}\n pylance: ${exp(i)}")
          }
        }
      } finally allocator.close()
    }
  }

  Seq("types_v2_1", "types_v2_2").foreach { name =>
    test(s"$name: every column equals pylance") { check(name, 8192) }
    test(s"$name: small batches cut nested rows anywhere") { check(name, 7) }
  }

  Seq("wide_vectors_v2_1", "wide_vectors_v2_2", "one_page_vectors_v2_2", "encodings_v2_1", "encodings_v2_2", "many_pages_v2_1", "many_pages_v2_2",
    "edge_cases_v2_2", "one_row", "empty_table", "long_strings", "types_legacy", "wide_vectors_legacy").foreach { name =>
    test(s"$name: every column equals pylance") { check(name, 1000) }
  }
}
