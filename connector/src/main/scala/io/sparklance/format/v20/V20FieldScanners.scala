package io.sparklance.format.v20

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}

import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.format.{BlobDescriptors, ColumnInfo, FieldScanner, LanceField, LanceFileReader}
import io.sparklance.format.proto.ArrayEncodingCodec
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance-encoding/src/decoder.rs (`create_legacy_field_scheduler`)
// and docs/src/format/file/index.md. Builds the reader tree of one top-level field of a file
// format 2.0 data file: which column each field owns (from the manifest's DataFile) and how
// it is read (pages on their own, struct header plus children, list offsets plus items).
//
// Choices that follow what pylance 14 writes and returns:
//  * A struct whose first page is `packed_struct` is one column (field metadata
//    `lance-encoding:packed`); otherwise its header column is followed by the children.
//  * A column whose column encoding is `blob` holds (position, size) descriptors; it reads as
//    `struct<position: uint64, size: uint64>`, as pylance's to_table() returns it (a null blob
//    reads as (1, 0), an empty one as (0, 0); the bytes are not fetched).
//  * A field whose schema type is a dictionary reads as its value type; its dictionary pages
//    carry 0-based keys (the writer's own string dictionaries count from 1).

object V20FieldScanners {

  /** A scanner of top-level `field`; `columnOf` maps a field id to its column in `file`. */
  def open(file: LanceFileReader, field: LanceField, columnOf: Int => Option[Int]): FieldScanner = {
    val reader = build(file, field, columnOf, field.name)
    if (reader.remaining != file.numRows)
      throw Errors.corrupt(file.path, s"field '${field.name}' holds ${reader.remaining} rows but the file has ${file.numRows}")
    new V20FieldScanner(field, reader)
  }

  private def column(file: LanceFileReader, field: LanceField, columnOf: Int => Option[Int], name: String): ColumnInfo = {
    val col = columnOf(field.id).getOrElse(throw Errors.corrupt(file.path, s"field '$name' (id ${field.id}) has no column"))
    if (col < 0 || col >= file.columns.length)
      throw Errors.corrupt(file.path, s"field '$name' maps to column $col but the file has ${file.columns.length} columns")
    file.columns(col)
  }

  private def withChildren(field: LanceField, t: ArrowType, children: Seq[Field]): Field =
    new Field(field.name, new FieldType(field.nullable, t, null, if (field.metadata.isEmpty) null else field.metadata.asJava),
      children.asJava)

  private def isPackedMetadata(field: LanceField): Boolean =
    field.metadata.get("lance-encoding:packed").exists(_.equalsIgnoreCase("true")) ||
      field.metadata.get("packed").exists(_.equalsIgnoreCase("true"))

  /** The reader of `field`, whose dotted path from the top-level field is `name`. */
  private def build(file: LanceFileReader, field: LanceField, columnOf: Int => Option[Int], name: String): ColumnReader = {
    val col = column(file, field, columnOf, name)
    val where = s"${file.path}, field '$name'"
    if (field.isStruct) {
      val packed =
        if (col.pages.nonEmpty) ColumnReader.encoding(file, name, col, 0).isInstanceOf[ArrayEncoding.PackedStruct]
        else isPackedMetadata(field)
      if (packed) new PageColumnReader(file, col, field.toArrow(where), zeroBasedDictionary = false, name)
      else {
        val children = field.children.map(c => build(file, c, columnOf, s"$name.${c.name}"))
        val reader = new StructColumnReader(file, col, children, withChildren(field, ArrowType.Struct.INSTANCE, children.map(_.arrowField)), name)
        children.zip(field.children).foreach { case (c, f) =>
          if (c.remaining != reader.remaining)
            throw Errors.corrupt(file.path, s"struct field '$name' has ${reader.remaining} rows but its child '${f.name}' has ${c.remaining}")
        }
        reader
      }
    } else if (field.isList) {
      if (field.children.length != 1)
        throw Errors.corrupt(file.path, s"list field '$name' has ${field.children.length} child fields; a list has one")
      val items = build(file, field.children.head, columnOf, s"$name.${field.children.head.name}")
      val large = field.logicalType.startsWith("large_list")
      val t = if (large) ArrowType.LargeList.INSTANCE else ArrowType.List.INSTANCE
      val reader = new ListColumnReader(file, col, items, large, withChildren(field, t, Seq(items.arrowField)), name)
      if (reader.itemsCovered != items.remaining)
        throw Errors.corrupt(file.path, s"list field '$name': its pages cover ${reader.itemsCovered} items but the item column holds ${items.remaining}")
      reader
    } else if (field.isMap) {
      throw Errors.unsupported(s"map field type in a file format 2.0 file (field '$name')", file.path)
    } else {
      ArrayEncodingCodec.parseColumn(col.columnEncoding, file.path, s"$name (column ${col.index})") match {
        case ColumnEncoding.Blob(_) =>
          new PageColumnReader(file, col, BlobDescriptors.field(field.name, field.nullable, 1), zeroBasedDictionary = false, name)
        case _ =>
          new PageColumnReader(file, col, field.toArrow(where), zeroBasedDictionary = field.logicalType.startsWith("dict:"), name)
      }
    }
  }
}

/** A top-level field of a 2.0 file; batches end early only at the end of the file. */
private final class V20FieldScanner(val field: LanceField, reader: ColumnReader) extends FieldScanner {
  private val total = reader.remaining

  override def skip(n: Long): Unit = reader.skip(math.min(n, reader.remaining))

  override def next(n: Int, allocator: BufferAllocator): FieldVector =
    read(Seq(Run(0, math.min(n.toLong, reader.remaining).toInt)), allocator)

  override def take(rows: Array[Long], allocator: BufferAllocator): FieldVector = {
    // Consecutive rows become one run, so a dense take decodes like a scan.
    val runs = scala.collection.mutable.ArrayBuffer.empty[Run]
    var position = total - reader.remaining
    var i = 0
    while (i < rows.length) {
      val first = rows(i)
      if (first < position || first >= total || (i > 0 && first <= rows(i - 1)))
        throw Errors.invalidArgument(s"row $first of field '${field.name}' is not after row ${position - 1} and before row $total")
      var j = i + 1
      while (j < rows.length && rows(j) == rows(j - 1) + 1) j += 1
      runs += Run(first - position, j - i)
      position = rows(j - 1) + 1
      i = j
    }
    read(runs.toSeq, allocator)
  }

  private def read(runs: Seq[Run], allocator: BufferAllocator): FieldVector = {
    val vector = ArrowVectors.create(reader.arrowField, allocator)
    try reader.read(runs, vector, allocator)
    catch { case t: Throwable => vector.close(); throw t }
    vector
  }
}
