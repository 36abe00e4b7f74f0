package io.sparklance.format.legacy

import org.apache.arrow.vector.types.pojo.ArrowType

import io.sparklance.format.{FixedWidths, LanceField, LogicalType}
import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance protos/file.proto `Field.dictionary`;
// rust/lance-io/src/encodings/dictionary.rs and rust/lance-file/src/datatypes.rs
// (load_field_dictionary). A dictionary field's pages hold its keys, plain-encoded in the key
// type. The values are written once per file, after the page tables, at the offset and
// length (a value count) that the embedded schema's Field.dictionary records: var-binary for
// strings and binaries, plain for numbers. pylance reads zero-length dictionary values as
// null whatever the field's nullability. Spark has no dictionary type, so the column is read
// as its value type (see LogicalType), with each key replaced by its value.
//
// Within a dataset, Rust takes the dictionary from the manifest file rather than from each
// data file; the writer copies the same values into every data file it writes, so a data
// file can be read alone.

private[legacy] object DictionaryPages {

  def column(src: PageSource, pages: PageTable, field: LanceField, location: Option[DictionaryLocation], where: String): ColumnReader = {
    // dict:<value type>:<key type>:<ordered>; the value type may itself contain ':'.
    val parts = field.logicalType.split(':')
    if (parts.length < 4) throw Errors.corrupt(src.path, s"$where has malformed logical type '${field.logicalType}'")
    val keyType = LogicalType.parse(parts(parts.length - 2), where, field.name) match {
      case LogicalType.Plain(i: ArrowType.Int) => i
      case _ => throw Errors.unsupported(s"dictionary key type '${parts(parts.length - 2)}'", where)
    }
    val loc = location.getOrElse(
      throw Errors.corrupt(src.path, s"$where is a dictionary field but the embedded schema gives no dictionary location"))
    if (loc.offset < 0 || loc.length < 0 || loc.length > Int.MaxValue - 1)
      throw Errors.corrupt(src.path, s"$where: dictionary location (offset ${loc.offset}, ${loc.length} values) is invalid")
    val valueType = LogicalType.parse(parts.slice(1, parts.length - 2).mkString(":"), where, field.name) match {
      case LogicalType.Plain(t) => t
      case _ => throw Errors.unsupported(s"dictionary value type in '${field.logicalType}'", where)
    }
    val values: DictionaryValues =
      if (ColumnReader.isBinaryLike(valueType)) new BinaryDictionary(src, loc, where)
      else FixedWidths.bytes(valueType) match {
        case Some(w) => new FixedDictionary(src, loc, w, where)
        case None => throw Errors.unsupported(s"dictionary value type in '${field.logicalType}'", where)
      }
    new DictionaryColumn(src, pages, field.id, keyType, values, where)
  }
}

/** The values of one dictionary, read on first use. */
private[legacy] sealed abstract class DictionaryValues {
  def size: Int
  def newBuilder(): VectorBuilder
  /** Appends value `key` (already checked against [[size]]) to `builder`. */
  def appendTo(builder: VectorBuilder, key: Int): Unit
}

private[legacy] final class BinaryDictionary(src: PageSource, loc: DictionaryLocation, where: String) extends DictionaryValues {
  private lazy val values =
    if (loc.length == 0) null else BinaryPages.read(src, loc.offset, 0, loc.length.toInt, s"$where, dictionary values")
  def size: Int = loc.length.toInt
  def newBuilder(): VectorBuilder = new VarBuilder(emptyIsNull = true, where)
  def appendTo(builder: VectorBuilder, key: Int): Unit =
    builder.asInstanceOf[VarBuilder].append(values.data, values.start(key), values.length(key))
}

private[legacy] final class FixedDictionary(src: PageSource, loc: DictionaryLocation, width: Int, where: String) extends DictionaryValues {
  private lazy val values: Bytes = src.read(loc.offset, loc.length * width, s"$where, dictionary values")
  def size: Int = loc.length.toInt
  def newBuilder(): VectorBuilder = new FixedBuilder(width, where)
  def appendTo(builder: VectorBuilder, key: Int): Unit =
    builder.asInstanceOf[FixedBuilder].append(values, key.toLong * width, 1)
}

/** Keys of `keyType` replaced by their dictionary values. */
private[legacy] final class DictionaryColumn(
    src: PageSource,
    pages: PageTable,
    fieldId: Int,
    keyType: ArrowType.Int,
    values: DictionaryValues,
    where: String) extends ColumnReader {
  private val keyWidth = keyType.getBitWidth / 8
  val builder: VectorBuilder = values.newBuilder()

  def read(batch: Int, from: Int, count: Int): Unit = {
    val page = ColumnReader.page(pages, src.path, fieldId, batch, from, count, where)
    if (count > 0) {
      val keys = src.read(page.position + from.toLong * keyWidth, count.toLong * keyWidth, s"$where, batch $batch dictionary keys")
      var i = 0
      while (i < count) {
        val off = i.toLong * keyWidth
        val raw = keyWidth match {
          case 1 => keys.u8(off).toLong
          case 2 => keys.u16(off).toLong
          case 4 => keys.u32(off)
          case _ => keys.i64(off)
        }
        // Sign-extend signed keys; an unsigned 64-bit key above Long.MaxValue stays negative and fails below.
        val key = if (keyType.getIsSigned && keyWidth < 8) (raw << (64 - 8 * keyWidth)) >> (64 - 8 * keyWidth) else raw
        if (key < 0 || key >= values.size)
          throw Errors.corrupt(src.path, keys.fileOffset + off,
            s"$where: dictionary key ${if (key < 0 && !keyType.getIsSigned) java.lang.Long.toUnsignedString(key) else key.toString} " +
              s"is outside the ${values.size}-value dictionary")
        values.appendTo(builder, key.toInt)
        i += 1
      }
    }
  }
}
