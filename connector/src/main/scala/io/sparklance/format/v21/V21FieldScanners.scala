package io.sparklance.format.v21

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector

import io.sparklance.format.{FieldScanner, LanceField, LanceFileReader}
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/file/index.md ("columns") and
// docs/src/format/file/encoding.md (structural encoding). In 2.1+ files only leaf fields
// own columns: a primitive field reads its one leaf, a struct, list or map field is rebuilt
// from the repetition and definition levels of all its leaves.

object V21FieldScanners {

  /** A scanner of top-level `field`; `columnOf` maps a field id to its column in `file`. */
  def open(file: LanceFileReader, field: LanceField, columnOf: Int => Option[Int]): FieldScanner = {
    val where = s"${file.path}, field '${field.name}'"
    def leafScanner(leaf: LanceField): LeafColumnScanner = {
      val col = columnOf(leaf.id).getOrElse(throw Errors.corrupt(file.path, s"field '${leaf.name}' (id ${leaf.id}) has no column"))
      if (col < 0 || col >= file.columns.length)
        throw Errors.corrupt(file.path, s"field '${leaf.name}' maps to column $col but the file has ${file.columns.length} columns")
      val scanner = new LeafColumnScanner(file, file.columns(col), leaf.name)
      if (scanner.numRows != file.numRows)
        throw Errors.corrupt(file.path, s"column $col ('${leaf.name}') has pages of ${scanner.numRows} rows but the file has ${file.numRows}")
      scanner
    }
    // A packed struct (or blob descriptor) owns one column itself, like a leaf.
    if (field.children.isEmpty || columnOf(field.id).isDefined) new PrimitiveFieldScanner(field, leafScanner(field), where)
    else new NestedFieldScanner(field, RepDefUnraveler.leaves(field).map(l => l -> leafScanner(l)), where)
  }
}

/** A field whose leaf is the field itself: levels, when present, only mark nulls. */
private final class PrimitiveFieldScanner(val field: LanceField, leaf: LeafColumnScanner, where: String)
    extends FieldScanner {
  private val arrowField = field.toArrow(where)
  private val position = new RowPosition(where)

  override def skip(n: Long): Unit = { leaf.skipRows(n); position.advance(n) }

  override def next(n: Int, allocator: BufferAllocator): FieldVector = {
    val pieces = leaf.rows(n)
    position.advance(n)
    ArrowAssembler.primitive(arrowField, pieces, allocator, where)
  }

  override def take(rows: Array[Long], allocator: BufferAllocator): FieldVector = {
    val pieces = position.visit(rows, leaf.skipRows, n => leaf.rows(n))
    ArrowAssembler.primitive(arrowField, pieces.flatten, allocator, where)
  }
}

/**
 * The row a sequential scanner is at, and the walk `take` does over ascending rows: runs of
 * consecutive rows are read together, the gaps between them skipped.
 */
private final class RowPosition(where: String) {
  private var at = 0L

  def advance(n: Long): Unit = at += n

  def visit[T](rows: Array[Long], skip: Long => Unit, readRun: Int => T): IndexedSeq[T] = {
    val out = IndexedSeq.newBuilder[T]
    var i = 0
    while (i < rows.length) {
      val start = rows(i)
      if (start < at) throw new IllegalArgumentException(s"$where: row $start requested after row ${at - 1} was read; rows must ascend")
      var j = i + 1
      while (j < rows.length && rows(j) == rows(j - 1) + 1 && j - i < Int.MaxValue) j += 1
      if (start > at) skip(start - at)
      out += readRun(j - i)
      at = start + (j - i)
      i = j
    }
    out.result()
  }
}

/** A struct, list or map field, rebuilt from the levels of its leaves. */
private final class NestedFieldScanner(val field: LanceField, leaves: IndexedSeq[(LanceField, LeafColumnScanner)], where: String)
    extends FieldScanner {
  private val arrowField = field.toArrow(where)
  private val shapes = leaves.map { case (leaf, _) =>
    leaf.id -> (RepDefUnraveler.depth(field, leaf) + 1, RepDefUnraveler.listLayers(field, leaf))
  }.toMap

  private val position = new RowPosition(where)

  override def skip(n: Long): Unit = { leaves.foreach(_._2.skipRows(n)); position.advance(n) }

  override def next(n: Int, allocator: BufferAllocator): FieldVector = {
    position.advance(n)
    assemble(leaves.map { case (leaf, scanner) => leaf -> scanner.rows(n) }, allocator)
  }

  override def take(rows: Array[Long], allocator: BufferAllocator): FieldVector = {
    val perRun = position.visit(rows, n => leaves.foreach(_._2.skipRows(n)), n => leaves.map(_._2.rows(n)))
    assemble(leaves.indices.map(k => leaves(k)._1 -> perRun.flatMap(_(k))), allocator)
  }

  private def assemble(pieces: IndexedSeq[(LanceField, IndexedSeq[LeafData])], allocator: BufferAllocator): FieldVector = {
    val streams = pieces.map { case (leaf, ps) =>
      val (numLayers, lists) = shapes(leaf.id)
      leaf.id -> LeafStream(ps, numLayers, lists, s"$where, leaf '${leaf.name}'")
    }.toMap
    val rows = streams(leaves.head._1.id).slots(shapes(leaves.head._1.id)._2.length).length
    RepDefUnraveler.build(field, arrowField, streams, rows, allocator, where)
  }
}
