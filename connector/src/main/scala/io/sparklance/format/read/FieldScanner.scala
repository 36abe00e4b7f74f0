package io.sparklance.format.read

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector

import io.sparklance.format.{LanceField, LanceFileReader}
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/file/index.md ("columns"). In 2.1+ files only
// leaf fields own columns; the caller maps field ids to column indices (from the
// manifest's DataFile.fields / column_indices).

/** Reads one top-level field of an open data file, batch after batch, front to back. */
trait FieldScanner {
  def field: LanceField

  /** Skips `n` rows. */
  def skip(n: Long): Unit

  /** The next `n` rows as one Arrow vector (fewer only at the end of the file). */
  def next(n: Int, allocator: BufferAllocator): FieldVector
}

object FieldScanner {

  /**
   * Opens a scanner for `field` in `file`. `columnOf` gives the column index of a field
   * id, if this file stores it.
   */
  def open(file: LanceFileReader, field: LanceField, columnOf: Int => Option[Int]): FieldScanner = {
    val where = s"${file.path}, field '${field.name}'"
    if (file.version < io.sparklance.format.FileVersion.V2_1)
      throw Errors.unsupported(s"reading file format ${file.version} data files", where)
    if (field.isNested)
      throw Errors.unsupported(s"nested field type '${field.logicalType}'", where)
    val col = columnOf(field.id).getOrElse(throw Errors.corrupt(file.path, s"field '${field.name}' (id ${field.id}) has no column"))
    if (col < 0 || col >= file.columns.length)
      throw Errors.corrupt(file.path, s"field '${field.name}' maps to column $col but the file has ${file.columns.length} columns")
    new PrimitiveFieldScanner(file, field, new LeafColumnScanner(file, file.columns(col), field.name), where)
  }
}

private final class PrimitiveFieldScanner(file: LanceFileReader, val field: LanceField, leaf: LeafColumnScanner, where: String)
    extends FieldScanner {
  private val arrowField = field.toArrow(where)

  override def skip(n: Long): Unit = leaf.skipRows(n)

  override def next(n: Int, allocator: BufferAllocator): FieldVector =
    ArrowAssembler.primitive(arrowField, leaf.rows(n), allocator, where)
}
