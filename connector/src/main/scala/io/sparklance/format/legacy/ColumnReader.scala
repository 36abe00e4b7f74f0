package io.sparklance.format.legacy

import org.apache.arrow.vector.types.pojo.ArrowType

import io.sparklance.format.{FixedWidths, LanceField, LogicalType}
import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance rust/lance-file/src/previous/reader.rs (how each Arrow type maps to a
// legacy page encoding). The legacy format records no encoding per page: the field's type decides
// it. Fixed-stride types (primitives, fixed-size binary, fixed-size lists) are plain; strings and
// binaries are var-binary; dictionaries store their keys plainly; a list stores an offsets page
// plus its child's pages; a struct has no page of its own.

/** Byte ranges of one legacy file, checked against its size before they are read. */
private[legacy] trait PageSource {
  def path: String

  /** Reads `[offset, offset + length)`; a range outside the file is a CorruptFile error naming `what`. */
  def read(offset: Long, length: Long, what: => String): Bytes
}

/**
 * Decodes one field's pages: each [[read]] appends rows of one batch to [[builder]], so a
 * caller can gather rows from several batches before building one Arrow vector.
 */
private[legacy] abstract class ColumnReader {
  def builder: VectorBuilder

  /** Appends rows `[from, from + count)` of batch `batch`. */
  def read(batch: Int, from: Int, count: Int): Unit
}

private[legacy] object ColumnReader {

  /**
   * The reader of `field` (and its children) over `pages`. `dictionary` gives where a
   * dictionary field's values lie in the file.
   */
  def forField(src: PageSource, pages: PageTable, field: LanceField, dictionary: Int => Option[DictionaryLocation], where: String): ColumnReader = {
    val at = s"$where, field '${field.name}' (id ${field.id})"
    val lt = field.logicalType
    if (lt.startsWith("dict:")) DictionaryPages.column(src, pages, field, dictionary(field.id), at)
    else if (field.isStruct) new StructColumn(field.children.map(c => forField(src, pages, c, dictionary, where)))
    else if (field.isList) {
      if (field.children.length != 1)
        throw Errors.corrupt(src.path, s"$at: a list field has ${field.children.length} child fields instead of one")
      new ListColumn(src, pages, field.id, large = lt.startsWith("large_list"), forField(src, pages, field.children.head, dictionary, where), at)
    } else if (field.isMap) throw Errors.unsupported(s"map field type in a legacy (0.1) data file", at)
    else LogicalType.parse(lt, at, field.name) match {
      case LogicalType.Plain(ArrowType.Null.INSTANCE) => new NullColumn(pages, field.id, src.path, at)
      case LogicalType.Plain(ArrowType.Bool.INSTANCE) => new BoolColumn(src, pages, field.id, at)
      case LogicalType.Plain(t) if isBinaryLike(t) => new BinaryColumn(src, pages, field.id, emptyIsNull = field.nullable, at)
      case LogicalType.Plain(t) =>
        val w = FixedWidths.bytes(t).getOrElse(throw Errors.unsupported(s"field type '$lt' in a legacy (0.1) data file", at))
        new PlainColumn(src, pages, field.id, w, at)
      case LogicalType.FixedSizeList(ArrowType.Bool.INSTANCE, n) => new FixedListColumn(src, pages, field.id, n, 0, at)
      case LogicalType.FixedSizeList(item, n) =>
        val w = FixedWidths.bytes(item).getOrElse(throw Errors.unsupported(s"fixed-size list type '$lt' in a legacy (0.1) data file", at))
        new FixedListColumn(src, pages, field.id, n, w, at)
    }
  }

  def isBinaryLike(t: ArrowType): Boolean = t match {
    case _: ArrowType.Utf8 | _: ArrowType.LargeUtf8 | _: ArrowType.Binary | _: ArrowType.LargeBinary => true
    case _ => false
  }

  /**
   * The page of `fieldId` in `batch`, which must hold at least `from + count` items (a page's
   * length counts items: rows, or list offsets).
   */
  def page(pages: PageTable, path: String, fieldId: Int, batch: Int, from: Int, count: Int, where: String): PageRef = {
    val p = pages.page(fieldId, batch)
    if (from.toLong + count > p.length)
      throw Errors.corrupt(path, p.position, s"$where: batch $batch needs items [$from, ${from.toLong + count}) but its page holds ${p.length}")
    p
  }
}

/** The Arrow null type: pages hold a row count and no bytes. */
private[legacy] final class NullColumn(pages: PageTable, fieldId: Int, path: String, where: String) extends ColumnReader {
  val builder = new NullBuilder
  def read(batch: Int, from: Int, count: Int): Unit = {
    ColumnReader.page(pages, path, fieldId, batch, from, count, where)
    builder.add(count)
  }
}

/** A struct: no page of its own, only its children's. Legacy structs cannot be null. */
private[legacy] final class StructColumn(children: IndexedSeq[ColumnReader]) extends ColumnReader {
  val builder = new StructBuilder(children.map(_.builder))
  def read(batch: Int, from: Int, count: Int): Unit = {
    children.foreach(_.read(batch, from, count))
    builder.add(count)
  }
}
