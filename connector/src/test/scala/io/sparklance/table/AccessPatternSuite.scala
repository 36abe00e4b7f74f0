package io.sparklance.table

import scala.jdk.CollectionConverters._

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
      val rnd = new java.util.SplittableRandom(11)
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

  test("a row range of a one-page full-zip column reads its rows, not the whole page") {
    val name = "one_page_vectors_v2_2"
    val exp = expected(name)
    val (snapshot, tasks, _) = fragmentsOf(name)
    val t = tasks.head
    val fileBytes = t.files.map(_.sizeBytes).sum
    assert(t.physicalRows == 20000 && fileBytes > 15L * 1024 * 1024)
    Seq((0L, 10L), (15000L, 15100L), (19990L, 20000L), (3000L, 13000L)).foreach { case (a, b) =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val scanner = new FragmentScanner(store, t.copy(rowStart = a, rowEnd = b), snapshot.manifest.schema.fields, 1000, allocator)
        val (rows, read) =
          try { (scanner.flatMap(r => try Canonical.rows(r) finally r.close()).toIndexedSeq, scanner.bytesRead) }
          finally scanner.close()
        assert(rows == exp.slice(a.toInt, b.toInt), s"rows [$a, $b)")
        // Each of the three full-zip columns is read in windows of at most 4 MiB (a window's
        // whole rows) from the first row asked for; the file's metadata and id column are small.
        val bound = (b - a) * (512 + 257 + 257) + 3L * (4 << 20) + (512 << 10)
        assert(read > 0 && read < bound, s"rows [$a, $b) read $read of $fileBytes bytes")
        if (b - a <= 100) assert(read < fileBytes * 3 / 4, s"rows [$a, $b) read $read of $fileBytes bytes")
      } finally allocator.close()
    }
  }

  test("take scattered rows, touching only their pages") {
    Seq("basic_types_large", "basic_types").foreach { name =>
      val exp = expected(name)
      val (snapshot, tasks, starts) = fragmentsOf(name)
      val rnd = new java.util.SplittableRandom(5)
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

  test("a task with a selection reads only the selected rows, a small part of the bytes") {
    val exp = expected("basic_types_large")
    val (snapshot, tasks, starts) = fragmentsOf("basic_types_large")
    // Full-zip pages (long_string_col) are still decoded whole.
    val all = snapshot.manifest.schema.fields
    val fields = all.filterNot(_.name == "long_string_col")
    val columns = fields.map(f => all.indexOf(f))
    tasks.zipWithIndex.foreach { case (t, k) =>
      val offsets = Seq(17L, 18L, 20000L, 45001L, t.physicalRows - 1)
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        def run(task: ScanTask): (IndexedSeq[IndexedSeq[Any]], Long) = {
          val scanner = new FragmentScanner(store, task, fields, 2, allocator)
          try { (scanner.flatMap(r => try Canonical.rows(r) finally r.close()).toIndexedSeq, scanner.bytesRead) } finally scanner.close()
        }
        val (rows, bytes) = run(t.select(org.roaringbitmap.RoaringBitmap.bitmapOf(offsets.map(_.toInt): _*)))
        assert(rows == offsets.map(o => columns.map(exp((starts(k) + o).toInt))), s"fragment ${t.fragmentId}")
        val (_, full) = run(t)
        assert(bytes * 5 < full, s"fragment ${t.fragmentId}: the selection read $bytes bytes, the whole fragment $full")
      } finally allocator.close()
    }
  }

  test("selected rows that were deleted are not returned") {
    val ds = Golden.dataset("deletions")
    val v = ds.versions.max
    val allocator = new RootAllocator(Long.MaxValue)
    try {
      val exp = Golden.expectedRows(ds.expectedFile(v), allocator)._2
      val addresses = Golden.expectedRows(new java.io.File(ds.expectedFile(v).getParentFile, s"rowids_v$v.arrow"), allocator)._2
        .map(_(1).asInstanceOf[Number].longValue)
      val rowOf = addresses.zipWithIndex.toMap
      val snapshot = Snapshot.open(store, ds.uri, Some(v))
      ScanPlanner.plan(store, snapshot).filter(_.deletion.isDefined).foreach { t =>
        val selection = org.roaringbitmap.RoaringBitmap.bitmapOfRange(0, t.physicalRows)
        val scanner = new FragmentScanner(store, t.select(selection), snapshot.manifest.schema.fields, 1000, allocator)
        val rows = try scanner.flatMap(r => try Canonical.rows(r) finally r.close()).toIndexedSeq finally scanner.close()
        val live = (0L until t.physicalRows).flatMap(o => rowOf.get((t.fragmentId << 32) | o))
        assert(rows == live.map(exp), s"fragment ${t.fragmentId}")
        assert(scanner.rowsDeleted == t.physicalRows - live.length)
      }
    } finally allocator.close()
  }

  test("a large selection is cut into pieces reading equal numbers of rows") {
    val exp = expected("basic_types_large")
    val (snapshot, tasks, starts) = fragmentsOf("basic_types_large")
    val t = tasks.head
    val selection = org.roaringbitmap.RoaringBitmap.bitmapOf((0 until t.physicalRows.toInt by 3): _*)
    val splits = ScanPlanner.splits(IndexedSeq(t.select(selection)), Set.empty, Map.empty, SplitSizing(512 * 1024, 0))
    val pieces = splits.flatten
    assert(pieces.length > 2)
    val counts = pieces.map(_.rowsToRead)
    assert(counts.sum == selection.getLongCardinality && counts.max - counts.min <= 1, counts)
    assert(org.roaringbitmap.RoaringBitmap.or(pieces.flatMap(_.selection).iterator.asJava) == selection)
    val allocator = new RootAllocator(Long.MaxValue)
    try {
      val rows = pieces.flatMap { p =>
        val scanner = new FragmentScanner(store, p, snapshot.manifest.schema.fields, 4000, allocator)
        try scanner.flatMap(r => try Canonical.rows(r) finally r.close()).toIndexedSeq finally scanner.close()
      }
      assert(rows == selection.toArray.toSeq.map(o => exp((starts(0) + o).toInt)))
    } finally allocator.close()
  }
}
