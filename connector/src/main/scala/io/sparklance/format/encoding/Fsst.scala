// Spec: lance-format/lance rust/compression/fsst (Lance's own FSST, not libfsst's wire format),
// rust/lance-encoding/src/encodings/physical/fsst.rs, protos/encodings_v2_1.proto `Fsst`;
// docs/src/format/file/encoding.md "Fsst".
//
// `Fsst.symbol_table` is always 2312 bytes = 8 + 256·8 + 256:
//   bytes 0..7   u64 LE header: "FSST" (0x46535354) << 32 | encoder_switch << 24 | suffix_lim << 16
//                | terminator << 8 | n_symbols
//   then         n_symbols u64 LE words, the symbol's bytes in order from the low byte
//   then         n_symbols u8 symbol lengths (1..8); the rest is zero
// A compressed string is a sequence of codes: code 255 escapes the next byte, which is output
// literally; any other code c outputs the first len(c) bytes of symbol c. suffix_lim and terminator
// only steer the encoder. When the writer's input is under 32 KiB it builds no table, clears the
// encoder switch and stores the strings verbatim; the page is still described as FSST.
//
// The compressed strings reach us as (offsets, bytes) from the Variable layer beneath (mini-block)
// or from full-zip values; the symbol table sits in the page's encoding description.
package io.sparklance.format.encoding

import java.nio.{ByteBuffer, ByteOrder}

import io.sparklance.util.{Bytes, Errors, LittleEndian => LE}

/** A parsed, validated FSST symbol table; `path` names its page for error messages. */
final class FsstSymbolTable private[encoding] (
    val path: String,
    val encoderSwitch: Boolean,
    val numSymbols: Int,
    private[encoding] val symbols: Array[Long],
    private[encoding] val lengths: Array[Int]) {

  def symbol(code: Int): Array[Byte] = {
    require(code >= 0 && code < numSymbols, s"code $code outside 0..${numSymbols - 1}")
    Array.tabulate(lengths(code))(i => (symbols(code) >>> (8 * i)).toByte)
  }

  override def toString: String = s"FsstSymbolTable($numSymbols symbols, encoderSwitch=$encoderSwitch)"
}

object Fsst {

  final val SymbolTableBytes = 8 + 256 * 8 + 256
  final val Escape = 255
  final val MaxSymbolLength = 8
  private final val Magic = 0x46535354L

  /**
   * Parses a table held in an encoding description (a protobuf bytes field, so it has no file
   * offset of its own); `where` names the page for errors.
   */
  def parseSymbolTable(table: Array[Byte], where: String): FsstSymbolTable =
    parse(Bytes.wrap(where, 0, table), (off, detail) => Errors.corrupt(where, s"$detail (byte $off of the FSST symbol table)"))

  /** Parses a table read from a file. */
  def parseSymbolTable(table: Bytes): FsstSymbolTable =
    parse(table, (off, detail) => Errors.corrupt(table.path, table.fileOffset + off, detail))

  private def parse(table: Bytes, corrupt: (Long, String) => Exception): FsstSymbolTable = {
    if (table.length != SymbolTableBytes)
      throw corrupt(0, s"FSST symbol table is ${table.length} bytes; Lance always writes $SymbolTableBytes")
    val header = table.i64(0)
    if ((header >>> 32) != Magic)
      throw corrupt(0, s"FSST symbol table header 0x${header.toHexString} does not carry the magic 'FSST' (0x${Magic.toHexString}) in its high half")
    // Bit 24 alone is the switch, as in the Rust decoder; the other bits of that byte are unused.
    val encoderSwitch = (header & (1L << 24)) != 0
    // A u8, so at most 255: code 255 is always the escape and never a symbol.
    val n = (header & 0xff).toInt
    val symbols = new Array[Long](n)
    val lengths = new Array[Int](n)
    var i = 0
    while (i < n) {
      symbols(i) = table.i64(8 + 8L * i)
      lengths(i) = table.u8(8 + 8L * n + i)
      // A verbatim page never looks at the symbols, so only a table in use must be well formed.
      if (encoderSwitch && (lengths(i) < 1 || lengths(i) > MaxSymbolLength))
        throw corrupt(8 + 8L * n + i, s"FSST symbol $i has length ${lengths(i)}; symbols are 1..$MaxSymbolLength bytes")
      i += 1
    }
    new FsstSymbolTable(table.path, encoderSwitch, n, symbols, lengths)
  }

  /**
   * Decompresses every value of `compressed` into one growing array. `compressed` comes from the
   * Variable layer (mini-block chunks) or a 2.0 binary page; its offsets are checked again here.
   */
  def decode(table: FsstSymbolTable, compressed: VariableData): VariableData = decode(table, compressed, TypicalExpansion)

  /** FSST typically shrinks text to a third or a quarter. */
  private final val TypicalExpansion = 4.0

  /**
   * Decodes the chunks of one page with its table. It remembers how much the last chunk grew,
   * so that the next chunk's output array is sized right the first time rather than grown (and
   * copied) near its end.
   */
  final class Decoder(table: FsstSymbolTable) {
    private var expansion = TypicalExpansion

    def decode(compressed: VariableData): VariableData = {
      val out = Fsst.decode(table, compressed, expansion)
      if (compressed.dataLength > 0) expansion = out.dataLength.toDouble / compressed.dataLength
      out
    }
  }

  /** `expansion`: the expected output bytes per compressed byte, to size the output. */
  private def decode(table: FsstSymbolTable, compressed: VariableData, expansion: Double): VariableData = {
    val offsets = compressed.offsets
    val in = compressed.bytes
    val n = compressed.count
    if (n < 0) throw Errors.corrupt(table.path, "FSST values come with no offsets")
    if (offsets(0) != 0)
      throw Errors.corrupt(table.path, s"FSST values start at ${offsets(0)}, not at byte 0 of the compressed bytes")
    var longest = 0
    var i = 0
    while (i < n) {
      if (offsets(i + 1) < offsets(i) || offsets(i + 1) > in.length)
        throw Errors.corrupt(table.path,
          s"FSST value $i spans [${offsets(i)}, ${offsets(i + 1)}), not within the ${in.length} compressed bytes")
      longest = math.max(longest, offsets(i + 1) - offsets(i))
      i += 1
    }
    if (!table.encoderSwitch) return compressed
    // Room for the expected output plus the worst case of the last value (see `expand`), with
    // a little margin, so that growing is the exception.
    val expected = (expansion * 1.05 * offsets(n)).toLong + MaxSymbolLength.toLong * longest + 16
    val out = new VariableDataBuilder(n, expected, table.path)
    var v = 0
    while (v < n) {
      expand(table, in, offsets(v), offsets(v + 1), out, v)
      v += 1
    }
    out.result()
  }

  /**
   * Decompresses `in(from until to)` as the next value of `out` (full-zip pages compress each
   * value on its own); `index` numbers the value for error messages.
   */
  def decodeValue(table: FsstSymbolTable, in: Array[Byte], from: Int, to: Int, out: VariableDataBuilder, index: Int): Unit =
    if (!table.encoderSwitch) out.append(in, from, to - from)
    else expand(table, in, from, to, out, index)

  /**
   * Writes the expansion of `in(from until to)` as the next value of `out`, checking every code.
   * Each symbol is written as one 8-byte word (its bytes from the low end), and the output moves
   * on by the symbol's length; an escape writes one byte. A code of at most 8 bytes per input
   * byte then never writes past `8 * (to - from)` bytes after the value's start, which is the
   * room reserved.
   */
  private def expand(table: FsstSymbolTable, in: Array[Byte], from: Int, to: Int, out: VariableDataBuilder, index: Int): Unit = {
    val buf = out.reserve(MaxSymbolLength.toLong * (to - from))
    val symbols = table.symbols
    val lengths = table.lengths
    val numSymbols = table.numSymbols
    var o = out.end
    var p = from
    while (p < to) {
      val c = in(p) & 0xff
      if (c < numSymbols) {
        LE.putLong(buf, o, symbols(c))
        o += lengths(c)
        p += 1
      } else if (c == Escape && p + 1 < to) {
        buf(o) = in(p + 1)
        o += 1
        p += 2
      } else if (c == Escape) {
        throw Errors.corrupt(table.path, s"FSST value $index ends with an escape code at byte ${p - from} and no byte after it")
      } else {
        throw Errors.corrupt(table.path,
          s"FSST value $index uses code $c at byte ${p - from}, but the symbol table has $numSymbols symbols")
      }
    }
    out.endValue(o)
  }

  // ---- writer side -------------------------------------------------------------------------------

  /** The table the Rust writer emits for small pages: switch off, no symbols; values stay verbatim. */
  def verbatimSymbolTable(): Array[Byte] = {
    val out = new Array[Byte](SymbolTableBytes)
    ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).putLong(Magic << 32)
    out
  }

  /**
   * A table with the switch on and the given symbols (1..8 bytes each, at most 255). suffix_lim
   * and terminator are left 0: no decoder reads them.
   */
  def symbolTable(symbols: Seq[Array[Byte]]): Array[Byte] = {
    require(symbols.size <= 255, s"${symbols.size} symbols; FSST allows at most 255")
    symbols.foreach(s => require(s.length >= 1 && s.length <= MaxSymbolLength, s"symbol of ${s.length} bytes"))
    val out = new Array[Byte](SymbolTableBytes)
    val buf = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN)
    buf.putLong((Magic << 32) | (1L << 24) | symbols.size.toLong)
    symbols.foreach(s => buf.putLong(LE.getLongUpTo(s, 0, s.length)))
    symbols.foreach(s => buf.put(s.length.toByte))
    out
  }

  /**
   * Compresses `data` with a fixed symbol list by greedy longest match, escaping bytes no symbol
   * covers. Not the Rust encoder (which also builds the table from a sample), but its output
   * decodes with any FSST decoder given `symbolTable(symbols)`.
   */
  def encode(symbols: Seq[Array[Byte]], data: VariableData): VariableData = {
    require(symbols.size <= 255, s"${symbols.size} symbols; FSST allows at most 255")
    val byFirst = Array.fill(256)(List.empty[Int])
    symbols.indices.reverse.foreach(c => byFirst(symbols(c)(0) & 0xff) ::= c)
    val out = new java.io.ByteArrayOutputStream(data.dataLength)
    val offsets = new Array[Int](data.count + 1)
    val in = data.bytes
    var v = 0
    while (v < data.count) {
      var p = data.offsets(v)
      val end = data.offsets(v + 1)
      while (p < end) {
        var best = -1
        var bestLen = 0
        byFirst(in(p) & 0xff).foreach { c =>
          val s = symbols(c)
          if (s.length > bestLen && s.length <= end - p && java.util.Arrays.equals(s, 0, s.length, in, p, p + s.length)) {
            best = c
            bestLen = s.length
          }
        }
        if (best >= 0) { out.write(best); p += bestLen }
        else { out.write(Escape); out.write(in(p) & 0xff); p += 1 }
      }
      v += 1
      offsets(v) = out.size()
    }
    new VariableData(offsets, out.toByteArray)
  }
}
