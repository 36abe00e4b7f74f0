// Spec: lance-format/lance rust/compression/bitpacking (vendored from spiraldb/fastlanes, "FastLanes"
// bit packing) and docs/src/format/file/encoding.md "Bitpacking".
//
// One block is exactly 1024 unsigned values of width T ∈ {8, 16, 32, 64}, packed to W bits each
// (0 ≤ W ≤ T) into 1024·W/T words of type T, i.e. always 128·W bytes whatever T is. The block is
// viewed as LANES = 1024/T independent bit streams ("lanes"). Row r of lane l holds the value at
// index FL_ORDER(r/8)·16 + (r%8)·128 + l, stored LSB-first at bit r·W of the lane's stream; word k
// of lane l is stored at word position LANES·k + l. Words are little-endian on disk.
//
// The transposition exists so that SIMD code can process all lanes of a row at once. We keep that
// shape: the outer loop walks rows, the inner loop walks lanes. For a fixed row every lane shares
// the same word index and shift, so the inner loop is branch-free, reads and writes contiguous
// slots, and is simple enough for HotSpot's C2 to unroll and vectorise.
//
// Unpacking reads the packed words and writes the values as little-endian bytes (the form of the
// file and of an Arrow buffer), so a decoder unpacks straight into its output array. In bytes a
// row of every word size is 128 bytes wide, so packed and output offsets advance in step. The
// lanes of a row are adjacent words, so one 64-bit load holds 64/T of them side by side in both
// the packed row and the output row: shifting the whole 64-bit word shifts every lane at once,
// and masks replicated per lane drop the bits that cross into a neighbouring lane. 8-, 16- and
// 32-bit words thus unpack 8, 4 and 2 values per operation.
package io.sparklance.format.encoding

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.util.{Bytes, Errors, LittleEndian => LE}

object FastLanesBitpacking {

  /** Values in one block; every FastLanes block has exactly this many, the last one zero-padded. */
  final val BlockValues = 1024

  // FastLanes' "unified transposed layout" row order: interleaving rows 0,4,2,6,1,5,3,7 makes a
  // 1024-bit register hold rows whose values can be unpacked into adjacent output positions.
  private val FlOrder = Array(0, 4, 2, 6, 1, 5, 3, 7)

  /** Start of row `row` in the unpacked block; add the lane to get the element index. */
  private def rowStarts(t: Int): Array[Int] =
    Array.tabulate(t)(row => FlOrder(row / 8) * 16 + (row % 8) * 128)

  private val RowStart8 = rowStarts(8)
  private val RowStart16 = rowStarts(16)
  private val RowStart32 = rowStarts(32)
  private val RowStart64 = rowStarts(64)

  // A value in every 8-, 16- or 32-bit lane of a 64-bit word: multiplying a lane's mask by these
  // replicates it across the word.
  private final val Lanes8 = 0x0101010101010101L
  private final val Lanes16 = 0x0001000100010001L
  private final val Lanes32 = 0x0000000100000001L

  /** Bytes of one block packed at `bitWidth` bits: 1024·W/8, independent of the word size. */
  def packedBytes(bitWidth: Int): Int = 128 * bitWidth

  /** Words of `wordBits` bits in one block packed at `bitWidth` bits. */
  def packedWords(wordBits: Int, bitWidth: Int): Int = BlockValues * bitWidth / wordBits

  private def checkWidth(t: Int, width: Int): Unit =
    require(width >= 0 && width <= t, s"bit width $width is outside 0..$t")

  // ---- 8-bit words -----------------------------------------------------------------------------

  /**
   * Unpacks one block: `packedBytes(width)` bytes at `packed(packedOff)` become 1024 bytes at
   * `out(outOff)`.
   */
  def unpack8(width: Int, packed: Array[Byte], packedOff: Int, out: Array[Byte], outOff: Int): Unit = {
    checkWidth(8, width)
    if (width == 0) { java.util.Arrays.fill(out, outOff, outOff + BlockValues, 0.toByte); return }
    val mask = Lanes8 * ((1L << width) - 1)
    var row = 0
    var bit = 0
    while (row < 8) {
      val shift = bit & 7
      val src = packedOff + (bit >>> 3) * 128
      val dst = outOff + RowStart8(row)
      var i = 0
      if (shift + width <= 8) {
        while (i < 128) { LE.putLong(out, dst + i, (LE.getLong(packed, src + i) >>> shift) & mask); i += 8 }
      } else {
        // The value continues in the next row's word: the low `back` bits of each lane come from
        // this word, the rest from the low `shift` bits of the next.
        val back = 8 - shift
        val keep = Lanes8 * ((1L << back) - 1)
        val low = Lanes8 * ((1L << shift) - 1)
        while (i < 128) {
          LE.putLong(out, dst + i, (((LE.getLong(packed, src + i) >>> shift) & keep) | ((LE.getLong(packed, src + 128 + i) & low) << back)) & mask)
          i += 8
        }
      }
      bit += width
      row += 1
    }
  }

  def pack8(width: Int, in: Array[Byte], inOff: Int, packed: Array[Byte], packedOff: Int): Unit = {
    checkWidth(8, width)
    if (width == 0) return
    val mask = (1 << width) - 1
    var row = 0
    var bit = 0
    while (row < 8) {
      val shift = bit & 7
      val dst = packedOff + (bit >>> 3) * 128
      val src = inOff + RowStart8(row)
      var lane = 0
      // A row that starts on a word boundary is the first writer of that word, so it overwrites
      // whatever the buffer held; later rows OR into it; a row that spills is the first writer of
      // the next word. Hence `packed` needs no clearing beforehand.
      if (shift == 0) {
        while (lane < 128) { packed(dst + lane) = (in(src + lane) & mask).toByte; lane += 1 }
      } else {
        while (lane < 128) {
          packed(dst + lane) = (packed(dst + lane) | ((in(src + lane) & mask) << shift)).toByte
          lane += 1
        }
      }
      if (shift + width > 8) {
        val back = 8 - shift
        lane = 0
        while (lane < 128) { packed(dst + 128 + lane) = ((in(src + lane) & mask) >>> back).toByte; lane += 1 }
      }
      bit += width
      row += 1
    }
  }

  // ---- 16-bit words ----------------------------------------------------------------------------

  /** Unpacks one block of little-endian 16-bit words into 1024 little-endian values (2048 bytes). */
  def unpack16(width: Int, packed: Array[Byte], packedOff: Int, out: Array[Byte], outOff: Int): Unit = {
    checkWidth(16, width)
    if (width == 0) { java.util.Arrays.fill(out, outOff, outOff + 2 * BlockValues, 0.toByte); return }
    val mask = Lanes16 * ((1L << width) - 1)
    var row = 0
    var bit = 0
    while (row < 16) {
      val shift = bit & 15
      val src = packedOff + (bit >>> 4) * 128
      val dst = outOff + RowStart16(row) * 2
      var i = 0
      if (shift + width <= 16) {
        while (i < 128) { LE.putLong(out, dst + i, (LE.getLong(packed, src + i) >>> shift) & mask); i += 8 }
      } else {
        // The value continues in the next row's word: the low `back` bits of each lane come from
        // this word, the rest from the low `shift` bits of the next.
        val back = 16 - shift
        val keep = Lanes16 * ((1L << back) - 1)
        val low = Lanes16 * ((1L << shift) - 1)
        while (i < 128) {
          LE.putLong(out, dst + i, (((LE.getLong(packed, src + i) >>> shift) & keep) | ((LE.getLong(packed, src + 128 + i) & low) << back)) & mask)
          i += 8
        }
      }
      bit += width
      row += 1
    }
  }

  def pack16(width: Int, in: Array[Short], inOff: Int, packed: Array[Short], packedOff: Int): Unit = {
    checkWidth(16, width)
    if (width == 0) return
    val mask = (1 << width) - 1
    var row = 0
    var bit = 0
    while (row < 16) {
      val shift = bit & 15
      val dst = packedOff + (bit >>> 4) * 64
      val src = inOff + RowStart16(row)
      var lane = 0
      if (shift == 0) {
        while (lane < 64) { packed(dst + lane) = (in(src + lane) & mask).toShort; lane += 1 }
      } else {
        while (lane < 64) {
          packed(dst + lane) = (packed(dst + lane) | ((in(src + lane) & mask) << shift)).toShort
          lane += 1
        }
      }
      if (shift + width > 16) {
        val back = 16 - shift
        lane = 0
        while (lane < 64) { packed(dst + 64 + lane) = ((in(src + lane) & mask) >>> back).toShort; lane += 1 }
      }
      bit += width
      row += 1
    }
  }

  // ---- 32-bit words ----------------------------------------------------------------------------

  /** Unpacks one block of little-endian 32-bit words into 1024 little-endian values (4096 bytes). */
  def unpack32(width: Int, packed: Array[Byte], packedOff: Int, out: Array[Byte], outOff: Int): Unit = {
    checkWidth(32, width)
    if (width == 0) { java.util.Arrays.fill(out, outOff, outOff + 4 * BlockValues, 0.toByte); return }
    val mask = Lanes32 * ((1L << width) - 1)
    var row = 0
    var bit = 0
    while (row < 32) {
      val shift = bit & 31
      val src = packedOff + (bit >>> 5) * 128
      val dst = outOff + RowStart32(row) * 4
      var i = 0
      if (shift + width <= 32) {
        while (i < 128) { LE.putLong(out, dst + i, (LE.getLong(packed, src + i) >>> shift) & mask); i += 8 }
      } else {
        // The value continues in the next row's word: the low `back` bits of each lane come from
        // this word, the rest from the low `shift` bits of the next.
        val back = 32 - shift
        val keep = Lanes32 * ((1L << back) - 1)
        val low = Lanes32 * ((1L << shift) - 1)
        while (i < 128) {
          LE.putLong(out, dst + i, (((LE.getLong(packed, src + i) >>> shift) & keep) | ((LE.getLong(packed, src + 128 + i) & low) << back)) & mask)
          i += 8
        }
      }
      bit += width
      row += 1
    }
  }

  def pack32(width: Int, in: Array[Int], inOff: Int, packed: Array[Int], packedOff: Int): Unit = {
    checkWidth(32, width)
    if (width == 0) return
    val mask = if (width == 32) -1 else (1 << width) - 1
    var row = 0
    var bit = 0
    while (row < 32) {
      val shift = bit & 31
      val dst = packedOff + (bit >>> 5) * 32
      val src = inOff + RowStart32(row)
      var lane = 0
      if (shift == 0) {
        while (lane < 32) { packed(dst + lane) = in(src + lane) & mask; lane += 1 }
      } else {
        while (lane < 32) { packed(dst + lane) |= (in(src + lane) & mask) << shift; lane += 1 }
      }
      if (shift + width > 32) {
        val back = 32 - shift
        lane = 0
        while (lane < 32) { packed(dst + 32 + lane) = (in(src + lane) & mask) >>> back; lane += 1 }
      }
      bit += width
      row += 1
    }
  }

  // ---- 64-bit words ----------------------------------------------------------------------------

  /** Unpacks one block of little-endian 64-bit words into 1024 little-endian values (8192 bytes). */
  def unpack64(width: Int, packed: Array[Byte], packedOff: Int, out: Array[Byte], outOff: Int): Unit = {
    checkWidth(64, width)
    if (width == 0) { java.util.Arrays.fill(out, outOff, outOff + 8 * BlockValues, 0.toByte); return }
    val mask = if (width == 64) -1L else (1L << width) - 1
    var row = 0
    var bit = 0
    while (row < 64) {
      val shift = bit & 63
      val src = packedOff + (bit >>> 6) * 128
      val dst = outOff + RowStart64(row) * 8
      var i = 0
      if (shift + width <= 64) {
        while (i < 128) { LE.putLong(out, dst + i, (LE.getLong(packed, src + i) >>> shift) & mask); i += 8 }
      } else {
        val back = 64 - shift
        while (i < 128) {
          LE.putLong(out, dst + i, ((LE.getLong(packed, src + i) >>> shift) | (LE.getLong(packed, src + 128 + i) << back)) & mask)
          i += 8
        }
      }
      bit += width
      row += 1
    }
  }

  def pack64(width: Int, in: Array[Long], inOff: Int, packed: Array[Long], packedOff: Int): Unit = {
    checkWidth(64, width)
    if (width == 0) return
    val mask = if (width == 64) -1L else (1L << width) - 1
    var row = 0
    var bit = 0
    while (row < 64) {
      val shift = bit & 63
      val dst = packedOff + (bit >>> 6) * 16
      val src = inOff + RowStart64(row)
      var lane = 0
      if (shift == 0) {
        while (lane < 16) { packed(dst + lane) = in(src + lane) & mask; lane += 1 }
      } else {
        while (lane < 16) { packed(dst + lane) |= (in(src + lane) & mask) << shift; lane += 1 }
      }
      if (shift + width > 64) {
        val back = 64 - shift
        lane = 0
        while (lane < 16) { packed(dst + 16 + lane) = (in(src + lane) & mask) >>> back; lane += 1 }
      }
      bit += width
      row += 1
    }
  }

  // ---- from and to file bytes ------------------------------------------------------------------

  /**
   * Unpacks the block of `packedBytes(width)` bytes at `src(off)` into 1024 little-endian `bits`-bit
   * values at `out(outOff)`; `width` comes from the file and is checked.
   */
  def unpack(bits: Int, src: Bytes, off: Long, width: Int, out: Array[Byte], outOff: Int): Unit = {
    val k = wordKind(bits)
    checkFileWidth(k, src, off, width)
    val packed = new Array[Byte](packedBytes(width))
    src.check(off, packed.length, s"FastLanes block packed at $width bits")
    src.copyTo(off, packed, 0, packed.length)
    k.unpack(width, packed, 0, out, outOff)
  }

  /** Rejects a block width read from a file that does not fit the word size. */
  private def checkFileWidth(k: WordKind, src: Bytes, off: Long, width: Long): Unit =
    if (width < 0 || width > k.bits)
      throw Errors.corrupt(src.path, src.fileOffset + math.max(off, 0L),
        s"FastLanes block bit width ${java.lang.Long.toUnsignedString(width)} is outside 0..${k.bits} for ${k.bits}-bit values")

  /** Packs one block to its `packedBytes(width)` little-endian bytes. */
  def pack8(width: Int, in: Array[Byte], inOff: Int): Array[Byte] = packTo(Words8, width, in, inOff)
  def pack16(width: Int, in: Array[Short], inOff: Int): Array[Byte] = packTo(Words16, width, in, inOff)
  def pack32(width: Int, in: Array[Int], inOff: Int): Array[Byte] = packTo(Words32, width, in, inOff)
  def pack64(width: Int, in: Array[Long], inOff: Int): Array[Byte] = packTo(Words64, width, in, inOff)

  private def packTo(k: WordKind, width: Int, in: AnyRef, inOff: Int): Array[Byte] = {
    val words = packedWords(k.bits, width)
    val packed = k.newArray(words)
    k.pack(width, in, inOff, packed, 0)
    val out = new Array[Byte](packedBytes(width))
    k.writeWords(packed, 0, words, ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN))
    out
  }

  // ---- word-size strategies --------------------------------------------------------------------

  /**
   * The operations the block loops in [[InlineBitpacking]] and [[OutOfLineBitpacking]] need, once
   * per word size, so those loops are written once. Arrays travel as AnyRef and are cast back here;
   * that costs one virtual call per block of 1024 values, never per value.
   */
  private[encoding] sealed abstract class WordKind(val bits: Int) {
    final def bytes: Int = bits / 8
    def newArray(n: Int): AnyRef
    /** Unpacks one block from little-endian packed words to little-endian values, both in bytes. */
    def unpack(width: Int, packed: Array[Byte], packedOff: Int, out: Array[Byte], outOff: Int): Unit
    def pack(width: Int, in: AnyRef, inOff: Int, packed: AnyRef, packedOff: Int): Unit

    /** Reads `count` little-endian words at `src(off)` into `dst(dstOff until dstOff + count)`, bounds-checked. */
    def readWords(src: Bytes, off: Long, dst: AnyRef, dstOff: Int, count: Int, what: => String): Unit

    /** Reads `count` little-endian words at `src(off)` into `dst(dstOff until dstOff + count)`, in bulk. */
    def loadWords(src: Array[Byte], off: Int, dst: AnyRef, dstOff: Int, count: Int): Unit

    /** Writes `count` words from `src(srcOff)` little-endian at `dst`'s position and advances it. */
    def writeWords(src: AnyRef, srcOff: Int, count: Int, dst: ByteBuffer): Unit

    /** Bitwise OR of `values(off until off + n)` as an unsigned 64-bit pattern (for bit widths). */
    def or(values: AnyRef, off: Int, n: Int): Long

    /** The unsigned header word at `src(off)`. */
    def readUnsigned(src: Bytes, off: Long): Long
    def putWord(dst: ByteBuffer, value: Long): Unit

    protected final def le(src: Array[Byte], off: Int, len: Int): ByteBuffer =
      ByteBuffer.wrap(src, off, len).slice().order(ByteOrder.LITTLE_ENDIAN)

    protected final def view(src: Bytes, off: Long, count: Int, what: => String): ByteBuffer = {
      src.check(off, count.toLong * bytes, what)
      val b = src.byteBuffer
      b.position(b.position() + off.toInt)
      b
    }
  }

  private[encoding] object Words8 extends WordKind(8) {
    def newArray(n: Int): AnyRef = new Array[Byte](n)
    def unpack(w: Int, p: Array[Byte], po: Int, o: Array[Byte], oo: Int): Unit = unpack8(w, p, po, o, oo)
    def pack(w: Int, i: AnyRef, io: Int, p: AnyRef, po: Int): Unit =
      pack8(w, i.asInstanceOf[Array[Byte]], io, p.asInstanceOf[Array[Byte]], po)
    def readWords(src: Bytes, off: Long, dst: AnyRef, dstOff: Int, count: Int, what: => String): Unit =
      view(src, off, count, what).get(dst.asInstanceOf[Array[Byte]], dstOff, count)
    def loadWords(src: Array[Byte], off: Int, dst: AnyRef, dstOff: Int, count: Int): Unit =
      System.arraycopy(src, off, dst, dstOff, count)
    def writeWords(s: AnyRef, so: Int, count: Int, dst: ByteBuffer): Unit =
      dst.put(s.asInstanceOf[Array[Byte]], so, count)
    def or(values: AnyRef, off: Int, n: Int): Long = {
      val a = values.asInstanceOf[Array[Byte]]
      var acc = 0; var i = off
      while (i < off + n) { acc |= a(i); i += 1 }
      acc & 0xffL
    }
    def readUnsigned(src: Bytes, off: Long): Long = src.u8(off).toLong
    def putWord(dst: ByteBuffer, value: Long): Unit = dst.put(value.toByte)
  }

  private[encoding] object Words16 extends WordKind(16) {
    def newArray(n: Int): AnyRef = new Array[Short](n)
    def unpack(w: Int, p: Array[Byte], po: Int, o: Array[Byte], oo: Int): Unit = unpack16(w, p, po, o, oo)
    def pack(w: Int, i: AnyRef, io: Int, p: AnyRef, po: Int): Unit =
      pack16(w, i.asInstanceOf[Array[Short]], io, p.asInstanceOf[Array[Short]], po)
    def readWords(src: Bytes, off: Long, dst: AnyRef, dstOff: Int, count: Int, what: => String): Unit =
      view(src, off, count, what).asShortBuffer().get(dst.asInstanceOf[Array[Short]], dstOff, count)
    def loadWords(src: Array[Byte], off: Int, dst: AnyRef, dstOff: Int, count: Int): Unit =
      le(src, off, count * 2).asShortBuffer().get(dst.asInstanceOf[Array[Short]], dstOff, count)
    def writeWords(s: AnyRef, so: Int, count: Int, dst: ByteBuffer): Unit = {
      dst.asShortBuffer().put(s.asInstanceOf[Array[Short]], so, count)
      dst.position(dst.position() + count * 2)
    }
    def or(values: AnyRef, off: Int, n: Int): Long = {
      val a = values.asInstanceOf[Array[Short]]
      var acc = 0; var i = off
      while (i < off + n) { acc |= a(i); i += 1 }
      acc & 0xffffL
    }
    def readUnsigned(src: Bytes, off: Long): Long = src.u16(off).toLong
    def putWord(dst: ByteBuffer, value: Long): Unit = dst.putShort(value.toShort)
  }

  private[encoding] object Words32 extends WordKind(32) {
    def newArray(n: Int): AnyRef = new Array[Int](n)
    def unpack(w: Int, p: Array[Byte], po: Int, o: Array[Byte], oo: Int): Unit = unpack32(w, p, po, o, oo)
    def pack(w: Int, i: AnyRef, io: Int, p: AnyRef, po: Int): Unit =
      pack32(w, i.asInstanceOf[Array[Int]], io, p.asInstanceOf[Array[Int]], po)
    def readWords(src: Bytes, off: Long, dst: AnyRef, dstOff: Int, count: Int, what: => String): Unit =
      view(src, off, count, what).asIntBuffer().get(dst.asInstanceOf[Array[Int]], dstOff, count)
    def loadWords(src: Array[Byte], off: Int, dst: AnyRef, dstOff: Int, count: Int): Unit =
      le(src, off, count * 4).asIntBuffer().get(dst.asInstanceOf[Array[Int]], dstOff, count)
    def writeWords(s: AnyRef, so: Int, count: Int, dst: ByteBuffer): Unit = {
      dst.asIntBuffer().put(s.asInstanceOf[Array[Int]], so, count)
      dst.position(dst.position() + count * 4)
    }
    def or(values: AnyRef, off: Int, n: Int): Long = {
      val a = values.asInstanceOf[Array[Int]]
      var acc = 0; var i = off
      while (i < off + n) { acc |= a(i); i += 1 }
      acc & 0xffffffffL
    }
    def readUnsigned(src: Bytes, off: Long): Long = src.u32(off)
    def putWord(dst: ByteBuffer, value: Long): Unit = dst.putInt(value.toInt)
  }

  private[encoding] object Words64 extends WordKind(64) {
    def newArray(n: Int): AnyRef = new Array[Long](n)
    def unpack(w: Int, p: Array[Byte], po: Int, o: Array[Byte], oo: Int): Unit = unpack64(w, p, po, o, oo)
    def pack(w: Int, i: AnyRef, io: Int, p: AnyRef, po: Int): Unit =
      pack64(w, i.asInstanceOf[Array[Long]], io, p.asInstanceOf[Array[Long]], po)
    def readWords(src: Bytes, off: Long, dst: AnyRef, dstOff: Int, count: Int, what: => String): Unit =
      view(src, off, count, what).asLongBuffer().get(dst.asInstanceOf[Array[Long]], dstOff, count)
    def loadWords(src: Array[Byte], off: Int, dst: AnyRef, dstOff: Int, count: Int): Unit =
      le(src, off, count * 8).asLongBuffer().get(dst.asInstanceOf[Array[Long]], dstOff, count)
    def writeWords(s: AnyRef, so: Int, count: Int, dst: ByteBuffer): Unit = {
      dst.asLongBuffer().put(s.asInstanceOf[Array[Long]], so, count)
      dst.position(dst.position() + count * 8)
    }
    def or(values: AnyRef, off: Int, n: Int): Long = {
      val a = values.asInstanceOf[Array[Long]]
      var acc = 0L; var i = off
      while (i < off + n) { acc |= a(i); i += 1 }
      acc
    }
    def readUnsigned(src: Bytes, off: Long): Long = src.i64(off)
    def putWord(dst: ByteBuffer, value: Long): Unit = dst.putLong(value)
  }

  private[encoding] def wordKind(bits: Int): WordKind = bits match {
    case 8 => Words8
    case 16 => Words16
    case 32 => Words32
    case 64 => Words64
    case _ => throw new IllegalArgumentException(s"FastLanes word size must be 8, 16, 32 or 64, not $bits")
  }

  /** Bits needed for the largest of the OR-ed unsigned values: the width a block is packed at. */
  private[encoding] def bitLength(orOfValues: Long): Int = 64 - java.lang.Long.numberOfLeadingZeros(orOfValues)
}
