package io.sparklance.format.write.v21

import scala.jdk.CollectionConverters._

import org.apache.arrow.vector.ValueVector
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}

import io.sparklance.format.{EncodingAny, FileVersion, LanceField}
import io.sparklance.format.encoding.CompressionStrategy
import io.sparklance.format.proto.ArrayEncodingCodec
import io.sparklance.format.write.{EncodedPage, FieldEncoder, FileWriterOptions, OutOfLine}
import io.sparklance.util.Errors

// Spec: rust/lance-encoding/src/encoder.rs (StructuralEncodingStrategy) and lance-format-facts
// §13.2: in 2.1+ only leaves have columns, numbered depth first; structs and lists are levels in
// their leaves' pages. A fixed-size list of fixed-width items is one leaf (a vector).

private[write] final class StructuralFieldEncoder(
    top: LanceField,
    arrow: Field,
    firstColumn: Int,
    options: FileWriterOptions,
    compression: CompressionStrategy,
    outOfLine: OutOfLine) extends FieldEncoder {

  /** The leaves, depth first, each with its path of nodes and the Arrow leaf type. */
  val leaves: IndexedSeq[LeafColumnEncoder] = {
    val out = IndexedSeq.newBuilder[LeafColumnEncoder]
    var column = firstColumn
    def walk(f: LanceField, a: Field, nodes: Vector[PathNode]): Unit = a.getType match {
      // blob.rs BlobStructuralEncoder: a binary field marked lance-encoding:blob, bytes out of line.
      case _ if f.blobVersion.isDefined =>
        if (nodes.nonEmpty)
          throw Errors.unsupported(s"writing the blob field '${f.name}' inside a struct or list; blob fields must be top level", "the file writer")
        // pylance refuses it too (blob.rs: "Expected LargeBinary array").
        if (f.logicalType != "large_binary")
          throw Errors.unsupported(s"writing the blob field '${f.name}' of type ${f.logicalType}; blob fields must be large_binary", "the file writer")
        out += new LeafColumnEncoder(f, new LevelScheme(nodes), new LeafValues.BlobDescriptors(outOfLine), 64, column,
          options.version, options.pageBytes, compression)
        column += 1
      case _: ArrowType.Struct if !f.columnsOwnedByLeaves =>
        out += new LeafColumnEncoder(f, new LevelScheme(nodes), LeafValues.packedStruct(a, f.name, options.version >= FileVersion.V2_2), 32, column,
          options.version, options.pageBytes, compression)
        column += 1
      case _: ArrowType.Struct =>
        if (f.children.isEmpty) throw Errors.unsupported(s"writing the empty struct field '${f.name}'", "the file writer")
        a.getChildren.asScala.zip(f.children).zipWithIndex.foreach { case ((ca, cf), i) => walk(cf, ca, nodes :+ PathNode.Struct(i)) }
      case _: ArrowType.Map if options.version < FileVersion.V2_2 =>
        throw Errors.unsupported(s"writing the map field '${f.name}' in file format ${options.version}; maps need file format 2.2", "the file writer")
      case _: ArrowType.List | _: ArrowType.LargeList | _: ArrowType.Map =>
        walk(f.children.head, a.getChildren.get(0), nodes :+ PathNode.List)
      case t =>
        val bitsPerOffset = t match {
          case _: ArrowType.LargeUtf8 | _: ArrowType.LargeBinary => 64
          case _ => 32
        }
        out += new LeafColumnEncoder(f, new LevelScheme(nodes), LeafValues.forType(a, f.name), bitsPerOffset, column,
          options.version, options.pageBytes, compression)
        column += 1
    }
    walk(top, arrow, Vector.empty)
    out.result()
  }

  def numColumns: Int = leaves.length

  // Rows go in slices sized so that a slice is at most half a page budget, learnt from the bytes
  // per row seen so far: a column never holds much more than its budget, however large a batch.
  private var sliceRows = 1024

  def append(vector: ValueVector, from: Int, count: Int, out: EncodedPage => Unit): Unit = {
    var at = from
    while (at < from + count) {
      val n = math.min(from + count - at, sliceRows)
      leaves.foreach(_.append(vector, at, n))
      val bytesPerRow = leaves.map(_.bytesPerRow).max
      sliceRows = math.max(1, math.min(1 << 16, (options.pageBytes / 2 / math.max(bytesPerRow, 1.0)).toInt))
      leaves.foreach(l => if (l.full) out(l.flush()))
      at += n
    }
  }

  def finish(out: EncodedPage => Unit): Unit = leaves.foreach(l => if (l.hasRows) out(l.flush()))

  // Every 2.1+ column says "values" at column level, as pylance writes (lance-format-facts §13.2).
  def columnEncodings: IndexedSeq[EncodingAny] = leaves.map(_ => ArrayEncodingCodec.valuesColumnEncoding)
}
