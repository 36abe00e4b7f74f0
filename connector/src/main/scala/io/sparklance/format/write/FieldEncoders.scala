package io.sparklance.format.write

import org.apache.arrow.vector.types.pojo.Field

import io.sparklance.format.{FileVersion, LanceField, LanceSchema}
import io.sparklance.format.encoding.CompressionStrategy
import io.sparklance.format.write.v20.V20FieldEncoder
import io.sparklance.format.write.v21.StructuralFieldEncoder
import io.sparklance.util.Errors

// Which encoder a field gets, by file version (rust/lance-encoding/src/encoder.rs
// default_encoding_strategy), and which field each column of a file holds.

private[write] object FieldEncoders {

  def create(f: LanceField, a: Field, firstColumn: Int, options: FileWriterOptions, outOfLine: OutOfLine): FieldEncoder = options.version match {
    case FileVersion.V2_0 => new V20FieldEncoder(f, a, firstColumn, options, outOfLine)
    case FileVersion.V2_1 | FileVersion.V2_2 => new StructuralFieldEncoder(f, a, firstColumn, options, strategy(options.version), outOfLine)
    case other => throw Errors.unsupported(s"writing file format $other", "the file writer")
  }

  private def strategy(v: FileVersion) = new CompressionStrategy(v)

  /** The field id each column holds, in column order: 2.0 every field pre-order (but packed struct members), 2.1+ only leaves (a vector is one leaf). */
  def columnFieldIds(schema: LanceSchema, version: FileVersion): IndexedSeq[Int] = {
    def leaves(f: LanceField): Iterator[Int] =
      if (f.children.isEmpty || !f.columnsOwnedByLeaves) Iterator.single(f.id) else f.children.iterator.flatMap(leaves)
    version match {
      case FileVersion.V2_0 =>
        // A packed struct is one column; its members have none.
        def withColumns(f: LanceField): Iterator[Int] =
          Iterator.single(f.id) ++ (if (f.columnsOwnedByLeaves) f.children.iterator.flatMap(withColumns) else Iterator.empty)
        schema.fields.iterator.flatMap(withColumns).toIndexedSeq
      case _ => schema.fields.iterator.flatMap(leaves).toIndexedSeq
    }
  }
}
