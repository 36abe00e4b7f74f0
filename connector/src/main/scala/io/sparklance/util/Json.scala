package io.sparklance.util

import scala.collection.mutable

/**
 * A small JSON reader for the little metadata files of a table (tags, branches, the latest
 * version hint). Values come back as String, BigDecimal, Boolean, null, Seq[Any] or
 * Map[String, Any]. Malformed input raises IllegalArgumentException with the position.
 */
object Json {
  /**
   * Arrays and objects nest at most this deep: the parser recurses once per level, and a
   * file of brackets must not overflow the stack (serde_json, which pylance uses, stops
   * at 128 levels too). Lance's own files nest three levels at most.
   */
  val MaxDepth = 128

  /** The most bytes a table's JSON file (a ref, the version hint) may have; pylance's are under 1 KiB. */
  val MaxFileBytes: Long = 1L << 20

  def parse(text: String): Any = {
    val p = new Parser(text)
    val v = p.value()
    p.skipSpace()
    if (!p.atEnd) p.fail("trailing characters")
    v
  }

  private final class Parser(s: String) {
    private var i = 0
    def atEnd: Boolean = i >= s.length
    def fail(what: String): Nothing = throw new IllegalArgumentException(s"$what at character $i")
    def skipSpace(): Unit = while (!atEnd && Character.isWhitespace(s.charAt(i))) i += 1
    private def expect(c: Char): Unit = { skipSpace(); if (atEnd || s.charAt(i) != c) fail(s"expected '$c'"); i += 1 }

    private var depth = 0

    private def nested[T](body: => T): T = {
      if (depth >= MaxDepth) fail(s"arrays and objects nested deeper than $MaxDepth levels")
      depth += 1
      try body finally depth -= 1
    }

    def value(): Any = {
      skipSpace()
      if (atEnd) fail("unexpected end")
      s.charAt(i) match {
        case '{' => nested(obj())
        case '[' => nested(arr())
        case '"' => string()
        case 't' if s.startsWith("true", i) => i += 4; true
        case 'f' if s.startsWith("false", i) => i += 5; false
        case 'n' if s.startsWith("null", i) => i += 4; null
        case c if c == '-' || c.isDigit =>
          val start = i
          i += 1
          while (!atEnd && "0123456789+-.eE".indexOf(s.charAt(i)) >= 0) i += 1
          try BigDecimal(s.substring(start, i)) catch { case _: NumberFormatException => fail("malformed number") }
        case _ => fail("unexpected character")
      }
    }

    private def obj(): Map[String, Any] = {
      i += 1
      val m = mutable.LinkedHashMap.empty[String, Any]
      skipSpace()
      if (!atEnd && s.charAt(i) == '}') { i += 1; return m.toMap }
      var more = true
      while (more) {
        skipSpace()
        val k = string()
        expect(':')
        m(k) = value()
        skipSpace()
        if (!atEnd && s.charAt(i) == ',') i += 1 else { expect('}'); more = false }
      }
      m.toMap
    }

    private def arr(): Vector[Any] = {
      i += 1
      val b = Vector.newBuilder[Any]
      skipSpace()
      if (!atEnd && s.charAt(i) == ']') { i += 1; return b.result() }
      var more = true
      while (more) {
        b += value()
        skipSpace()
        if (!atEnd && s.charAt(i) == ',') i += 1 else { expect(']'); more = false }
      }
      b.result()
    }

    def string(): String = {
      skipSpace()
      if (atEnd || s.charAt(i) != '"') fail("expected a string")
      i += 1
      val b = new StringBuilder
      while (!atEnd && s.charAt(i) != '"') {
        val c = s.charAt(i)
        if (c == '\\') {
          if (i + 1 >= s.length) fail("unterminated escape")
          s.charAt(i + 1) match {
            case 'n' => b += '\n'; case 't' => b += '\t'; case 'r' => b += '\r'; case 'b' => b += '\b'; case 'f' => b += '\f'
            case 'u' =>
              if (i + 6 > s.length) fail("short unicode escape")
              b += Integer.parseInt(s.substring(i + 2, i + 6), 16).toChar
              i += 4
            case other => b += other
          }
          i += 2
        } else { b += c; i += 1 }
      }
      if (atEnd) fail("unterminated string")
      i += 1
      b.toString
    }
  }
}
