package io.sparklance.testutil

import scala.reflect.ClassTag

import org.scalatest.Assertions

/** Errors raised in tasks, as the caller gets them on the line's Spark ([[TaskFailures]]). */
object InTask extends Assertions {
  /** The error of type `T` that `f` fails with, unwrapped from Spark 3.5's job failure. */
  def error[T <: Throwable](f: => Any)(implicit t: ClassTag[T]): T =
    (try { f; None } catch { case e: Throwable => Some(TaskFailures.unwrap(e)) }) match {
      case Some(e: T) => e
      case Some(other) => fail(s"expected ${t.runtimeClass.getName}, got $other", other)
      case None => fail(s"expected ${t.runtimeClass.getName}, but nothing was thrown")
    }
}
