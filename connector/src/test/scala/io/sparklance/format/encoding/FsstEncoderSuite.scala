package io.sparklance.format.encoding

import java.nio.charset.StandardCharsets.UTF_8

import io.sparklance.format.encoding.EncodingFixtures._
import io.sparklance.format.encoding.{CompressiveEncoding => CE}
import io.sparklance.format.v21.ValueDecoders
import io.sparklance.util.LittleEndian
import org.scalatest.funsuite.AnyFunSuite

class FsstEncoderSuite extends AnyFunSuite {

  private def b(s: String): Array[Byte] = s.getBytes(UTF_8)

  /** URL-like strings, `count` of them, from a seeded generator. */
  private def urls(seed: Long, count: Int): Seq[Array[Byte]] = {
    val rnd = new scala.util.Random(seed)
    val hosts = Seq("www.example.com", "docs.lancedb.com", "spark.apache.org", "github.com", "en.wikipedia.org")
    val words = Seq("index", "user", "profile", "search", "article", "images", "static", "api", "v2", "items")
    Seq.fill(count) {
      val path = Seq.fill(1 + rnd.nextInt(4))(words(rnd.nextInt(words.size))).mkString("/")
      b(s"https://${hosts(rnd.nextInt(hosts.size))}/$path?id=${rnd.nextInt(1000000)}")
    }
  }

  private def randomBytes(rnd: scala.util.Random, len: Int): Array[Byte] = { val a = new Array[Byte](len); rnd.nextBytes(a); a }

  private final case class Header(magic: Long, switch: Int, suffixLim: Int, terminator: Int, numSymbols: Int)
  private def header(table: Array[Byte]): Header = {
    val h = LittleEndian.getLong(table, 0)
    Header(h >>> 32, ((h >>> 24) & 0xff).toInt, ((h >>> 16) & 0xff).toInt, ((h >>> 8) & 0xff).toInt, (h & 0xff).toInt)
  }

  private def assertSameValues(expected: IndexedSeq[Array[Byte]], actual: VariableData, what: String): Unit = {
    assert(actual.count == expected.size, what)
    expected.indices.foreach { i =>
      if (!java.util.Arrays.equals(actual.bytes, actual.offsets(i), actual.offsets(i + 1), expected(i), 0, expected(i).length))
        fail(s"$what: value $i differs")
    }
  }

  /**
   * Compresses `values` as a page and decodes it back every way a reader meets it: whole, through
   * the mini-block decoder chunk by chunk (32- and 64-bit offsets) and value by value as full-zip
   * pages do. Returns the compressed form.
   */
  private def roundTrip(valueSeq: Seq[Array[Byte]]): FsstCompressed = {
    val values = valueSeq.toIndexedSeq // the generators build lists; values are looked up by index
    val data = VariableData.of(values)
    val fsst = FsstEncoder.compress(data)
    assert(fsst.symbolTable.length == 2312)
    val table = Fsst.parseSymbolTable(fsst.symbolTable, "test page")
    assertSameValues(values, Fsst.decode(table, fsst.values), "whole page")

    for (bits <- Seq(32, 64)) {
      val (chunked, enc) = FsstCompressors.miniBlock(bits).compress(data)
      assert(enc == CE.Fsst(enc.asInstanceOf[CE.Fsst].symbolTable, CE.Variable(CE.Flat(bits, None), None)))
      assert(chunked.numValues == values.size && chunked.numBuffers == 1)
      val decoder = ValueDecoders.miniBlock(enc, "test page")
      val out = new VariableDataBuilder(values.size, data.dataLength)
      var at = 0
      var remaining = values.size
      chunked.chunks.zipWithIndex.foreach { case (chunk, k) =>
        val last = k == chunked.chunks.size - 1
        val n = if (last) remaining else 1 << chunk.logNumValues
        assert(last || (chunk.logNumValues >= 1 && n < remaining), s"chunk $k of ${chunked.chunks.size}")
        val size = chunk.bufferSizes.head
        assert(size % (bits / 8) == 0, s"chunk $k is padded to the offset width")
        val buf = java.util.Arrays.copyOfRange(chunked.buffers.head, at, at + size)
        decoder.decode(IndexedSeq(bytes(buf)), n, "test chunk") match {
          case v: VariableData => (0 until v.count).foreach(i => out.append(v.bytes, v.offsets(i), v.length(i)))
          case other => fail(s"decoded ${other.describe}")
        }
        at += size
        remaining -= n
      }
      assert(at == chunked.buffers.head.length && remaining == 0)
      assertSameValues(values, out.result(), s"mini-block, $bits-bit offsets")
    }

    val (perValue, enc) = FsstCompressors.perValue(32).compress(data)
    assert(enc == CE.Fsst(enc.asInstanceOf[CE.Fsst].symbolTable, CE.Variable(CE.Flat(32, None), None)))
    val PerValueData.Variable(32, codes) = perValue
    val out = new VariableDataBuilder(values.size, data.dataLength)
    val perValueTable = Fsst.parseSymbolTable(enc.asInstanceOf[CE.Fsst].symbolTable, "test page")
    (0 until codes.count).foreach(i => Fsst.decodeValue(perValueTable, codes.bytes, codes.offsets(i), codes.offsets(i + 1), out, i))
    assertSameValues(values, out.result(), "per value")
    fsst
  }

  test("no values, one value, empty strings: verbatim under 32 KiB, switch off, header only") {
    for (values <- Seq(Seq.empty[Array[Byte]], Seq(b("hello")), Seq.fill(5)(Array.emptyByteArray), Seq(b(""), b("x"), b("")))) {
      val fsst = roundTrip(values)
      assert(header(fsst.symbolTable) == Header(0x46535354L, 0, 0, 0, 0))
      assert(fsst.symbolTable.drop(8).forall(_ == 0))
      assert(fsst.values.offsets.sameElements(VariableData.of(values).offsets))
    }
  }

  test("the encoder switch turns on at exactly 32 KiB of value bytes") {
    val value = b("abcdefghijklmnopqrstuvwxyz012345") // 32 bytes
    val below = Seq.fill(1023)(value) :+ value.take(31)
    val at = Seq.fill(1024)(value)
    assert(VariableData.of(below).dataLength == 32767 && VariableData.of(at).dataLength == 32768)
    val off = roundTrip(below)
    assert(header(off.symbolTable).switch == 0 && off.values.dataLength == 32767)
    val on = roundTrip(at)
    val h = header(on.symbolTable)
    assert(h.magic == 0x46535354L && h.switch == 1 && h.numSymbols > 0)
    // 32 repeated bytes are four 8-byte symbols: a quarter of the input at most.
    assert(on.values.dataLength <= 32768 / 4)
  }

  test("the table: 2312 bytes, header fields, symbols grouped by length as Lance numbers them") {
    val fsst = roundTrip(urls(1, 5000))
    val raw = fsst.symbolTable
    val h = header(raw)
    assert(h.magic == 0x46535354L && h.switch == 1)
    assert(h.numSymbols > 50 && h.numSymbols <= 255)
    val table = Fsst.parseSymbolTable(raw, "t")
    val lengths = (0 until h.numSymbols).map(c => raw(8 + 8 * h.numSymbols + c).toInt)
    assert(lengths.forall(l => l >= 1 && l <= 8))
    assert(raw.drop(8 + 9 * h.numSymbols).forall(_ == 0), "zeros after the lengths")
    // Lengths 2, 3, .., 8 then 1, in that order.
    val order = lengths.map(l => if (l == 1) 9 else l)
    assert(order == order.sorted)
    // The first suffix_lim two-byte symbols start a longer symbol; the other two-byte ones do not.
    val symbols = (0 until h.numSymbols).map(table.symbol)
    val longer = symbols.filter(_.length > 2).map(_.take(2).toSeq).toSet
    assert(h.suffixLim <= lengths.count(_ == 2))
    (0 until lengths.count(_ == 2)).foreach { c =>
      assert(longer.contains(symbols(c).toSeq) == (c < h.suffixLim), s"two-byte symbol $c")
    }
    // The terminator has a single-byte symbol and is in no longer symbol.
    assert(symbols.exists(s => s.length == 1 && (s(0) & 0xff) == h.terminator))
    assert(symbols.filter(_.length > 1).forall(!_.exists(x => (x & 0xff) == h.terminator)))
    // No symbol twice.
    assert(symbols.map(_.toSeq).distinct.size == symbols.size)
  }

  test("URL-like strings compress to well under half, and the same page gives the same bytes") {
    val values = urls(2, 20000)
    val first = roundTrip(values)
    val raw = VariableData.of(values).dataLength
    assert(first.values.dataLength < raw / 2, s"${first.values.dataLength} of $raw bytes")
    val again = FsstEncoder.compress(VariableData.of(values))
    assert(again.symbolTable.sameElements(first.symbolTable))
    assert(again.values.offsets.sameElements(first.values.offsets))
    assert(java.util.Arrays.equals(again.values.bytes, 0, again.values.dataLength, first.values.bytes, 0, first.values.dataLength))
  }

  test("byte 255 and every byte value, escaped or in symbols") {
    val all = Array.tabulate(256)(_.toByte)
    val ff = Array.fill(40)((-1).toByte)
    val values = Seq.fill(300)(all) ++ Seq.fill(500)(ff) ++ Seq(Array[Byte](-1), Array[Byte](-1, -1, 0), Array[Byte](0))
    roundTrip(values)
    // Random bytes do not compress, and every one of them then costs an escape: twice the size.
    val rnd = new scala.util.Random(3)
    val random = Seq.fill(100)(randomBytes(rnd, 500))
    val fsst = roundTrip(random)
    assert(fsst.values.dataLength <= 2 * 50000)
  }

  test("unicode text") {
    val words = Seq("naïve", "café", "日本語", "テキスト", "Ελληνικά", "русский", "emoji 😀🎉", "ß", "한국어")
    val rnd = new scala.util.Random(4)
    val values = Seq.fill(6000)(b(Seq.fill(1 + rnd.nextInt(5))(words(rnd.nextInt(words.size))).mkString(" ")))
    val fsst = roundTrip(values)
    assert(header(fsst.symbolTable).switch == 1)
    assert(fsst.values.dataLength < VariableData.of(values).dataLength / 2)
  }

  test("values over 1 MiB, alone and among short ones") {
    val rnd = new scala.util.Random(5)
    val text = urls(6, 30000).flatMap(_.toSeq).toArray
    assert(text.length > (1 << 20))
    roundTrip(Seq(text))
    roundTrip(Seq(b("a"), text, Array.emptyByteArray, randomBytes(rnd, (1 << 20) + 7), b("tail")))
  }

  test("a page that compresses far worse than its sample: the output grows past its first size") {
    // 20,000 URLs make the sample (the one random value is unlikely to be drawn); the random
    // value is escaped byte by byte, two bytes out per byte in.
    val rnd = new scala.util.Random(8)
    val page = urls(9, 20000) :+ randomBytes(rnd, 3 << 20)
    val c = roundTrip(page)
    val in = page.map(_.length.toLong).sum
    assert(c.values.dataLength > in, s"${c.values.dataLength} bytes out of $in: the page should expand")
  }

  test("seeded random pages of many shapes round-trip") {
    val rnd = new scala.util.Random(20261125)
    for (round <- 0 until 40) {
      val alphabet = rnd.nextInt(4) match {
        case 0 => Array.tabulate(256)(_.toByte)
        case 1 => b("ab")
        case 2 => b("abcdefghij /.-_0123456789")
        case _ => Array.fill(1 + rnd.nextInt(40))(rnd.nextInt(256).toByte)
      }
      val maxLen = Seq(0, 1, 3, 8, 20, 100, 3000)(rnd.nextInt(7))
      // Up to about 1 MB of values a page, to keep the suite quick.
      val count = math.min(rnd.nextInt(4) match {
        case 0 => rnd.nextInt(5)
        case 1 => rnd.nextInt(200)
        case _ => rnd.nextInt(20000)
      }, 2000000 / (maxLen + 1))
      val emptyShare = rnd.nextDouble()
      val values = Seq.fill(count) {
        if (rnd.nextDouble() < emptyShare * 0.5) Array.emptyByteArray
        else Array.fill(rnd.nextInt(maxLen + 1))(alphabet(rnd.nextInt(alphabet.length)))
      }
      withClue(s"round $round: $count values up to $maxLen bytes over ${alphabet.length} bytes: ") {
        val fsst = roundTrip(values)
        assert(header(fsst.symbolTable).switch == (if (VariableData.of(values).dataLength >= 32768) 1 else 0))
      }
    }
  }

  test("mini-block chunks as Lance cuts them: doubling while values and offsets fit 4 KiB") {
    // 10 000 one-byte values, under 32 KiB so verbatim: 1024 values and their 1025 offsets take
    // 5124 bytes, over 4 KiB, so chunks hold 512 (2564 bytes); the last 784 go together (3924 bytes).
    val small = Seq.fill(10000)(b("x"))
    val (c, _) = FsstCompressors.miniBlock(32).compress(VariableData.of(small))
    assert(c.chunks.init.forall(_.logNumValues == 9))
    assert(c.chunks.head.bufferSizes == Vector((513 * 4 + 512 + 3) / 4 * 4))
    assert(c.chunks.size == 19 && c.chunks.last == MiniBlockChunk(Vector(3924), 0))
    // Long values still go two to a chunk.
    val (big, _) = FsstCompressors.miniBlock(64).compress(VariableData.of(Seq.fill(5)(Array.fill(5000)(1.toByte))))
    assert(big.chunks.map(_.logNumValues) == Vector(1, 1, 0))
    // Empty strings: their offsets alone fill a chunk.
    val (empties, _) = FsstCompressors.miniBlock(32).compress(VariableData.of(Seq.fill(5000)(Array.emptyByteArray)))
    assert(empties.chunks.map(_.logNumValues) == Vector.fill(8)(9) :+ 0)
    assert(empties.chunks.head.bufferSizes == Vector(513 * 4))
  }

  test("only variable-width values and 32- or 64-bit offsets are accepted") {
    intercept[IllegalArgumentException](FsstCompressors.miniBlock(16))
    intercept[IllegalArgumentException](FsstCompressors.perValue(8))
    intercept[IllegalArgumentException](FsstCompressors.miniBlock(32).compress(new FixedWidthValues(32, new Array[Byte](8), 2)))
  }
}
