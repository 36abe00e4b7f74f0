package io.sparklance.testutil

import org.apache.spark.SparkException

import io.sparklance.spark.LanceSparkException

/**
 * What a caller catches when a Lance error fails a task. Spark 3.5 wraps it in its job failure
 * (a SparkException "Job aborted due to stage failure" whose cause is ours); Spark 4 rethrows it
 * as it is. `unwrap` gives ours either way, and only from such a job failure.
 */
object TaskFailures {
  def unwrap(e: Throwable): Throwable = e match {
    case job: SparkException if job.getMessage != null && job.getMessage.startsWith("Job aborted due to stage failure") =>
      Iterator.iterate(job.getCause)(_.getCause).takeWhile(_ != null).collectFirst { case l: LanceSparkException => l }.getOrElse(e)
    case other => other
  }
}
