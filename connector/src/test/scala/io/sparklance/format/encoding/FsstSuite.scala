package io.sparklance.format.encoding

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.format.encoding.EncodingFixtures._
import io.sparklance.util.CorruptFileException
import org.scalatest.funsuite.AnyFunSuite

class FsstSuite extends AnyFunSuite {

  private def b(s: String): Array[Byte] = s.getBytes(UTF_8)
  private val Symbols = Seq(b("hello"), b(" "), b("world"), b("lo"), b("abcdefgh"), b("x"))

  test("a hand-built table decodes symbols and escapes") {
    val table = Fsst.parseSymbolTable(bytes(Fsst.symbolTable(Symbols)))
    assert(table.encoderSwitch && table.numSymbols == 6)
    assert(table.symbol(4).sameElements(b("abcdefgh")))
    // "hello world!" = hello, ' ', world, escape '!'; "" ; "lolo?x" = lo, lo, escape '?', x
    val compressed = Array[Byte](0, 1, 2, -1, '!', 3, 3, -1, '?', 5, 4, -1, -1)
    val out = Fsst.decode(table, Array(0, 5, 5, 10, 13), compressed)
    assert(out.numValues == 4)
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
    assert(out.numValues == 256)
    for (i <- 0 until 256) assert(new String(out.value(i), UTF_8) == PylanceChunks.fsstValue(i), s"value $i")
    assert(Fsst.decodeValue(table, compressed.value(77)).sameElements(b(PylanceChunks.fsstValue(77))))
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
    assert(decodedBare.bytes.sameElements(data.bytes) && decodedBare.offsets.sameElements(data.offsets))
  }

  test("encoder switch off: values pass through verbatim, rebased if they do not start at 0") {
    val table = Fsst.parseSymbolTable(bytes(Fsst.verbatimSymbolTable()))
    assert(!table.encoderSwitch && table.numSymbols == 0)
    val raw = b("..abcdef")
    val out = Fsst.decode(table, Array(2, 4, 8), raw)
    assert(new String(out.bytes, UTF_8) == "abcdef" && out.offsets.sameElements(Array(0, 2, 6)))
    // Code 255 and unknown codes mean nothing when the switch is off.
    assert(Fsst.decodeValue(table, Array[Byte](-1, 7)).sameElements(Array[Byte](-1, 7)))
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
    intercept[CorruptFileException](Fsst.decode(table, Array(0, 1), Array[Byte](6)))
    intercept[CorruptFileException](Fsst.decode(table, Array(0, 1), Array[Byte](-2)))
    intercept[CorruptFileException](Fsst.decode(table, Array(0, 2), Array[Byte](0, -1)))
    // An escape may not take its literal from the next value.
    intercept[CorruptFileException](Fsst.decode(table, Array(0, 1, 2), Array[Byte](-1, 'a')))
    intercept[CorruptFileException](Fsst.decodeValue(table, Array[Byte](1, -1)))
    intercept[CorruptFileException](Fsst.decode(table, Array(0, 3), Array[Byte](0, 0)))
    intercept[CorruptFileException](Fsst.decode(table, Array(1, 0), Array[Byte](0, 0)))
    intercept[CorruptFileException](Fsst.decode(table, Array(-1, 1), Array[Byte](0, 0)))
    intercept[CorruptFileException](Fsst.decode(table, Array(5), Array[Byte](0, 0)))
    intercept[CorruptFileException](Fsst.decode(table, Array.emptyIntArray, Array[Byte](0, 0)))
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
