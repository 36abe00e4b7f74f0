package io.sparklance.table

import org.roaringbitmap.RoaringBitmap
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.FileVersion

/** Split planning on synthetic tasks: equal splits, a multiple of the cores, no lost rows. */
class SplitPlanningSuite extends AnyFunSuite {

  private val MB = 1L << 20

  /** A fragment of `rows` rows in one file of `mb` MiB holding fields 1 (int64) and 2 (string). */
  private def fragment(id: Long, rows: Long, mb: Long): ScanTask =
    ScanTask(id, IndexedSeq(ScanFile(s"data/$id.lance", mb * MB, IndexedSeq(1, 2), IndexedSeq(0, 1), FileVersion.V2_1)), rows, 0, rows, None)

  private val widths = Map(1 -> 8L, 2 -> 24L)

  /** Every row of every task, once, in order: the splits lose and repeat nothing. */
  private def assertCovers(tasks: IndexedSeq[ScanTask], splits: IndexedSeq[IndexedSeq[ScanTask]]): Unit = {
    def rows(ts: Seq[ScanTask]) = ts.flatMap(t => t.selection.fold((t.rowStart until t.rowEnd).map(t.fragmentId -> _))(s =>
      s.toArray.toIndexedSeq.map(o => t.fragmentId -> (o & 0xffffffffL))))
    assert(rows(splits.flatten) == rows(tasks))
  }

  test("five fragments on two cores make four equal splits: two full waves, not three with one core idle") {
    val tasks = (0L until 5L).map(fragment(_, 1000000, 60))
    val splits = ScanPlanner.splits(tasks, Set.empty, widths, SplitSizing(128 * MB, 4 * MB, parallelism = 2))
    assert(splits.length == 4) // 5 * (60 + 4) MiB in splits of at most 128 MiB, a multiple of 2
    val rows = splits.map(_.map(_.rowsToRead).sum)
    assert(rows.max - rows.min <= 1, rows)
    assertCovers(tasks, splits)
  }

  test("a small table makes one split per core") {
    val tasks = (0L until 10L).map(fragment(_, 100000, 6))
    val splits = ScanPlanner.splits(tasks, Set.empty, widths, SplitSizing(128 * MB, 4 * MB, parallelism = 4))
    assert(splits.length == 4)
    assertCovers(tasks, splits)
  }

  test("reading one column sizes splits by that column's share of the files") {
    val tasks = (0L until 10L).map(fragment(_, 1000000, 64))
    val all = ScanPlanner.splits(tasks, Set.empty, widths, SplitSizing(128 * MB, 4 * MB, parallelism = 2))
    val ints = ScanPlanner.splits(tasks, Set(1), widths, SplitSizing(128 * MB, 4 * MB, parallelism = 2))
    assert(tasks.head.bytesToRead(Set(1), widths) == 16 * MB) // 8 of 32 bytes a row
    assert(all.length == 6 && ints.length == 2)
    assertCovers(tasks, ints)
  }

  test("tiny fragments are never cut: each costs an open, and they pack") {
    val tasks = (0L until 1000L).map(fragment(_, 1, 0))
    val splits = ScanPlanner.splits(tasks, Set.empty, widths, SplitSizing(128 * MB, 4 * MB, parallelism = 2))
    assert(splits.length == 32) // 1000 * 4 MiB of open cost in splits of at most 128 MiB, a multiple of 2
    assert(splits.forall(_.forall(t => t.numRows == 1)))
    assertCovers(tasks, splits)
  }

  test("selections are cut by rank into parts of equal offsets") {
    val t = fragment(0, 100000, 256).select(RoaringBitmap.bitmapOf((0 until 100000 by 7): _*))
    val splits = ScanPlanner.splits(IndexedSeq(t), Set.empty, widths, SplitSizing(8 * MB, 0, parallelism = 1))
    val counts = splits.map(_.map(_.rowsToRead).sum)
    assert(splits.length == 5 && counts.max - counts.min <= 1, counts) // 256 MiB / 7 of the rows
    assertCovers(IndexedSeq(t), splits)
  }

  test("parts of a task are row ranges by fraction, empty ones None") {
    val t = fragment(3, 10, 1)
    assert(t.part(0, 0.5).map(p => (p.rowStart, p.rowEnd)).contains((0L, 5L)))
    assert(t.part(0.5, 1).map(p => (p.rowStart, p.rowEnd)).contains((5L, 10L)))
    assert(t.part(0.31, 0.33).isEmpty)
  }
}
