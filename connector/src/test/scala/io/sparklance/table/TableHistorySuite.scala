package io.sparklance.table

import java.io.File

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.testutil.{Golden, TableRows}

/**
 * Every version of every table-history golden dataset — deletions, updates, schema
 * evolution, compaction and cleanup, stable row ids, V1 names, multi-base, shallow
 * clones, indices, overwrites — and of the datasets older pylance releases wrote, reads
 * with that version's own schema and exactly pylance 14.0.2's rows.
 */
class TableHistorySuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())

  private def check(name: String): Unit = {
    val ds = Golden.dataset(name)
    assert(ds.versions.nonEmpty, name)
    ds.versions.foreach { v =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val (schema, expected) = Golden.expectedRows(ds.expectedFile(v), allocator)
        val snapshot = Snapshot.open(store, ds.uri, Some(v))
        val fields = snapshot.manifest.schema.fields
        assert(fields.map(_.name) == schema.getFields.asScala.map(_.getName).toIndexedSeq,
          s"$name v$v columns")
        val actual = TableRows.read(store, snapshot, allocator, 777)
        assert(actual.length == expected.length, s"$name v$v rows")
        actual.indices.foreach { i =>
          if (actual(i) != expected(i)) fail(s"$name v$v row $i:\n ours:    ${actual(i)}\n pylance: ${expected(i)}")
        }
      } finally allocator.close()
    }
  }

  Seq("deletions", "updates", "schema_evolution", "compaction", "cleaned_up", "stable_row_ids", "v1_manifest_names_history",
    "multi_base", "shallow_clone_src", "shallow_clone", "branches_tags", "indexed", "empty_versions", "overwrite_history")
    .foreach(name => test(s"$name: every version equals pylance")(check(name)))

  private val oldRoot = new File(Golden.root, "old")
  Option(oldRoot.listFiles()).toSeq.flatten.filter(_.isDirectory).sortBy(_.getName).foreach { release =>
    Option(release.listFiles()).toSeq.flatten.filter(f => new File(f, "info.json").isFile).sortBy(_.getName).foreach { d =>
      test(s"pylance ${release.getName} wrote ${d.getName}: every version equals pylance 14") {
        check(s"old/${release.getName}/${d.getName}")
      }
    }
  }

  test("older releases are covered") {
    assert(Option(oldRoot.list()).toSeq.flatten.count(n => new File(oldRoot, n).isDirectory) >= 4,
      "run dev/golden/generate.py --old (make golden does)")
  }
}
