package io.sparklance.table.expr

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** A long IN list (a MERGE source's keys) prunes a zone exactly as checking every value would. */
class InListSuite extends AnyFunSuite {
  private def may(e: Expr, min: Option[Any], max: Option[Any], nulls: Long = 0) =
    InclusiveEvaluator.mayMatch(e, _ => Some(ColumnStats(min, max, nulls, 100)))

  test("sorted look-up agrees with a value-by-value check on random lists and zones") {
    val rnd = new Random(7)
    (1 to 300).foreach { _ =>
      val values = Seq.fill(rnd.nextInt(200) + 9)(rnd.nextInt(10000).toLong)
      val lo = rnd.nextInt(10000).toLong
      val hi = lo + rnd.nextInt(300)
      val expected = values.exists(v => v >= lo && v <= hi)
      assert(may(Expr.In("k", values), Some(lo), Some(hi)) == expected, (lo, hi))
    }
  }

  test("strings by code point, doubles, unknown bounds, other kinds, all-null zones") {
    val strings = (1 to 20).map(i => f"k$i%03d") :+ "\ud83d\ude00"
    assert(may(Expr.In("s", strings), Some("k0105"), Some("k0109")) == false) // between k010 and k011
    assert(may(Expr.In("s", strings), Some("\uffee"), Some("\ud83d\ude01"))) // U+1F600 lies above U+FFEE
    val doubles = (1 to 20).map(_ * 1.5)
    assert(!may(Expr.In("d", doubles), Some(30.1), Some(40.0)))
    assert(may(Expr.In("d", doubles), Some(29.0), Some(30.0)))
    assert(may(Expr.In("d", doubles), None, Some(1.0)) == false && may(Expr.In("d", doubles), None, Some(1.5)))
    assert(may(Expr.In("d", doubles), Some(30.0), None) && !may(Expr.In("d", doubles), Some(30.5), None))
    // A bound of another kind never prunes.
    assert(may(Expr.In("d", doubles), Some("a"), Some("b")))
    // A zone of nulls holds no key.
    assert(!InclusiveEvaluator.mayMatch(Expr.In("k", (1L to 20L)), _ => Some(ColumnStats(None, None, 100, 100))))
  }
}
