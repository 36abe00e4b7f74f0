package io.sparklance.format.v20

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector
import org.apache.arrow.vector.types.pojo.Field

import io.sparklance.format.{ColumnInfo, LanceFileReader}
import io.sparklance.format.proto.ArrayEncodingCodec
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance-encoding/src/previous/decoder.rs and
// docs/src/format/file/index.md. In a 2.0 file every field owns a column, struct and list
// parents included. A reader walks one field's column(s) front to back; its "rows" are the
// parent's rows for a top-level field and items for a field inside a list.

/** Reads one field of a 2.0 file, row by row range, into Arrow vectors. */
private[v20] trait ColumnReader {
  /** The Arrow field the vectors have (a blob column reads as its descriptor struct). */
  def arrowField: Field

  /** Rows not yet read or skipped. */
  def remaining: Long

  def skip(n: Long): Unit

  /**
   * Fills the empty `vector` (made from [[arrowField]]) with the rows of `runs`: for each
   * run, `skip` rows are passed over and the next `count` rows are read.
   */
  def read(runs: Seq[Run], vector: FieldVector, allocator: BufferAllocator): Unit
}

/** Skip `skip` rows, then take `count`. */
private[v20] final case class Run(skip: Long, count: Int)

private[v20] object ColumnReader {

  /** Row counts of a column's pages, checked: a page length is an unsigned 64-bit value. */
  def pageRows(file: LanceFileReader, column: ColumnInfo, what: String): IndexedSeq[Long] =
    column.pages.zipWithIndex.map { case (p, i) =>
      if (p.numRows < 0)
        throw Errors.corrupt(file.path, s"$what, column ${column.index} page $i has ${java.lang.Long.toUnsignedString(p.numRows)} rows")
      p.numRows
    }

  def sum(rows: IndexedSeq[Long], file: LanceFileReader, column: ColumnInfo): Long =
    rows.foldLeft(0L) { (a, b) =>
      val s = a + b
      if (s < 0) throw Errors.corrupt(file.path, s"column ${column.index} has more than 2^63 rows")
      s
    }

  /** How errors name page `i` of `column`, which holds field `name`. */
  def label(name: String, column: ColumnInfo, i: Int): String = s"$name (column ${column.index} page $i)"

  /** The page encoding of page `i`, parsed (cheap: no page buffer is read). */
  def encoding(file: LanceFileReader, name: String, column: ColumnInfo, i: Int): ArrayEncoding =
    ArrayEncodingCodec.parse(column.pages(i).encoding, file.path, label(name, column, i))

  /** Rows the runs skip and take, which must not exceed `left`. */
  def span(runs: Seq[Run], left: Long, file: LanceFileReader, what: String): Long = {
    val n = runs.foldLeft(0L)((a, r) => a + r.skip + r.count)
    if (n > left) throw tooFew(file, what, n, left)
    n
  }

  def tooFew(file: LanceFileReader, what: String, asked: Long, left: Long): Exception =
    Errors.corrupt(file.path, s"$what: $asked rows were asked for but the column holds only $left more")
}
