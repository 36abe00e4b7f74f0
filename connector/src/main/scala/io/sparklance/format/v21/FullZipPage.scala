package io.sparklance.format.v21

import io.sparklance.format.encoding._
import io.sparklance.format.encoding.{CompressiveEncoding => CE}
import io.sparklance.format.layout.PageLayout
import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Full zip page layout") and
// rust/lance-encoding/src/encodings/logical/primitive/fullzip.rs.
//
// Buffer 0 zips, for every item, a control word `(rep << bits_def) | def` (0, 1, 2 or 4
// bytes, little-endian, by bits_rep + bits_def) with the item's value when it is visible:
// fixed width `bits_per_value / 8` bytes, or for variable width (when also valid) a
// `bits_per_offset`-bit length and that many bytes. Buffer 1, when present, is the
// repetition index (row start offsets), which a front-to-back scan does not need.

object FullZipPage {

  /** Bytes of the control word of an item whose levels take `bits` bits. */
  private[v21] def controlBytes(bits: Int): Int = bits match { case 0 => 0; case t if t <= 8 => 1; case t if t <= 16 => 2; case _ => 4 }

  def decode(buffers: IndexedSeq[Bytes], numRows: Long, layout: PageLayout.FullZip, where: String): PageUnits = {
    if (buffers.isEmpty) throw Errors.corrupt(where, "a full-zip page has no buffers")
    val buf = buffers(0)
    if (layout.numItems > Int.MaxValue) throw Errors.corrupt(where, s"a full-zip page declares ${layout.numItems} items")
    val n = layout.numItems.toInt
    val bitsRep = layout.bitsRep
    val bitsDef = layout.bitsDef
    if (bitsRep < 0 || bitsDef < 0 || bitsRep + bitsDef > 32) throw Errors.corrupt(where, s"control word of $bitsRep + $bitsDef bits")
    val ctlBytes = controlBytes(bitsRep + bitsDef)
    // Every item takes at least one byte (a control word, a value or a length), which bounds
    // the declared count before arrays are allocated from it.
    if (n > buf.length) throw Errors.corrupt(where, s"a full-zip page declares $n items in ${buf.length} bytes")
    val maxVisible = layout.layers.takeWhile(!_.isList).map(_.defLevels).sum
    val reps = if (bitsRep > 0) new Array[Short](n) else null
    val defs = if (bitsDef > 0) new Array[Short](n) else null
    val defMask = (1L << bitsDef) - 1
    // Value slices (offset, length) in `buf`, one per visible item; -1 offset for a null slot.
    val starts = new Array[Long](n)
    val lengths = new Array[Long](n)
    var visible = 0
    var o = 0L
    val fixedBytes = layout.bitsPerValue.map { b =>
      if (b <= 0 || b % 8 != 0) throw Errors.unsupportedEncoding(where, "?", s"full-zip values of $b bits")
      b / 8
    }
    val lengthBytes = layout.bitsPerOffset.map {
      case 32 => 4
      case 64 => 8
      case b => throw Errors.corrupt(where, s"full-zip lengths of $b bits")
    }
    if (fixedBytes.isEmpty && lengthBytes.isEmpty) throw Errors.corrupt(where, "a full-zip page has neither bits_per_value nor bits_per_offset")
    var i = 0
    while (i < n) {
      val ctl: Long = ctlBytes match {
        case 0 => 0L
        case 1 => buf.u8(o).toLong
        case 2 => buf.u16(o).toLong
        case 4 => buf.u32(o)
      }
      o += ctlBytes
      val d = (ctl & defMask).toInt
      if (reps != null) reps(i) = (ctl >>> bitsDef).toShort
      if (defs != null) defs(i) = d.toShort
      if (d <= maxVisible) {
        fixedBytes match {
          case Some(w) =>
            buf.check(o, w, s"$where, item $i")
            starts(visible) = o; lengths(visible) = w; o += w
          case None =>
            if (d == 0) {
              val len = if (lengthBytes.get == 4) buf.u32(o) else buf.u64AsSize(o, s"$where, length of item $i")
              o += lengthBytes.get
              buf.check(o, len, s"$where, item $i")
              starts(visible) = o; lengths(visible) = len; o += len
            } else { starts(visible) = -1; lengths(visible) = 0 }
        }
        visible += 1
      }
      i += 1
    }
    if (o != buf.length) throw Errors.corrupt(buf.path, buf.fileOffset + o, s"${buf.length - o} bytes follow the last item of a full-zip page ($where)")
    if (visible != layout.numVisibleItems)
      throw Errors.corrupt(where, s"found $visible visible items but the page declares ${layout.numVisibleItems}")
    // Without control words every item is a visible value, so fixed-width values lie back to back.
    val values = perValue(layout.valueCompression, buf, starts, lengths, visible, fixedBytes, ctlBytes == 0, where)
    PageDecoders.single(new LeafData(layout.layers, n, reps, defs, values))
  }

  /**
   * Variable-width values at `buf(starts(i), +lengths(i))`, each compressed on its own by `enc`
   * and decoded into one growing array. A start of -1 is a null slot: an empty value.
   */
  private def variableValues(enc: CE, buf: Bytes, starts: Array[Long], lengths: Array[Long], n: Int, where: String): VariableData = {
    var total = 0L
    var longest = 0L
    var i = 0
    while (i < n) { total += lengths(i); longest = math.max(longest, lengths(i)); i += 1 }
    enc match {
      case CE.Variable(_, None) =>
        val out = new VariableDataBuilder(n, total, where)
        i = 0
        while (i < n) { if (starts(i) < 0) out.appendEmpty() else out.append(buf, starts(i), lengths(i).toInt); i += 1 }
        out.result()
      case CE.Fsst(table, CE.Variable(_, None)) =>
        val t = Fsst.parseSymbolTable(table, where)
        // FSST text typically grows 3-4x back; each value reserves room for 8x of its codes.
        val out = new VariableDataBuilder(n, 4 * total + Fsst.MaxSymbolLength * longest + 16, where)
        var scratch = new Array[Byte](256)
        i = 0
        while (i < n) {
          if (starts(i) < 0) out.appendEmpty()
          else {
            val len = lengths(i).toInt
            if (scratch.length < len) scratch = new Array[Byte](math.max(len, 2 * scratch.length))
            buf.copyTo(starts(i), scratch, 0, len)
            Fsst.decodeValue(t, scratch, 0, len, out, i)
          }
          i += 1
        }
        out.result()
      case CE.General(c, CE.Variable(_, None)) =>
        val out = new VariableDataBuilder(n, total, where)
        i = 0
        while (i < n) {
          if (starts(i) < 0) out.appendEmpty()
          else {
            val v = GeneralCompression.decompress(c.scheme, buf.slice(starts(i), lengths(i), s"$where, item $i"), ValueDecoders.MaxBufferBytes)
            out.append(v, 0, v.length)
          }
          i += 1
        }
        out.result()
      case other => throw Errors.unsupportedEncoding(where, "?", s"full-zip value encoding ${other.describe}")
    }
  }

  /**
   * The `n` values of `w` bytes at `buf(starts(i))`, one after the other, as `bits`-bit
   * values: used where they were read when `contiguous`, else gathered.
   */
  private def gatherFixed(bits: Int, buf: Bytes, starts: Array[Long], w: Int, n: Int, contiguous: Boolean, where: String): FixedWidthValues =
    if (contiguous) {
      val (array, at) = buf.arrayView(0, Math.multiplyExact(n, w), s"$where, values")
      new FixedWidthValues(bits, array, Math.multiplyExact(n, w * 8 / bits), at)
    } else {
      val data = new Array[Byte](Math.multiplyExact(n, w))
      var i = 0
      while (i < n) { buf.copyTo(starts(i), data, i * w, w); i += 1 }
      new FixedWidthValues(bits, data, Math.multiplyExact(n, w * 8 / bits))
    }

  private def perValue(enc: CE, buf: Bytes, starts: Array[Long], lengths: Array[Long], n: Int,
                       valueBytes: Option[Long], contiguous: Boolean, where: String): DecodedValues =
    (enc, valueBytes) match {
      case (CE.Flat(bits, None), Some(w)) if bits == w * 8 =>
        gatherFixed(bits, buf, starts, w.toInt, n, contiguous, where)
      case (CE.Variable(_, None) | CE.Fsst(_, CE.Variable(_, None)) | CE.General(_, CE.Variable(_, None)), None) =>
        variableValues(enc, buf, starts, lengths, n, where)
      case (CE.FixedSizeList(dim, hasValidity, CE.Flat(bits, None)), Some(w)) if bits % 8 == 0 =>
        // Per value: ceil(dim / 8) bytes of item validity (if any), then dim flat items.
        val d = ValueDecoders.fslDimension(dim, where)
        val vBytes = if (hasValidity) (d + 7) / 8 else 0
        val itemBytes = bits / 8
        if (w != vBytes + d.toLong * itemBytes) throw Errors.corrupt(where, s"full-zip values of $w bytes do not hold $d items of $bits bits")
        val items = Math.multiplyExact(n, d)
        if (!hasValidity) new FixedSizeListValues(d, null, gatherFixed(bits, buf, starts, w.toInt, n, contiguous, where), n)
        else {
          val data = new Array[Byte](Math.multiplyExact(items, itemBytes))
          val validity = new Array[Byte]((items + 7) / 8)
          val one = new Array[Byte](vBytes)
          var i = 0
          while (i < n) {
            buf.copyTo(starts(i), one, 0, vBytes)
            BitCopy.copyBits(one, 0, validity, i * d, d)
            buf.copyTo(starts(i) + vBytes, data, i * d * itemBytes, d * itemBytes)
            i += 1
          }
          new FixedSizeListValues(d, validity, new FixedWidthValues(bits, data, items), n)
        }
      case (CE.VariablePackedStruct(fields), None) =>
        // Each row concatenates its children: fixed ones by width, variable ones behind a
        // 32/64-bit length; each child value is then decompressed on its own.
        val childStarts = fields.map(_ => new Array[Long](n))
        val childLengths = fields.map(_ => new Array[Long](n))
        var i = 0
        while (i < n) {
          var o = starts(i)
          val end = if (starts(i) < 0) o else starts(i) + lengths(i)
          fields.indices.foreach { k =>
            if (starts(i) < 0) childStarts(k)(i) = -1
            else {
              val f = fields(k)
              val len: Long = (f.bitsPerValue, f.bitsPerLength) match {
                case (Some(b), _) if b % 8 == 0 => b / 8
                case (_, Some(32)) => val l = buf.u32(o); o += 4; l
                case (_, Some(64)) => val l = buf.u64AsSize(o, s"$where, packed child length"); o += 8; l
                case _ => throw Errors.corrupt(where, s"packed struct child $k has neither a byte width nor a 32/64-bit length")
              }
              if (len > end - o) throw Errors.corrupt(buf.path, buf.fileOffset + o, s"packed struct child $k of $len bytes overruns its row ($where)")
              childStarts(k)(i) = o
              childLengths(k)(i) = len
              o += len
            }
          }
          if (o != end) throw Errors.corrupt(buf.path, buf.fileOffset + o, s"${end - o} bytes left over in a packed struct row ($where)")
          i += 1
        }
        new StructValues(fields.indices.map(k => packedChild(fields(k), buf, childStarts(k), childLengths(k), n, where)), n)
      case (other, _) => throw Errors.unsupportedEncoding(where, "?", s"full-zip value encoding ${other.describe}")
    }

  /** One child of a variable packed struct, from where its value sits in each row. */
  private def packedChild(f: CE.PackedField, buf: Bytes, starts: Array[Long], lengths: Array[Long], n: Int, where: String): DecodedValues =
    (f.value, f.bitsPerValue) match {
      case (CE.Flat(bits, None), Some(b)) if bits == b =>
        // A null row has no bytes: its slot stays zero.
        val w = (b / 8).toInt
        val out = new Array[Byte](Math.multiplyExact(n, w))
        var i = 0
        while (i < n) { if (starts(i) >= 0 && lengths(i) == w) buf.copyTo(starts(i), out, i * w, w); i += 1 }
        new FixedWidthValues(bits, out, n)
      case (enc @ (CE.Variable(_, None) | CE.Fsst(_, CE.Variable(_, None)) | CE.General(_, CE.Variable(_, None))), None) =>
        variableValues(enc, buf, starts, lengths, n, where)
      case (other, _) => throw Errors.unsupportedEncoding(where, "?", s"packed struct child encoding ${other.describe}")
    }
}
