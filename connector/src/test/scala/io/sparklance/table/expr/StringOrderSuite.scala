package io.sparklance.table.expr

import org.scalatest.funsuite.AnyFunSuite

/** Strings compare by code point, as Arrow and Spark order them, when bounds prune. */
class StringOrderSuite extends AnyFunSuite {
  private val halfwidth = "\uffee-halfwidth" // U+FFEE: above every surrogate unit
  private val emoji = "\ud83d\ude00 emoji" // U+1F600: a surrogate pair in UTF-16

  test("code points above U+FFFF sort after the BMP, unlike UTF-16 units") {
    assert(halfwidth.compareTo(emoji) > 0) // Java's own order gets it backwards
    assert(StringOrder.compare(halfwidth, emoji) < 0)
    assert(StringOrder.compare("ab", "abc") < 0 && StringOrder.compare("abc", "abc") == 0)
    assert(StringOrder.prefix(emoji, 1) == "\ud83d\ude00" && StringOrder.prefix("ab", 5) == "ab")
  }

  test("a zone spanning U+FFEE to U+1F600 may hold either") {
    val stats = ColumnStats(Some(halfwidth), Some(emoji), 0, 10)
    def may(e: Expr) = InclusiveEvaluator.mayMatch(e, _ => Some(stats))
    assert(may(Expr.Compare("s", Expr.Eq, halfwidth)))
    assert(may(Expr.Compare("s", Expr.Eq, emoji)))
    assert(may(Expr.In("s", Seq("\uffff"))))
    assert(may(Expr.StartsWith("s", "\ud83d\ude00")))
    assert(!may(Expr.Compare("s", Expr.Eq, "a"))) // below the zone
    assert(!may(Expr.StartsWith("s", "\ud83d\ude01"))) // above the zone
  }
}
