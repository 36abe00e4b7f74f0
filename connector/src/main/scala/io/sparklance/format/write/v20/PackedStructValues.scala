package io.sparklance.format.write.v20

import org.apache.arrow.memory.ArrowBuf
import org.apache.arrow.vector.{BaseFixedWidthVector, ValueVector}
import org.apache.arrow.vector.complex.{FixedSizeListVector, StructVector}

import io.sparklance.format.v20.{ArrayEncoding => AE, BufferKind, BufferRef}
import io.sparklance.format.write.ByteArrayBuilder
import io.sparklance.util.Errors

// Spec: rust/lance-encoding/src/previous/encodings/physical/packed_struct.rs (PackedStructEncoder)
// and buffer.rs (LanceBuffer::zip_into_one), chosen by previous/encoder.rs for a struct with
// the `lance-encoding:packed` hint.

/**
 * A struct asked to be packed (`lance-encoding:packed`): `packed_struct{inner, buffer}`, one
 * buffer of rows, each row its members' values back to back (packed_struct.rs). Members are
 * whole-byte fixed-width values or fixed-size lists of them, each described as
 * `nullable{no_nulls{...}}` naming buffer 0 (Rust encodes each member on its own). Neither the
 * struct nor its members can be null: Rust refuses null members, and drops struct validity.
 */
private[v20] final class PackedStructValues(path: String, members: IndexedSeq[PackedMember]) extends PageValues {
  private val rows = new ByteArrayBuilder()
  private val rowBytes = members.map(_.bytesPerRow).sum
  private var n = 0L

  def count: Long = n
  def arrowBytes(v: ValueVector, from: Int, len: Int): Long = len.toLong * rowBytes

  override def check(v: ValueVector, from: Int, len: Int): Unit = {
    val s = v.asInstanceOf[StructVector]
    def refuse(what: String, at: Int) = throw Errors.notInFileVersion(s"$what in the packed struct field '$path' (at position $at of the batch)",
      "2.0", "the file writer", "remove the lance-encoding:packed hint, or fill the nulls")
    PackedMember.firstNull(s, from, len).foreach(refuse("a null struct", _))
    members.zipWithIndex.foreach { case (m, i) => m.firstNull(s.getChildByOrdinal(i), from, len).foreach(refuse(s"a null in member '${m.name}'", _)) }
  }

  def append(v: ValueVector, from: Int, len: Int): Unit = {
    val s = v.asInstanceOf[StructVector]
    val out = rows.reserve(len.toLong * rowBytes)
    var at = rows.length
    val sources = members.indices.map(i => members(i).leafBuffer(s.getChildByOrdinal(i)))
    var r = 0
    while (r < len) {
      var i = 0
      while (i < members.length) {
        val w = members(i).bytesPerRow
        sources(i).getBytes((from + r).toLong * w, out, at, w)
        at += w
        i += 1
      }
      r += 1
    }
    rows.advance(len * rowBytes)
    n += len
  }

  def encode(out: PageBuffers): AE = AE.PackedStruct(members.map(_.encoding), out.add(rows.toArray))

  def reset(): Unit = { rows.clear(); n = 0 }
}

/**
 * One member of a packed struct: `bitsPerItem`-bit values, `itemsPerRow` of them per row
 * (`dimensions` are the sizes of the fixed-size lists around them, outermost first).
 */
private[v20] final class PackedMember(val name: String, bitsPerItem: Int, dimensions: Seq[Int]) {
  private val itemsPerRow = dimensions.product
  val bytesPerRow: Int = itemsPerRow * (bitsPerItem / 8)

  val encoding: AE = dimensions.foldRight[AE](AE.NoNulls(AE.Flat(bitsPerItem, BufferRef(0, BufferKind.Page), None))) {
    (dim, items) => AE.NoNulls(AE.FixedSizeList(dim, hasValidity = false, items))
  }

  /** The fixed-width vector holding the member's items. */
  private def leaf(v: ValueVector): ValueVector = dimensions.foldLeft(v)((x, _) => x.asInstanceOf[FixedSizeListVector].getDataVector)

  def leafBuffer(v: ValueVector): ArrowBuf = leaf(v).asInstanceOf[BaseFixedWidthVector].getDataBuffer

  /** The first row of `[from, from + len)` where the member or one of its items is null. */
  def firstNull(v: ValueVector, from: Int, len: Int): Option[Int] = {
    var x = v
    var per = 1
    var found = PackedMember.firstNull(x, from, len)
    dimensions.foreach { d =>
      x = x.asInstanceOf[FixedSizeListVector].getDataVector
      per *= d
      if (found.isEmpty) found = PackedMember.firstNull(x, from * per, len * per).map(_ / per)
    }
    found
  }
}

private[v20] object PackedMember {
  /** The first position of `[from, from + len)` where `v` is null. */
  def firstNull(v: ValueVector, from: Int, len: Int): Option[Int] =
    if (v.getNullCount == 0) None else (from until from + len).find(v.isNull)
}
