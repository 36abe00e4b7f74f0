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

import io.sparklance.util.{Bytes, Errors}

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
      throw corrupt(0, s"FSST symbol table header 0x${header.toHexString} does not carry the magic \"FSST\" (0x${Magic.toHexString}) in its high half")
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

  /** Decompresses every value of `compressed`. */
  def decode(table: FsstSymbolTable, compressed: VariableData): VariableData =
    decode(table, compressed.offsets, compressed.bytes)

  /**
   * Decompresses the values `bytes(offsets(i) until offsets(i + 1))`. The offsets need not start
   * at 0 but must be non-decreasing within `bytes`. The result's offsets start at 0.
   */
  def decode(table: FsstSymbolTable, offsets: Array[Int], bytes: Array[Byte]): VariableData = {
    val n = offsets.length - 1
    if (n < 0) throw Errors.corrupt(table.path, "FSST values come with no offsets")
    if (offsets(0) < 0 || offsets(0) > bytes.length)
      throw Errors.corrupt(table.path, s"FSST values start at ${offsets(0)}, outside the ${bytes.length} compressed bytes")
    var i = 0
    while (i < n) {
      if (offsets(i + 1) < offsets(i) || offsets(i + 1) > bytes.length)
        throw Errors.corrupt(table.path,
          s"FSST value $i spans [${offsets(i)}, ${offsets(i + 1)}), not within the ${bytes.length} compressed bytes")
      i += 1
    }
    if (!table.encoderSwitch) {
      if (offsets(0) == 0 && offsets(n) == bytes.length) return new VariableData(offsets, bytes)
      val rebased = offsets.map(_ - offsets(0))
      return new VariableData(rebased, java.util.Arrays.copyOfRange(bytes, offsets(0), offsets(n)))
    }
    val total = decodedLength(table, offsets, bytes)
    val out = new Array[Byte](total)
    val outOffsets = new Array[Int](n + 1)
    var o = 0
    var v = 0
    while (v < n) {
      o = expand(table, bytes, offsets(v), offsets(v + 1), out, o)
      v += 1
      outOffsets(v) = o
    }
    new VariableData(outOffsets, out)
  }

  /** Decompresses one value (full-zip pages compress each value on its own). */
  def decodeValue(table: FsstSymbolTable, value: Array[Byte]): Array[Byte] =
    if (!table.encoderSwitch) value
    else {
      val bounds = Array(0, value.length)
      val out = new Array[Byte](decodedLength(table, bounds, value))
      expand(table, value, 0, value.length, out, 0)
      out
    }

  /**
   * Validates every code and returns the exact output size, so the output is allocated from a
   * size bounded by the input (at most 8 bytes out per byte in) and nothing is written from
   * unchecked codes.
   */
  private def decodedLength(table: FsstSymbolTable, offsets: Array[Int], in: Array[Byte]): Int = {
    val lengths = table.lengths
    val numSymbols = table.numSymbols
    var total = 0L
    var v = 0
    while (v < offsets.length - 1) {
      var p = offsets(v)
      val end = offsets(v + 1)
      while (p < end) {
        val c = in(p) & 0xff
        if (c == Escape) {
          if (p + 1 >= end)
            throw Errors.corrupt(table.path,
              s"FSST value $v ends with an escape code at byte ${p - offsets(v)} and no byte after it")
          total += 1
          p += 2
        } else {
          if (c >= numSymbols)
            throw Errors.corrupt(table.path,
              s"FSST value $v uses code $c at byte ${p - offsets(v)}, but the symbol table has $numSymbols symbols")
          total += lengths(c)
          p += 1
        }
      }
      v += 1
    }
    if (total > MaxSymbolLength.toLong * (offsets(offsets.length - 1) - offsets(0)))
      throw new IllegalStateException(s"FSST output of $total bytes is more than 8 times its input")
    if (total > GeneralCompression.MaxArrayBytes)
      throw Errors.unsupported(s"an FSST page that decompresses to $total bytes (over 2 GiB)", table.path)
    total.toInt
  }

  /** Writes the expansion of `in(from until to)` at `out(o)`; codes were checked by `decodedLength`. */
  private def expand(table: FsstSymbolTable, in: Array[Byte], from: Int, to: Int, out: Array[Byte], o0: Int): Int = {
    val symbols = table.symbols
    val lengths = table.lengths
    var o = o0
    var p = from
    while (p < to) {
      val c = in(p) & 0xff
      if (c == Escape) {
        out(o) = in(p + 1)
        o += 1
        p += 2
      } else {
        var s = symbols(c)
        val len = lengths(c)
        var k = 0
        while (k < len) { out(o + k) = s.toByte; s >>>= 8; k += 1 }
        o += len
        p += 1
      }
    }
    o
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
    symbols.foreach { s =>
      var word = 0L
      var i = s.length - 1
      while (i >= 0) { word = (word << 8) | (s(i) & 0xffL); i -= 1 }
      buf.putLong(word)
    }
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
    val out = new java.io.ByteArrayOutputStream(data.bytes.length)
    val offsets = new Array[Int](data.numValues + 1)
    val in = data.bytes
    var v = 0
    while (v < data.numValues) {
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
