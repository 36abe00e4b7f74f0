package io.sparklance.format.v21

import io.sparklance.format.encoding.{DecodedValues, FixedWidthValues, NullValues, VariableData}
import io.sparklance.format.layout.PageLayout
import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance protos/encodings_v2_1.proto `ConstantLayout` (2.2; number 2 was
// the all-null layout in 2.1, with the same bytes). Every visible item holds the same
// value: `inline_value` (little-endian bytes of a fixed-width value), or, without it and
// with a value buffer first, a one-value Arrow array serialized as
//   u32 buffer count, u32 length per buffer, then the buffers
// (for strings: the offsets [0, len] and the bytes). Neither means all null. Rep/def
// level buffers, when present, come last (rep, then def), as plain u16 levels unless a
// compression is given.

object ConstantPage {

  def decode(buffers: IndexedSeq[Bytes], numRows: Long, layout: PageLayout.Constant, where: String): PageUnits = {
    if (numRows > Int.MaxValue) throw Errors.corrupt(where, s"a constant page of $numRows rows")
    val (scalar, levelBuffers): (Option[Either[Array[Byte], Array[Array[Byte]]]], IndexedSeq[Bytes]) =
      layout.inlineValue match {
        case Some(v) => (Some(Left(v)), buffers)
        case None if buffers.length == 1 || buffers.length == 3 => (Some(Right(arrowBuffers(buffers(0), where))), buffers.tail)
        case None => (None, buffers)
      }
    val (reps, defs0) = levelBuffers.length match {
      case 0 => (null, null)
      case 2 =>
        def lv(b: Bytes, enc: Option[io.sparklance.format.encoding.CompressiveEncoding], count: Long, what: String): Array[Short] =
          if (b.length == 0) null
          else enc match {
            case Some(e) =>
              if (count < 0 || count > Int.MaxValue) throw Errors.corrupt(where, s"$count $what levels")
              ValueDecoders.levels(e, b, count.toInt, s"$where, $what levels")
            case None =>
              if (b.length % 2 != 0) throw Errors.corrupt(b.path, b.fileOffset, s"$what levels of ${b.length} bytes ($where)")
              val out = new Array[Short](b.length / 2)
              b.byteBuffer.asShortBuffer().get(out); out
          }
        (lv(levelBuffers(0), layout.repCompression, layout.numRepValues, "repetition"),
          lv(levelBuffers(1), layout.defCompression, layout.numDefValues, "definition"))
      case k => throw Errors.corrupt(where, s"a constant page has $k level buffers; expected 0 or 2")
    }
    val numItems =
      if (reps != null) reps.length else if (defs0 != null) defs0.length else numRows.toInt
    // An all-null page without levels: every item is null at the innermost layer (level 1).
    val defs =
      if (scalar.isEmpty && defs0 == null && reps == null) {
        if (!layout.layers.headOption.contains(io.sparklance.format.layout.RepDefLayer.NullableItem))
          throw Errors.corrupt(where, s"an all-null page whose innermost layer is ${layout.layers.headOption.getOrElse("missing")}")
        Array.fill[Short](numItems)(1)
      } else defs0
    if (reps != null && defs0 != null && reps.length != defs0.length)
      throw Errors.corrupt(where, s"${reps.length} repetition levels but ${defs.length} definition levels")
    val maxVisible = layout.layers.takeWhile(!_.isList).map(_.defLevels).sum
    val visible = if (defs == null) numItems else defs.count(_ <= maxVisible)
    val values: DecodedValues = scalar match {
      case None => new NullValues(visible)
      case Some(Left(v)) => repeatFixed(v, visible, where)
      case Some(Right(parts)) if parts.length == 1 => repeatFixed(parts(0), visible, where)
      case Some(Right(parts)) if parts.length == 2 =>
        // Offsets of one value (two entries of 4 or 8 bytes) and its bytes.
        val value = parts(1)
        val offsets = new Array[Int](visible + 1)
        var i = 0
        while (i < visible) { offsets(i + 1) = Math.addExact(offsets(i), value.length); i += 1 }
        val data = new Array[Byte](Math.multiplyExact(value.length, visible))
        i = 0
        while (i < visible) { System.arraycopy(value, 0, data, i * value.length, value.length); i += 1 }
        new VariableData(offsets, data)
      case Some(Right(parts)) => throw Errors.unsupportedEncoding(where, "?", s"a constant of ${parts.length} Arrow buffers")
    }
    PageDecoders.single(new LeafData(layout.layers, numItems, reps, defs, values))
  }

  private def repeatFixed(v: Array[Byte], n: Int, where: String): FixedWidthValues = {
    if (v.isEmpty) throw Errors.corrupt(where, "a constant value of 0 bytes")
    val out = new Array[Byte](Math.multiplyExact(v.length, n))
    var i = 0
    while (i < n) { System.arraycopy(v, 0, out, i * v.length, v.length); i += 1 }
    new FixedWidthValues(v.length * 8, out, n)
  }

  /** Parses `u32 count, u32 length × count, bytes…` into the buffers of a one-value array. */
  private def arrowBuffers(b: Bytes, where: String): Array[Array[Byte]] = {
    val count = b.u32(0)
    if (count < 1 || count > 4) throw Errors.corrupt(b.path, b.fileOffset, s"a constant value with $count buffers ($where)")
    var o = 4L + 4 * count
    val parts = Array.tabulate(count.toInt) { i =>
      val len = b.u32(4 + 4L * i)
      val s = b.slice(o, len, s"$where, constant value buffer $i")
      o += len
      s.toArray
    }
    if (o != b.length) throw Errors.corrupt(b.path, b.fileOffset + o, s"${b.length - o} bytes follow the constant value ($where)")
    parts
  }
}
