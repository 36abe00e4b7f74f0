package io.sparklance.util

import scala.util.matching.Regex

/**
 * The parts of the Scala 2.13 library we use that 2.12 lacks (the Spark 3.5 line's Scala 2.12
 * build), under the same import as the 2.13 twin (src/main/scala-2.13). ArraySeq and
 * CollectionConverters come from scala-collection-compat, which Spark 3.5 ships.
 */
object ScalaCompat {
  type ArraySeq[+A] = scala.collection.compat.immutable.ArraySeq[A]
  val ArraySeq: scala.collection.compat.immutable.ArraySeq.type = scala.collection.compat.immutable.ArraySeq

  /** 2.12's Ordering.Double already orders as java.lang.Double.compare does. */
  val DoubleTotalOrdering: Ordering[Double] = Ordering.Double

  /** 2.13's String parsing to options: None where the text is not a number (or boolean). */
  implicit final class StringParsing(private val s: String) extends AnyVal {
    private def parsed[A](f: String => A): Option[A] = try Some(f(s)) catch { case _: NumberFormatException => None }
    def toIntOption: Option[Int] = parsed(_.toInt)
    def toLongOption: Option[Long] = parsed(_.toLong)
    def toDoubleOption: Option[Double] = parsed(_.toDouble)
    def toBooleanOption: Option[Boolean] = s.toLowerCase(java.util.Locale.ROOT) match {
      case "true" => Some(true)
      case "false" => Some(false)
      case _ => None
    }
  }

  implicit final class TraversableOptions[A](private val xs: TraversableOnce[A]) extends AnyVal {
    def maxOption[B >: A](implicit ord: Ordering[B]): Option[A] = if (xs.isEmpty) None else Some(xs.max[B])
    def minOption[B >: A](implicit ord: Ordering[B]): Option[A] = if (xs.isEmpty) None else Some(xs.min[B])
    def maxByOption[B](f: A => B)(implicit ord: Ordering[B]): Option[A] = if (xs.isEmpty) None else Some(xs.maxBy(f))
  }

  implicit final class IteratorOptions[A](private val it: Iterator[A]) extends AnyVal {
    def nextOption(): Option[A] = if (it.hasNext) Some(it.next()) else None
  }

  implicit final class RegexMatches(private val r: Regex) extends AnyVal {
    def matches(s: CharSequence): Boolean = r.pattern.matcher(s).matches()
  }
}
