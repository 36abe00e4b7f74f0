package io.sparklance.format.write.v20

import scala.jdk.CollectionConverters._

import org.apache.arrow.vector.ValueVector
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}

import io.sparklance.format.{EncodingAny, FixedWidths, LanceField, LogicalType}
import io.sparklance.format.proto.ArrayEncodingCodec
import io.sparklance.format.write.{EncodedPage, FieldEncoder, FileWriterOptions, OutOfLine}
import io.sparklance.format.write.v20.ArrayEncodingStrategy.DictionaryMode
import io.sparklance.util.Errors

// Spec: rust/lance-encoding/src/previous/encoder.rs (CoreFieldEncodingStrategy with version
// 2.0) and lance-format-facts §13.2. In file format 2.0 every field has a column of its own,
// numbered depth first: a struct's header column comes before its children's, a list's offsets
// column before its items'. Values (fixed-width, booleans, nulls, fixed-size lists, strings,
// dictionary-typed fields, blobs) take one column each, and so does a struct asked to be packed
// (its members have none).

/** One field's part of a 2.0 file: its column and those of the fields below it. */
private[v20] trait ColumnNode {
  def numColumns: Int
  /** Throws for values this version cannot store, before anything of the batch is buffered. */
  def check(v: ValueVector, from: Int, count: Int): Unit
  def append(v: ValueVector, from: Int, count: Int): Unit
  /** Pages whose budget passed. */
  def ready(): Seq[EncodedPage]
  /** Every buffered value as pages, now. */
  def flush(): Seq[EncodedPage]
  /** The end of the file: every buffered value and the struct headers. */
  def finish(): Seq[EncodedPage]
}

private[write] final class V20FieldEncoder(top: LanceField, arrow: Field, firstColumn: Int, options: FileWriterOptions, outOfLine: OutOfLine)
    extends FieldEncoder {
  private val where = "the file writer"
  private var nextColumn = firstColumn
  private var blobColumns = Set.empty[Int]

  private def take(): Int = { nextColumn += 1; nextColumn - 1 }

  private def build(f: LanceField, a: Field, path: String): ColumnNode = a.getType match {
    case _: ArrowType.Map =>
      throw Errors.notInFileVersion(s"the map field '$path'", "2.0", where, "write file format 2.2 (2.1 has no maps either)")
    case _: ArrowType.Struct if !f.columnsOwnedByLeaves =>
      if (f.blobVersion.isDefined) throw Errors.unsupported(s"writing the blob field '$path'", where)
      new ValueColumn(take(), new PackedStructValues(path, a.getChildren.asScala.map(packedMember(_, path)).toIndexedSeq), options.pageBytes)
    case _: ArrowType.Struct =>
      if (f.children.isEmpty) throw Errors.unsupported(s"writing the empty struct field '$path'", where)
      val column = take()
      new StructColumn(column, path, a.getChildren.asScala.zip(f.children).map { case (ca, cf) => build(cf, ca, s"$path.${cf.name}") }.toIndexedSeq)
    case t @ (_: ArrowType.List | _: ArrowType.LargeList) =>
      val column = take()
      new ListColumn(column, path, t.isInstanceOf[ArrowType.LargeList], options.pageBytes, build(f.children.head, a.getChildren.get(0), s"$path.${f.children.head.name}"))
    case _: ArrowType.LargeBinary if f.blobVersion.contains(1) && (f eq top) =>
      val column = take()
      blobColumns += column
      new ValueColumn(column, new BlobDescriptors(outOfLine), options.pageBytes)
    case _ =>
      if (f.blobVersion.isDefined)
        throw Errors.unsupported(s"writing the blob field '$path' in file format 2.0 (a top-level large_binary with lance-encoding:blob only)", where)
      val v = dictionaryKeyBits(f, path) match {
        case Some(bits) => a.getType match {
          case _: ArrowType.Utf8 | _: ArrowType.Binary | _: ArrowType.LargeUtf8 | _: ArrowType.LargeBinary =>
            // Rust encodes the items of an Arrow dictionary without the field's compression.
            new BinaryValues(isLarge(a.getType), DictionaryMode.Keys(bits), ArrayEncodingStrategy.binaryCompression(path, Map.empty))
          case t => throw Errors.unsupported(s"writing the dictionary field '$path' of $t values in file format 2.0 (string and binary values only)", where)
        }
        case None => values(a, path, f.metadata)
      }
      new ValueColumn(take(), v, options.pageBytes)
  }

  private def isLarge(t: ArrowType): Boolean = t.isInstanceOf[ArrowType.LargeUtf8] || t.isInstanceOf[ArrowType.LargeBinary]

  /** The key width of a field whose Lance type is a dictionary, `dict:<values>:<keys>:<ordered>`. */
  private def dictionaryKeyBits(f: LanceField, path: String): Option[Int] =
    if (!f.logicalType.startsWith("dict:")) None
    else {
      val parts = f.logicalType.split(':')
      LogicalType.parse(parts(parts.length - 2), where, path) match {
        case LogicalType.Plain(i: ArrowType.Int) => Some(i.getBitWidth)
        case _ => throw Errors.unsupported(s"the dictionary field '$path' of type ${f.logicalType}", where)
      }
    }

  private def values(a: Field, path: String, metadata: Map[String, String]): PageValues = a.getType match {
    case _: ArrowType.Null => new PageValues.Nulls
    case _: ArrowType.Bool => new PageValues.Flat(1)
    case _: ArrowType.Utf8 => new BinaryValues(large = false, DictionaryMode.FewDistinct, ArrayEncodingStrategy.binaryCompression(path, metadata))
    case t @ (_: ArrowType.Binary | _: ArrowType.LargeUtf8 | _: ArrowType.LargeBinary) =>
      new BinaryValues(isLarge(t), DictionaryMode.Never, ArrayEncodingStrategy.binaryCompression(path, metadata))
    case l: ArrowType.FixedSizeList =>
      val item = a.getChildren.get(0)
      item.getType match {
        case _: ArrowType.Utf8 | _: ArrowType.Binary | _: ArrowType.LargeUtf8 | _: ArrowType.LargeBinary =>
          throw Errors.unsupported(s"writing fixed-size lists of ${item.getType} (field '$path') in file format 2.0", where)
        case _ => new PageValues.FixedSizeLists(l.getListSize, values(item, s"$path.item", Map.empty))
      }
    case t => bitWidth(t) match {
      case Some(bits) => new PageValues.Flat(bits)
      case None => throw Errors.unsupported(s"writing Arrow type $t (field '$path') in file format 2.0", where)
    }
  }

  // packed_struct.rs: LanceBuffer::zip_into_one packs whole bytes only.
  private def packedMember(a: Field, path: String): PackedMember = {
    def walk(x: Field, dims: Vector[Int]): PackedMember = x.getType match {
      case l: ArrowType.FixedSizeList => walk(x.getChildren.get(0), dims :+ l.getListSize)
      case t => bitWidth(t).filter(_ % 8 == 0) match {
        case Some(bits) => new PackedMember(a.getName, bits, dims)
        case None => throw Errors.unsupported(s"packing member '${a.getName}' of type ${a.getType} into the struct field '$path'", where)
      }
    }
    walk(a, Vector.empty)
  }

  /** Bits per value of the fixed-width types stored as `flat` (DataType::byte_width * 8). */
  private def bitWidth(t: ArrowType): Option[Int] = FixedWidths.bytes(t).map(_ * 8)

  private val root: ColumnNode = build(top, arrow, top.name)

  val numColumns: Int = root.numColumns

  override def check(vector: ValueVector, from: Int, count: Int): Unit = root.check(vector, from, count)

  // Rust's 2.0 encoders take a batch whole: a page holds the batches buffered up to the one that
  // passed the budget (so a column may hold its budget plus one batch), which is what makes our
  // pages pylance's page for page.
  def append(vector: ValueVector, from: Int, count: Int, out: EncodedPage => Unit): Unit = {
    root.append(vector, from, count)
    root.ready().foreach(out)
  }

  def finish(out: EncodedPage => Unit): Unit = root.finish().foreach(out)

  // Every 2.0 column says `values{}`, but a blob column, which says `blob{inner: values{}}`.
  def columnEncodings: IndexedSeq[EncodingAny] = (firstColumn until firstColumn + numColumns).map { c =>
    if (blobColumns(c)) ArrayEncodingCodec.blobColumnAny else ArrayEncodingCodec.valuesColumnEncoding
  }
}
