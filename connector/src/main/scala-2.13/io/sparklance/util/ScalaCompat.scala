package io.sparklance.util

/**
 * What Scala 2.12 lacks of the 2.13 library we use, under one import (`ScalaCompat._`) that every
 * Scala version compiles: on 2.13 it holds only names for what the standard library has.
 * The 2.12 twin (src/main/scala-2.12) adds the rest.
 */
object ScalaCompat {
  type ArraySeq[+A] = scala.collection.immutable.ArraySeq[A]
  val ArraySeq: scala.collection.immutable.ArraySeq.type = scala.collection.immutable.ArraySeq

  /** Doubles ordered as java.lang.Double.compare does (NaN largest, -0.0 below 0.0). */
  val DoubleTotalOrdering: Ordering[Double] = Ordering.Double.TotalOrdering
}
