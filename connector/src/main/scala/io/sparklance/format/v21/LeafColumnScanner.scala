package io.sparklance.format.v21

import scala.collection.mutable.ArrayBuffer

import io.sparklance.format.{ColumnInfo, LanceFileReader}
import io.sparklance.format.layout.{PageLayout, RepDefLayer}
import io.sparklance.format.proto.PageLayoutCodec
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Structural encodings").
// Reads one leaf column of a 2.1+ file front to back, page after page, handing out the
// items of whole top-level rows. A row of a list column may span chunks (its items
// continue until the next item whose repetition level is the maximum), so taking rows
// looks ahead into the next unit when needed.

/** The decoded units (chunks, or whole pages) of one page, in order. */
trait PageUnits {
  /** The next unit, or None at the end of the page. */
  def next(): Option[LeafData]

  /**
   * Skips up to `rows` rows by whole units, without decoding them, and returns how many
   * were skipped (0 when the next unit must be decoded to find its row boundaries).
   */
  def skipWholeUnits(rows: Long): Long = 0
}

/**
 * Sequential reader of one leaf column. `rows(n)` returns the items of the next `n`
 * top-level rows as a list of pieces (each a slice of one decoded unit).
 */
final class LeafColumnScanner(file: LanceFileReader, column: ColumnInfo, val fieldPath: String) {
  private val where = s"${file.path}, column ${column.index} ($fieldPath)"
  private var pageIndex = -1
  private var units: PageUnits = null
  private var layers: IndexedSeq[RepDefLayer] = null
  private var unit: LeafData = null
  private var itemPos = 0
  private var valuePos = 0
  /** Rows that started in the current page, to check against the page's row count. */
  private var pageRows = 0L

  /** The rep/def layers of the page being read (innermost first); valid after the first `rows` call. */
  def currentLayers: IndexedSeq[RepDefLayer] = layers

  /** Total rows in the column (sum of its pages). */
  def numRows: Long = column.pages.iterator.map(_.numRows).sum

  private def maxRep: Int = layers.count(_.isList)

  /** Definition levels at or below this value have a value slot (see the spec on visibility). */
  private def maxVisibleDef: Int = layers.takeWhile(!_.isList).map(_.defLevels).sum

  private def nextUnit(): Boolean = {
    while (true) {
      if (units != null) {
        units.next() match {
          case Some(u) => unit = u; itemPos = 0; valuePos = 0; return true
          case None => endPage()
        }
      }
      if (pageIndex + 1 >= column.pages.length) { pageIndex += 1; unit = null; return false }
      openNextPage()
    }
    false
  }

  /** Moves to the next page and opens it; its units are decoded only as they are asked for. */
  private def openNextPage(): Unit = {
    pageIndex += 1
    pageRows = 0
    val page = column.pages(pageIndex)
    val layout = PageLayoutCodec.parse(page.encoding, s"$where, page $pageIndex")
    layers = layout.layers
    units = PageDecoders.open(file, page, layout, s"$where, page $pageIndex")
  }

  /** Closes the current page, whose units are all read, checking that they held its rows. */
  private def endPage(): Unit = {
    units = null
    val declared = column.pages(pageIndex).numRows
    if (pageRows != declared) throw Errors.corrupt(file.path, s"$where, page $pageIndex: the levels describe $pageRows rows but the page declares $declared")
  }

  /**
   * Skips `n` top-level rows: the rest of a decoded unit is sliced off, whole pages and
   * chunks are stepped over without reading them, and only the unit the rows end in is
   * decoded.
   */
  def skipRows(n: Long): Unit = {
    var left = n
    var progress = true
    while (left > 0 && progress) {
      progress = false
      // Without repetition a unit's items are rows: what is left of the current one is passed.
      if (unit != null && itemPos < unit.numItems && unit.reps == null) {
        val k = math.min(left, (unit.numItems - itemPos).toLong).toInt
        rows(k)
        left -= k
        progress = true
      }
      val unitDone = unit == null || itemPos >= unit.numItems
      // A page whose rows have all been passed is closed, so that the next can be skipped
      // whole (with repetition, the items of its last row could continue in a later unit).
      if (left > 0 && unitDone && units != null && maxRep == 0 && pageRows == column.pages(pageIndex).numRows) {
        if (units.next().isDefined) throw Errors.corrupt(file.path, s"$where, page $pageIndex holds more units than its ${pageRows} rows need")
        endPage()
        unit = null
        progress = true
      }
      // Whole pages, while nothing of the current page is pending.
      while (left > 0 && unitDone && units == null && pageIndex + 1 < column.pages.length &&
        column.pages(pageIndex + 1).numRows <= left) {
        pageIndex += 1
        left -= column.pages(pageIndex).numRows
        progress = true
      }
      // Whole chunks of the page the rows end in, opening it if need be.
      if (left > 0 && unitDone && units == null && pageIndex + 1 < column.pages.length) {
        openNextPage()
        progress = true
      }
      if (left > 0 && unitDone && units != null) {
        val skipped = units.skipWholeUnits(left)
        if (skipped > 0) { left -= skipped; pageRows += skipped; unit = null; progress = true }
      }
    }
    while (left > 0) {
      val step = math.min(left, Int.MaxValue.toLong).toInt
      rows(step)
      left -= step
    }
  }

  /** The items of the next `n` rows (fewer only at the end of the column). */
  def rows(n: Int): IndexedSeq[LeafData] = {
    val pieces = ArrayBuffer.empty[LeafData]
    var started = 0
    var done = false
    while (!done) {
      if (unit == null || itemPos >= unit.numItems) {
        if (!nextUnit()) done = true
      }
      if (!done) {
        val u = unit
        val from = itemPos
        var i = from
        val reps = u.reps
        if (reps == null) {
          val take = math.min(n - started, u.numItems - i)
          i += take
          started += take
          pageRows += take
          if (started == n) done = true
        } else {
          val top = maxRep
          var stop = false
          while (i < u.numItems && !stop) {
            if (reps(i) == top) {
              if (started == n) stop = true else { started += 1; pageRows += 1; i += 1 }
            } else if (i == 0 && pageRows == 0 && itemPos == 0 && pieces.isEmpty && started == 0)
              throw Errors.corrupt(file.path, s"$where, page $pageIndex starts in the middle of a row")
            else i += 1
          }
          if (stop) done = true
        }
        if (i > from) pieces += slice(u, from, i)
        itemPos = i
        // Without repetition a full batch never continues into the next unit.
        if (reps == null && started == n) done = true
      }
    }
    pieces.toIndexedSeq
  }

  private def slice(u: LeafData, from: Int, until: Int): LeafData = {
    val visible =
      if (u.defs == null) until - from
      else {
        val mv = maxVisibleDef
        var c = 0
        var i = from
        while (i < until) { if (u.defs(i) <= mv) c += 1; i += 1 }
        c
      }
    val v0 = valuePos
    valuePos += visible
    if (from == 0 && until == u.numItems && v0 == 0 && visible == u.values.count) u
    else
      new LeafData(u.layers, until - from,
        if (u.reps == null) null else java.util.Arrays.copyOfRange(u.reps, from, until),
        if (u.defs == null) null else java.util.Arrays.copyOfRange(u.defs, from, until),
        u.values.slice(v0, v0 + visible))
  }
}
