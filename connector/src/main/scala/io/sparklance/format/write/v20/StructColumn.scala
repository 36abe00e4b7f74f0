package io.sparklance.format.write.v20

import org.apache.arrow.vector.ValueVector
import org.apache.arrow.vector.complex.StructVector

import io.sparklance.format.proto.ArrayEncodingCodec
import io.sparklance.format.v20.{ArrayEncoding => AE}
import io.sparklance.format.write.EncodedPage
import io.sparklance.util.Errors

// Spec: rust/lance-encoding/src/encodings/logical/struct.rs (StructFieldEncoder, used by the 2.0
// strategy) and lance-format-facts §13.2. A struct has a header column of its own, before its
// children's columns; at the end of the file it gets one page, `struct{}` with no buffers,
// covering every row (an empty page in an empty file). The header stores no validity, so a
// struct that is null somewhere cannot be written in 2.0 (pylance 14 refuses it too: "Lance
// file version 2.0 does not encode struct validity").

private[v20] final class StructColumn(column: Int, path: String, children: IndexedSeq[ColumnNode]) extends ColumnNode {
  private var rows = 0L

  def numColumns: Int = 1 + children.map(_.numColumns).sum

  def check(v: ValueVector, from: Int, count: Int): Unit = {
    val s = v.asInstanceOf[StructVector]
    if (s.getNullCount > 0) {
      var i = from
      while (i < from + count) {
        if (s.isNull(i))
          throw Errors.notInFileVersion(s"the null struct of field '$path' at position $i of the batch (2.0 has no struct validity)", "2.0",
            "the file writer", "write file format 2.1 or 2.2, or replace the null structs by structs of null members")
        i += 1
      }
    }
    children.zipWithIndex.foreach { case (c, i) => c.check(s.getChildByOrdinal(i), from, count) }
  }

  def append(v: ValueVector, from: Int, count: Int): Unit = {
    val s = v.asInstanceOf[StructVector]
    rows += count
    children.zipWithIndex.foreach { case (c, i) => c.append(s.getChildByOrdinal(i), from, count) }
  }

  def ready(): Seq[EncodedPage] = children.flatMap(_.ready())
  def flush(): Seq[EncodedPage] = children.flatMap(_.flush())

  def finish(): Seq[EncodedPage] =
    children.flatMap(_.finish()) :+ EncodedPage(column, IndexedSeq.empty, rows, 0L, ArrayEncodingCodec.toAny(AE.SimpleStruct))
}
