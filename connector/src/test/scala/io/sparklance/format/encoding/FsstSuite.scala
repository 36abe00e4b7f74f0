package io.sparklance.format.encoding

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.EncodingFixtures._
import io.sparklance.util.CorruptFileException
import org.scalatest.funsuite.AnyFunSuite

class FsstSuite extends AnyFunSuite {

  private def b(s: String): Array[Byte] = s.getBytes(UTF_8)
  private def vd(offsets: Array[Int], bytes: Array[Byte]) = new VariableData(offsets, bytes)
  /** Decodes one value on its own, as full-zip pages do. */
  private def decodeValue(table: FsstSymbolTable, v: Array[Byte]): Array[Byte] = {
    val out = new VariableDataBuilder(1, 0)
    Fsst.decodeValue(table, v, 0, v.length, out, 0)
    out.result().value(0)
  }
  private val Symbols = Seq(b("hello"), b(" "), b("world"), b("lo"), b("abcdefgh"), b("x"))

  test("a hand-built table decodes symbols and escapes") {
    val table = Fsst.parseSymbolTable(bytes(Fsst.symbolTable(Symbols)))
    assert(table.encoderSwitch && table.numSymbols == 6)
    assert(table.symbol(4).sameElements(b("abcdefgh")))
    // "hello world!" = hello, ' ', world, escape '!'; "" ; "lolo?x" = lo, lo, escape '?', x
    val compressed = Array[Byte](0, 1, 2, -1, '!', 3, 3, -1, '?', 5, 4, -1, -1)
    val out = Fsst.decode(table, vd(Array(0, 5, 5, 10, 13), compressed))
    assert(out.count == 4)
    assert(new String(out.value(0), UTF_8) == "hello world!")
    assert(out.value(1).isEmpty)
    assert(new String(out.value(2), UTF_8) == "lolo?x")
    // An escaped 0xFF byte is output literally, after an 8-byte symbol.
    assert(out.value(3).sameElements(b("abcdefgh") :+ (-1).toByte))
    assert(out.offsets.sameElements(Array(0, 12, 12, 18, 27)))
  }

  test("the symbol table layout: magic, switch bit 24, count, little-endian symbols, lengths after them") {
    val raw = Fsst.symbolTable(Seq(b("ab"), b("c")))
    assert(raw.length == 2312)
    val bb = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN)
    assert(bb.getLong(0) == (0x46535354L << 32 | 1L << 24 | 2))
    assert(bb.getLong(8) == ('b'.toLong << 8 | 'a'))
    assert(bb.getLong(16) == 'c'.toLong)
    assert(raw(24) == 2 && raw(25) == 1 && raw.drop(26).forall(_ == 0))
  }

  test("pylance FSST page: 255-symbol table and a Variable chunk with escapes decode to the written strings") {
    val table = Fsst.parseSymbolTable(hex(PylanceChunks.FsstTableHex), "pylance fsst page")
    assert(table.encoderSwitch && table.numSymbols == 255)
    val compressed = VariableLayout.decodeMiniBlock(bytes(hex(PylanceChunks.FsstChunk0Hex)), 32, 256)
    val out = Fsst.decode(table, compressed)
    assert(out.count == 256)
    for (i <- 0 until 256) assert(new String(out.value(i), UTF_8) == PylanceChunks.fsstValue(i), s"value $i")
    assert(decodeValue(table, compressed.value(77)).sameElements(b(PylanceChunks.fsstValue(77))))
  }

  test("greedy encode then decode is the identity, with and without matching symbols") {
    val rnd = new scala.util.Random(11)
    val alphabet = "helo wrdabcx!?\u00e9"
    val strings = Seq.fill(500)(Array.fill(rnd.nextInt(40))(alphabet(rnd.nextInt(alphabet.length))).mkString) ++
      Seq("", "hello world", "abcdefghabcdefgh", "\u0000\u00ff")
    val data = VariableData.of(strings.map(b))
    val table = Fsst.parseSymbolTable(bytes(Fsst.symbolTable(Symbols)))
    val encoded = Fsst.encode(Symbols, data)
    assert(encoded.bytes.length < data.bytes.length * 2)
    val decoded = Fsst.decode(table, encoded)
    for (i <- strings.indices) assert(decoded.value(i).sameElements(b(strings(i))), s"value $i")
    // With no symbols every byte is escaped.
    val bare = Fsst.encode(Nil, data)
    assert(bare.bytes.length == 2 * data.bytes.length)
    val decodedBare = Fsst.decode(Fsst.parseSymbolTable(bytes(Fsst.symbolTable(Nil))), bare)
    assert(decodedBare.offsets.sameElements(data.offsets))
    for (i <- strings.indices) assert(decodedBare.value(i).sameElements(b(strings(i))), s"bare value $i")
  }

  test("encoder switch off: values pass through verbatim") {
    val table = Fsst.parseSymbolTable(bytes(Fsst.verbatimSymbolTable()))
    assert(!table.encoderSwitch && table.numSymbols == 0)
    val out = Fsst.decode(table, vd(Array(0, 2, 6), b("abcdef")))
    assert(new String(out.bytes, UTF_8) == "abcdef" && out.offsets.sameElements(Array(0, 2, 6)))
    // Code 255 and unknown codes mean nothing when the switch is off.
    assert(decodeValue(table, Array[Byte](-1, 7)).sameElements(Array[Byte](-1, 7)))
  }

  test("a page decoder sizes each chunk by the last one and still decodes chunks that grow more") {
    val table = Fsst.parseSymbolTable(bytes(Fsst.symbolTable(Symbols)))
    val decoder = new Fsst.Decoder(table)
    // Escapes only: the output is half the input, so the next chunk is sized at about half its input.
    val small = VariableData.of(Seq(b("!?!?"), b("?")))
    val smallOut = decoder.decode(Fsst.encode(Nil, small))
    assert(Seq(0, 1).forall(i => smallOut.value(i).sameElements(small.value(i))))
    // Every code an 8-byte symbol: 8x the input, far past the estimate, so the output grows.
    val big = VariableData.of(Seq.fill(300)(b("abcdefgh" * 5)) :+ b(""))
    val bigOut = decoder.decode(Fsst.encode(Symbols, big))
    assert(bigOut.count == 301)
    for (i <- 0 until 301) assert(bigOut.value(i).sameElements(big.value(i)), s"value $i")
  }

  test("values decoded one by one into one growing array") {
    val table = Fsst.parseSymbolTable(bytes(Fsst.symbolTable(Symbols)))
    val strings = Seq("hello world", "", "abcdefgh" * 40, "lolo?x", "x")
    val encoded = Fsst.encode(Symbols, VariableData.of(strings.map(b)))
    val out = new VariableDataBuilder(strings.length, 0)
    strings.indices.foreach(i => Fsst.decodeValue(table, encoded.bytes, encoded.offsets(i), encoded.offsets(i + 1), out, i))
    val decoded = out.result()
    for (i <- strings.indices) assert(new String(decoded.value(i), UTF_8) == strings(i), s"value $i")
    assert(decoded.dataLength == strings.map(_.length).sum && decoded.bytes.length >= decoded.dataLength)
  }

  test("symbol table of the wrong size, without the magic or with bad lengths is a CorruptFile error") {
    val good = Fsst.symbolTable(Symbols)
    for (len <- Seq(0, 7, 2311, 2313, 4096))
      intercept[CorruptFileException](Fsst.parseSymbolTable(bytes(java.util.Arrays.copyOf(good, len))))
    val noMagic = good.clone(); noMagic(7) = 0
    intercept[CorruptFileException](Fsst.parseSymbolTable(bytes(noMagic)))
    val zeroLen = good.clone(); zeroLen(8 + 8 * 6 + 2) = 0
    intercept[CorruptFileException](Fsst.parseSymbolTable(bytes(zeroLen)))
    val nineLen = good.clone(); nineLen(8 + 8 * 6) = 9
    intercept[CorruptFileException](Fsst.parseSymbolTable(bytes(nineLen)))
    val e = intercept[CorruptFileException](Fsst.parseSymbolTable(java.util.Arrays.copyOf(good, 100), "page 3"))
    assert(e.getMessage.contains("page 3"))
  }

  test("codes without a symbol, a dangling escape and bad offsets are CorruptFile errors") {
    val table = Fsst.parseSymbolTable(bytes(Fsst.symbolTable(Symbols)))
    intercept[CorruptFileException](Fsst.decode(table, vd(Array(0, 1), Array[Byte](6))))
    intercept[CorruptFileException](Fsst.decode(table, vd(Array(0, 1), Array[Byte](-2))))
    intercept[CorruptFileException](Fsst.decode(table, vd(Array(0, 2), Array[Byte](0, -1))))
    // An escape may not take its literal from the next value.
    intercept[CorruptFileException](Fsst.decode(table, vd(Array(0, 1, 2), Array[Byte](-1, 'a'))))
    intercept[CorruptFileException](decodeValue(table, Array[Byte](1, -1)))
    intercept[CorruptFileException](Fsst.decode(table, vd(Array(0, 3), Array[Byte](0, 0))))
    intercept[CorruptFileException](Fsst.decode(table, vd(Array(1, 0), Array[Byte](0, 0))))
    intercept[CorruptFileException](Fsst.decode(table, vd(Array(-1, 1), Array[Byte](0, 0))))
    intercept[CorruptFileException](Fsst.decode(table, vd(Array(5), Array[Byte](0, 0))))
    intercept[CorruptFileException](Fsst.decode(table, vd(Array.emptyIntArray, Array[Byte](0, 0))))
  }

  test("damaged tables and data raise CorruptFile or decode, never anything else") {
    val strings = (0 until 300).map(PylanceChunks.fsstValue)
    val data = VariableData.of(strings.map(b))
    val rawTable = hex(PylanceChunks.FsstTableHex)
    val table = Fsst.parseSymbolTable(bytes(rawTable))
    val chunk = hex(PylanceChunks.FsstChunk0Hex)
    for ((what, t) <- damaged(rawTable, 1)) corruptOrOk(what)(Fsst.decode(Fsst.parseSymbolTable(bytes(t)), data))
    for ((what, c) <- damaged(chunk, 2))
      corruptOrOk(what)(Fsst.decode(table, VariableLayout.decodeMiniBlock(bytes(c), 32, 256)))
  }
}
