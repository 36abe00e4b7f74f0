package io.sparklance.table.expr

/**
 * The order Arrow, Lance's statistics and indices, and Spark give strings: by their UTF-8
 * bytes, which is code point order. Java's `compareTo` orders UTF-16 units instead, which
 * differs above U+FFFF (U+1F600 sorts before U+FFEE there), so bounds compared with it can
 * prune rows that match.
 */
object StringOrder {
  def compare(x: String, y: String): Int = {
    var i = 0
    var j = 0
    while (i < x.length && j < y.length) {
      val a = x.codePointAt(i)
      val b = y.codePointAt(j)
      if (a != b) return Integer.compare(a, b)
      i += Character.charCount(a)
      j += Character.charCount(b)
    }
    Integer.compare(x.length - i, y.length - j)
  }

  val ordering: Ordering[String] = (x: String, y: String) => compare(x, y)

  /** `s` cut to its first `codePoints` code points (whole, never half a surrogate pair). */
  def prefix(s: String, codePoints: Int): String =
    if (s.codePointCount(0, s.length) <= codePoints) s else s.substring(0, s.offsetByCodePoints(0, codePoints))
}
