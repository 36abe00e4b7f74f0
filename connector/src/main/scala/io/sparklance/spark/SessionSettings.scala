package io.sparklance.spark

import org.apache.spark.sql.SparkSession

import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

/** The connector's own session settings (`spark.sql.lance.*`), parsed where they are read; a bad value is named (LANCE_INVALID_OPTION). */
object SessionSettings {
  /** The whole number `key` is set to in `session` (at least `min`), else `default`. */
  def long(session: SparkSession, key: String, default: Long, min: Long): Long = LanceSparkException.boundary {
    session.conf.getOption(key).fold(default) { v =>
      v.trim.toLongOption.filter(_ >= min).getOrElse(throw Errors.invalidOption(key, v, s"a whole number of at least $min"))
    }
  }
}
