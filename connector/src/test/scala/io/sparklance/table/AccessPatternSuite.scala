package io.sparklance.table

import scala.util.Random

import org.apache.arrow.memory.RootAllocator
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.testutil.{Canonical, Golden}

/** Row ranges and row takes return exactly pylance's rows at those positions. */
class AccessPatternSuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())

  private def expected(name: String): IndexedSeq[IndexedSeq[Any]] = {
    val ds = Golden.dataset(name)
    val allocator = new RootAllocator(Long.MaxValue)
    try Golden.expectedRows(ds.expectedFile(ds.versions.max), allocator)._2 finally allocator.close()
  }

  /** Physical row offset of each fragment's first row in the table's row order. */
  private def fragmentsOf(name: String) = {
    val snapshot = Snapshot.open(store, Golden.dataset(name).uri, None)
    val tasks = ScanPlanner.plan(store, snapshot)
    (snapshot, tasks, tasks.scanLeft(0L)(_ + _.physicalRows))
  }

  test("row ranges inside fragments") {
    Seq("basic_types_large", "basic_types").foreach { name =>
      val exp = expected(name)
      val (snapshot, tasks, starts) = fragmentsOf(name)
      val rnd = new Random(11)
      tasks.zipWithIndex.foreach { case (t, k) =>
        (0 until 5).foreach { _ =>
          val a = rnd.nextLong(t.physicalRows)
          val b = a + rnd.nextLong(t.physicalRows - a) + 1
          val allocator = new RootAllocator(Long.MaxValue)
          try {
            val scanner = new FragmentScanner(store, t.copy(rowStart = a, rowEnd = b), snapshot.manifest.schema.fields, 777, allocator)
            val rows = try scanner.flatMap(r => try Canonical.rows(r) finally r.close()).toIndexedSeq finally scanner.close()
            assert(rows == exp.slice((starts(k) + a).toInt, (starts(k) + b).toInt), s"$name fragment ${t.fragmentId} rows [$a, $b)")
          } finally allocator.close()
        }
      }
    }
  }

  test("take scattered rows, touching only their pages") {
    Seq("basic_types_large", "basic_types").foreach { name =>
      val exp = expected(name)
      val (snapshot, tasks, starts) = fragmentsOf(name)
      val rnd = new Random(5)
      tasks.zipWithIndex.foreach { case (t, k) =>
        val offsets = (0 until 40).map(_ => rnd.nextLong(t.physicalRows)).distinct.sorted.toArray
        val allocator = new RootAllocator(Long.MaxValue)
        try {
          val scanner = new FragmentScanner(store, t, snapshot.manifest.schema.fields, 8192, allocator)
          try {
            val root = scanner.take(offsets)
            try assert(Canonical.rows(root) == offsets.toIndexedSeq.map(o => exp((starts(k) + o).toInt)), s"$name fragment ${t.fragmentId}")
            finally root.close()
          } finally scanner.close()
        } finally allocator.close()
      }
    }
  }
}
