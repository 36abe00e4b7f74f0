package io.sparklance.format.v21

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.{DecodedValues, FixedWidthValues, StructValues}
import io.sparklance.format.layout.PageLayout
import io.sparklance.util.Errors

// Spec: lance-format/lance protos/encodings_v2_1.proto `BlobLayout` and
// rust/lance-encoding/src/encodings/logical/blob.rs (file format 2.1). A blob page stores
// one (position, size) descriptor per item, as an all-valid packed struct in its inner
// layout; the bytes live elsewhere in the file. Rep/def levels are smuggled into the
// descriptors: size 0 with a non-zero position is an item that is null (or an empty or
// null list) with position = def << 16 | rep; size 0 at position 0 is an empty value.

final class BlobPage(inner: PageUnits, layout: PageLayout.Blob, where: String) extends PageUnits {
  private val hasLevels = layout.layers.exists(_ != io.sparklance.format.layout.RepDefLayer.AllValidItem)
  private val hasReps = layout.layers.exists(_.isList)

  override def next(): Option[LeafData] = inner.next().map { u =>
    val desc = u.values match {
      case s: StructValues if s.children.length == 2 => s
      case _ => throw Errors.corrupt(where, "blob descriptors are not (position, size) pairs")
    }
    val (positions, sizes) = (desc.children(0), desc.children(1)) match {
      case (p: FixedWidthValues, s: FixedWidthValues) if p.bitsPerValue == 64 && s.bitsPerValue == 64 =>
        (longs(p), longs(s))
      case _ => throw Errors.corrupt(where, "blob descriptors are not 64-bit")
    }
    val n = u.numItems
    if (!hasLevels) new LeafData(layout.layers, n, null, null, desc)
    else {
      val defs = new Array[Short](n)
      val reps = if (hasReps) new Array[Short](n) else null
      val maxVisible = layout.layers.takeWhile(!_.isList).map(_.defLevels).sum
      val visible = Array.newBuilder[Int]
      var i = 0
      while (i < n) {
        val pos = positions.get(i)
        if (sizes.get(i) == 0 && pos != 0) {
          defs(i) = ((pos >>> 16) & 0xffff).toShort
          if (reps != null) reps(i) = (pos & 0xffff).toShort
        } else if (reps != null) reps(i) = layout.layers.count(_.isList).toShort
        if (defs(i) <= maxVisible) visible += i
        i += 1
      }
      // Invisible items (null or empty lists) carry no value slot.
      val keep = visible.result()
      val values =
        if (keep.length == n) desc
        else new StructValues(desc.children.map(c => gather(c.asInstanceOf[FixedWidthValues], keep)), keep.length)
      new LeafData(layout.layers, n, reps, defs, values)
    }
  }

  private def longs(v: FixedWidthValues): java.nio.LongBuffer =
    ByteBuffer.wrap(v.data, v.offset, 8 * v.count).slice().order(ByteOrder.LITTLE_ENDIAN).asLongBuffer()

  private def gather(v: FixedWidthValues, keep: Array[Int]): DecodedValues = {
    val out = new Array[Byte](keep.length * 8)
    keep.indices.foreach(j => System.arraycopy(v.data, v.offset + keep(j) * 8, out, j * 8, 8))
    new FixedWidthValues(64, out, keep.length)
  }
}
