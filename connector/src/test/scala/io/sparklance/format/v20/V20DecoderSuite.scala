package io.sparklance.format.v20

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.types.FloatingPointPrecision
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.format.encoding.{Fsst, GeneralCompression, FastLanesBitpacking, VariableData}
import io.sparklance.format.proto.ArrayEncodingCodec
import io.sparklance.format.v20.{ArrayEncoding => AE}
import io.sparklance.format.EncodingAny
import io.sparklance.testutil.Canonical
import io.sparklance.util.{Bytes, CorruptFileException, UnsupportedFeatureException}

/**
 * The 2.0 page decoders on hand-made pages: edge cases pylance rarely writes (0 rows, all
 * null, nulls inside binary and list offsets) and damaged pages, which must fail with
 * CorruptFile, never with an index or cast error.
 */
class V20DecoderSuite extends AnyFunSuite {

  private val Path = "mem://v20-test.lance"

  import PageBytes._

  private def ctx(buffers: Array[Byte]*): PageContext = ctxWith(zeroBased = false, buffers: _*)
  private def ctxWith(zeroBased: Boolean, buffers: Array[Byte]*): PageContext =
    new PageContext(Path, "test page", buffers.map(b => Bytes.wrap(Path, 1024, b)).toIndexedSeq, zeroBased)

  private def field(name: String, t: ArrowType, children: Field*): Field =
    new Field(name, FieldType.nullable(t), java.util.Arrays.asList(children: _*))

  private val int32 = field("x", new ArrowType.Int(32, true))
  private val utf8 = field("s", ArrowType.Utf8.INSTANCE)

  /** Decodes `n` values and returns them as canonical cells of an Arrow vector of `f`. */
  private def cells(f: Field, pages: Seq[(PageValues, Long, Int)]): IndexedSeq[Any] = {
    val allocator = new RootAllocator(Long.MaxValue)
    try {
      val v = ArrowVectors.create(f, allocator)
      try {
        PageSliceAssembler.fill(v, pages.map { case (p, s, c) => PageSlice(p, s, c) }, allocator, Path, "test")
        (0 until v.getValueCount).map(i => Canonical.cell(v, i))
      } finally v.close()
    } finally allocator.close()
  }

  private def decodeAll(f: Field, e: ArrayEncoding, n: Int, c: PageContext): IndexedSeq[Any] =
    cells(f, Seq((PageDecoder.decode(e, n.toLong, c), 0L, n)))

  private def corrupt(f: => Any): CorruptFileException = {
    val e = intercept[CorruptFileException](f)
    assert(e.errorClass == "LANCE_CORRUPT_FILE")
    e
  }

  // ---- flat and nullable ---------------------------------------------------------------

  test("zero rows decode to an empty vector, with or without buffers") {
    assert(decodeAll(int32, AE.NoNulls(flat(32, 0)), 0, ctx(Array.emptyByteArray)).isEmpty)
    assert(decodeAll(int32, AE.AllNulls, 0, ctx()).isEmpty)
    assert(decodeAll(utf8, AE.Binary(AE.NoNulls(flat(64, 0)), flat(8, 1), 0), 0, ctx(Array.emptyByteArray, Array.emptyByteArray)).isEmpty)
  }

  test("some_nulls: validity bitmap beside the values") {
    val c = ctx(bitmap(true, false, true), le(4, 7, 99, -5))
    assert(decodeAll(int32, AE.SomeNulls(flat(1, 0), flat(32, 1)), 3, c) == Seq[Any](7, null, -5))
  }

  test("all_nulls reads as nulls for every vector shape, without buffers") {
    assert(decodeAll(int32, AE.AllNulls, 4, ctx()) == Seq(null, null, null, null))
    assert(decodeAll(utf8, AE.AllNulls, 2, ctx()) == Seq(null, null))
    val fsl = field("v", new ArrowType.FixedSizeList(2), field("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
    assert(decodeAll(fsl, AE.AllNulls, 3, ctx()) == Seq(null, null, null))
    assert(decodeAll(field("n", ArrowType.Null.INSTANCE), AE.AllNulls, 3, ctx()) == Seq(null, null, null))
  }

  test("booleans are 1-bit flat values, LSB first") {
    val b = field("b", ArrowType.Bool.INSTANCE)
    assert(decodeAll(b, AE.NoNulls(flat(1, 0)), 10, ctx(bitmap(true, false, false, true, true, false, false, false, true, true))) ==
      Seq(true, false, false, true, true, false, false, false, true, true))
  }

  test("a flat buffer shorter than its values is corrupt") {
    corrupt(PageDecoder.decode(flat(64, 0), 3, ctx(new Array[Byte](23))))
    corrupt(PageDecoder.decode(AE.SomeNulls(flat(1, 0), flat(8, 1)), 9, ctx(new Array[Byte](1), new Array[Byte](9))))
  }

  test("a buffer index beyond the page is corrupt; column and file buffers are unsupported") {
    corrupt(PageDecoder.decode(flat(32, 2), 1, ctx(new Array[Byte](4))))
    intercept[UnsupportedFeatureException](PageDecoder.decode(AE.Flat(32, BufferRef(0, BufferKind.Column), None), 1, ctx(new Array[Byte](4))))
  }

  test("flat widths other than 1 or whole bytes are unsupported") {
    intercept[UnsupportedFeatureException](PageDecoder.decode(flat(12, 0), 2, ctx(new Array[Byte](3))))
  }

  test("zstd and lz4 compressed flat buffers; a frame declaring more bytes than the page is corrupt") {
    val data = le(4, 1, 2, 3, 4)
    val z = AE.Flat(32, buf(0), Some(FlatCompression("zstd", Some(3))))
    assert(decodeAll(int32, z, 4, ctx(GeneralCompression.compressZstd(data))) == Seq(1, 2, 3, 4))
    val l = AE.Flat(32, buf(0), Some(FlatCompression("lz4", None)))
    assert(decodeAll(int32, l, 4, ctx(GeneralCompression.compressLz4(data))) == Seq(1, 2, 3, 4))
    corrupt(PageDecoder.decode(z, 3, ctx(GeneralCompression.compressZstd(data))))
    intercept[UnsupportedFeatureException](PageDecoder.decode(AE.Flat(32, buf(0), Some(FlatCompression("brotli", None))), 1, ctx(data)))
  }

  test("a constant repeats its value") {
    assert(decodeAll(int32, AE.Constant(le(4, 42)), 3, ctx()) == Seq(42, 42, 42))
  }

  // ---- binary, fsst, fixed-size binary ---------------------------------------------------

  /** ["ab", null, "", "cde", null]: end offsets 2,2,2,5,5; nulls get +6 (total bytes + 1). */
  private val binaryPage = ctx(le(8, 2, 2 + 6, 2, 5, 5 + 6), "abcde".getBytes(UTF_8))
  private val binaryEnc = AE.Binary(AE.NoNulls(flat(64, 0)), flat(8, 1), 6)

  test("binary: end offsets, null_adjustment marks nulls, empty is not null") {
    assert(decodeAll(utf8, binaryEnc, 5, binaryPage) == Seq("ab", null, "", "cde", null))
    val large = field("l", ArrowType.LargeBinary.INSTANCE)
    assert(decodeAll(large, binaryEnc, 5, binaryPage) == Seq("ab".getBytes.toSeq, null, Seq.empty, "cde".getBytes.toSeq, null))
  }

  test("binary: a null holding bytes keeps the following offsets right") {
    // ["x", null (with 2 bytes "yz" behind it), "w"]: ends 1, 3, 4; null_adjustment 5.
    val c = ctx(le(8, 1, 3 + 5, 4), "xyzw".getBytes(UTF_8))
    assert(decodeAll(utf8, AE.Binary(AE.NoNulls(flat(64, 0)), flat(8, 1), 5), 3, c) == Seq("x", null, "w"))
  }

  test("binary: all null, as the writer stores it (every index = null_adjustment = 1)") {
    val c = ctx(le(8, 1, 1, 1), Array.emptyByteArray)
    assert(decodeAll(utf8, AE.Binary(AE.NoNulls(flat(64, 0)), flat(8, 1), 1), 3, c) == Seq(null, null, null))
  }

  test("binary: slices of two pages concatenate") {
    val p1 = PageDecoder.decode(binaryEnc, 5, binaryPage)
    val p2 = PageDecoder.decode(AE.Binary(AE.NoNulls(flat(64, 0)), flat(8, 1), 4), 2, ctx(le(8, 3, 3 + 4), "xyz".getBytes(UTF_8)))
    assert(cells(utf8, Seq((p1, 2L, 3), (p2, 0L, 2))) == Seq("", "cde", null, "xyz", null))
  }

  test("binary: decreasing offsets, offsets beyond the bytes and a zero null_adjustment are corrupt") {
    corrupt(PageDecoder.decode(binaryEnc, 3, ctx(le(8, 3, 1, 5), "abcde".getBytes(UTF_8))))
    corrupt(PageDecoder.decode(binaryEnc, 2, ctx(le(8, 2, 5), "abc".getBytes(UTF_8))))
    corrupt(PageDecoder.decode(binaryEnc.copy(nullAdjustment = 0), 2, ctx(le(8, 1, 2), "ab".getBytes(UTF_8))))
    corrupt(PageDecoder.decode(binaryEnc, 1, ctx(le(8, -1L), "ab".getBytes(UTF_8))))
  }

  test("fsst (2.0 style) wraps a binary of compressed strings") {
    val symbols = Seq("hello".getBytes(UTF_8), " ".getBytes(UTF_8))
    val plain = VariableData.of(Seq("hello hello", "", "hi").map(_.getBytes(UTF_8)))
    val packed = Fsst.encode(symbols, plain)
    val ends = packed.offsets.tail.map(_.toLong)
    val c = ctx(le(8, ends.toSeq: _*), packed.bytes)
    val inner = AE.Binary(AE.NoNulls(flat(64, 0)), flat(8, 1), ends.last + 1)
    assert(decodeAll(utf8, AE.Fsst(inner, Fsst.symbolTable(symbols)), 3, c) == Seq("hello hello", "", "hi"))
    corrupt(PageDecoder.decode(AE.Fsst(inner, new Array[Byte](10)), 3, c))
  }

  test("fixed-size binary: strings of one width over a fixed-width flat") {
    val c = ctx(bitmap(true, false, true), "abcxxxdef".getBytes(UTF_8))
    val e = AE.SomeNulls(flat(1, 0), AE.FixedSizeBinary(flat(24, 1), 3))
    assert(decodeAll(utf8, e, 3, c) == Seq("abc", null, "def"))
  }

  // ---- dictionaries --------------------------------------------------------------------

  private val items = AE.Binary(AE.NoNulls(flat(64, 1)), flat(8, 2), 9)
  private val itemBufs = Seq(le(8, 3, 8), "redgreen".getBytes(UTF_8))

  test("string dictionary: u8 indices from 1, 0 is null") {
    val c = ctx(Seq(Array[Byte](1, 0, 2, 2, 1)) ++ itemBufs: _*)
    assert(decodeAll(utf8, AE.Dictionary(AE.NoNulls(flat(8, 0)), items, 2), 5, c) == Seq("red", null, "green", "green", "red"))
  }

  test("dictionary-typed column: 0-based keys of the key width, null rows point at a null item") {
    val withNull = AE.Binary(AE.NoNulls(flat(64, 1)), flat(8, 2), 9)
    val c = ctxWith(true, Seq(le(4, 1, 2, 0)) ++ Seq(le(8, 3, 8, 8 + 9), "redgreen".getBytes(UTF_8)): _*)
    assert(decodeAll(utf8, AE.Dictionary(AE.NoNulls(flat(32, 0)), withNull, 3), 3, c) == Seq("green", null, "red"))
  }

  test("dictionary indices beyond the items are corrupt") {
    corrupt(PageDecoder.decode(AE.Dictionary(AE.NoNulls(flat(8, 0)), items, 2), 2, ctx(Seq(Array[Byte](1, 3)) ++ itemBufs: _*)))
    corrupt(PageDecoder.decode(AE.Dictionary(AE.NoNulls(flat(32, 0)), items, 2), 1, ctxWith(true, Seq(le(4, 2)) ++ itemBufs: _*)))
  }

  test("an all-null string column of 100+ rows: a dictionary of one null item, indices all 0") {
    val oneNull = AE.Binary(AE.NoNulls(flat(64, 1)), flat(8, 2), 1)
    val c = ctx(new Array[Byte](4), le(8, 1), Array.emptyByteArray)
    assert(decodeAll(utf8, AE.Dictionary(AE.NoNulls(flat(8, 0)), oneNull, 1), 4, c) == Seq(null, null, null, null))
  }

  // ---- fixed-size lists and packed structs ----------------------------------------------

  test("fixed-size list: row validity outside, item validity inside") {
    val fsl = field("v", new ArrowType.FixedSizeList(2), field("item", new ArrowType.Int(8, true)))
    val e = AE.SomeNulls(flat(1, 0), AE.FixedSizeList(2, hasValidity = false, AE.SomeNulls(flat(1, 1), flat(8, 2))))
    val c = ctx(bitmap(true, false, true), bitmap(true, false, true, true, true, true), Array[Byte](1, 2, 3, 4, 5, 6))
    assert(decodeAll(fsl, e, 3, c) == Seq[Any](Seq[Any](1.toByte, null), null, Seq(5.toByte, 6.toByte)))
    corrupt(PageDecoder.decode(AE.FixedSizeList(0, hasValidity = false, flat(8, 0)), 1, ctx(new Array[Byte](1))))
  }

  test("packed struct: row-major fixed-width children in one buffer") {
    val st = field("p", ArrowType.Struct.INSTANCE, field("a", new ArrowType.Int(32, true)), field("b", new ArrowType.Int(8, false)))
    val e = AE.PackedStruct(IndexedSeq(AE.NoNulls(flat(32, 0)), AE.NoNulls(flat(8, 0))), buf(0))
    val rows = le(4, 10) ++ Array[Byte](1) ++ le(4, -20) ++ Array[Byte](2)
    assert(decodeAll(st, e, 2, ctx(rows)) == Seq(Map("a" -> 10, "b" -> 1), Map("a" -> -20, "b" -> 2)))
    corrupt(PageDecoder.decode(e, 3, ctx(rows)))
    intercept[UnsupportedFeatureException](PageDecoder.decode(AE.PackedStruct(IndexedSeq(flat(1, 0)), buf(0)), 1, ctx(rows)))
  }

  // ---- bit packing (pre-2.1 writers) --------------------------------------------------

  test("bitpacked: LSB-first values, sign-extended when signed") {
    // 3-bit values -1 (111), 2 (010), -3 (101), 0 (000): bits 111 010 101 000 -> 0b01010111, 0b0000_0001 ...
    val values = Seq(-1L, 2L, -3L, 0L)
    var acc = 0L
    values.zipWithIndex.foreach { case (v, i) => acc |= (v & 7L) << (3 * i) }
    val c = ctx(le(2, acc))
    assert(decodeAll(int32, AE.Bitpacked(3, 32, buf(0), signed = true), 4, c) == Seq(-1, 2, -3, 0))
    assert(decodeAll(int32, AE.Bitpacked(3, 32, buf(0), signed = false), 4, c) == Seq(7, 2, 5, 0))
    corrupt(PageDecoder.decode(AE.Bitpacked(3, 32, buf(0), signed = false), 6, c))
    corrupt(PageDecoder.decode(AE.Bitpacked(0, 32, buf(0), signed = false), 1, c))
    corrupt(PageDecoder.decode(AE.Bitpacked(3, 24, buf(0), signed = false), 1, c))
  }

  test("bitpacked_for_non_neg: FastLanes blocks of 1024") {
    val values = Array.tabulate(1024)(i => if (i < 1000) (i * 7) % 500 else 0)
    val packed = FastLanesBitpacking.pack32(9, values, 0)
    val got = PageDecoder.decode(AE.BitpackedForNonNeg(9, 32, buf(0)), 1000, ctx(packed))
    assert(cells(int32, Seq((got, 0L, 1000))) == values.take(1000).toSeq)
    corrupt(PageDecoder.decode(AE.BitpackedForNonNeg(9, 32, buf(0)), 1025, ctx(packed)))
  }

  // ---- list offsets ------------------------------------------------------------------

  test("list offsets: end offsets per list, null lists marked by the adjustment") {
    // [null, [a], [b, c], [], null] over 3 items: ends 0, 1, 3, 3, 3; adjustment 4.
    val l = AE.ListOffsets(AE.NoNulls(flat(64, 0)), 4, 3)
    val o = ListOffsets.decode(l, 5, ctx(le(8, 0 + 4, 1, 3, 3, 3 + 4)))
    assert(o.ends.toSeq == Seq(0, 1, 3, 3, 3))
    assert((0 until 5).map(i => o.validity.isValid(i.toLong)) == Seq(false, true, true, true, false))
    assert((0 until 5).map(i => o.ends(i) - o.start(i)) == Seq(0, 1, 2, 0, 0))
  }

  test("list offsets: decreasing, beyond num_items, short of num_items or a zero adjustment are corrupt") {
    val l = AE.ListOffsets(AE.NoNulls(flat(64, 0)), 4, 3)
    corrupt(ListOffsets.decode(l, 2, ctx(le(8, 2, 1))))
    corrupt(ListOffsets.decode(l, 1, ctx(le(8, 3 + 4 + 4 + 1))))
    corrupt(ListOffsets.decode(l, 2, ctx(le(8, 1, 2))))
    corrupt(ListOffsets.decode(l.copy(nullOffsetAdjustment = 0), 1, ctx(le(8, 3))))
    corrupt(ListOffsets.decode(l.copy(numItems = 2), 1, ctx(le(8, 3))))
  }

  // ---- the protobuf wrapper -------------------------------------------------------------

  test("page descriptions round-trip through the protobuf wrapper") {
    val encs = Seq[ArrayEncoding](
      AE.SomeNulls(flat(1, 0), AE.FixedSizeList(128, hasValidity = false, AE.NoNulls(flat(32, 1)))),
      AE.Dictionary(AE.NoNulls(flat(8, 0)), AE.Binary(AE.NoNulls(flat(64, 1)), AE.Flat(8, buf(2), Some(FlatCompression("zstd", Some(3)))), 17), 4),
      AE.ListOffsets(AE.NoNulls(flat(64, 0)), 2715, 2714),
      AE.PackedStruct(IndexedSeq(AE.NoNulls(flat(64, 0)), AE.NoNulls(flat(64, 0))), buf(0)),
      AE.Bitpacked(3, 32, buf(0), signed = true), AE.BitpackedForNonNeg(9, 64, buf(1)),
      AE.FixedSizeBinary(flat(128, 0), 16), AE.Constant(Array[Byte](1, 2)), AE.AllNulls, AE.SimpleStruct)
    encs.foreach { e =>
      assert(ArrayEncodingCodec.parse(ArrayEncodingCodec.toAny(e), Path, "c").describe == e.describe)
    }
  }

  test("unknown or damaged page descriptions fail with the right error") {
    intercept[UnsupportedFeatureException](ArrayEncodingCodec.parse(EncodingAny("/lance.encodings.Nope", Array.emptyByteArray), Path, "c"))
    corrupt(ArrayEncodingCodec.parse(EncodingAny(ArrayEncodingCodec.ArrayEncodingTypeUrl, Array[Byte](10, 5, 1)), Path, "c"))
    corrupt(ArrayEncodingCodec.parse(EncodingAny(ArrayEncodingCodec.ArrayEncodingTypeUrl, Array.emptyByteArray), Path, "c"))
    // A flat without its buffer.
    corrupt(ArrayEncodingCodec.parse(EncodingAny(ArrayEncodingCodec.ArrayEncodingTypeUrl, Array[Byte](10, 2, 8, 32)), Path, "c"))
    // rle (a 2.1 mini-block message that the 2.0 proto also declares) cannot appear in a 2.0 page.
    val rle = EncodingAny(ArrayEncodingCodec.ArrayEncodingTypeUrl, Array[Byte]((19 << 3 | 2).toByte, 1, 2, 8, 8))
    intercept[UnsupportedFeatureException](PageDecoder.decode(ArrayEncodingCodec.parse(rle, Path, "c"), 1, ctx()))
  }

  test("column descriptions: values, blob") {
    assert(ArrayEncodingCodec.parseColumn(None, Path, "c") == ColumnEncoding.Values)
    assert(ArrayEncodingCodec.parseColumn(Some(ArrayEncodingCodec.blobColumnAny), Path, "c") == ColumnEncoding.Blob(ColumnEncoding.Values))
  }

  test("vector types the page cannot fill are corrupt") {
    corrupt(decodeAll(utf8, AE.NoNulls(flat(32, 0)), 1, ctx(le(4, 1))))
    corrupt(decodeAll(int32, AE.NoNulls(flat(64, 0)), 1, ctx(le(8, 1))))
  }
}
