package io.sparklance.spark.compat

import org.apache.spark.sql.catalyst.expressions.{DynamicPruningSubquery, Expression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** Spark's dynamic pruning filter, whose build keys are chosen by a list of indices from Spark 4.0. */
object DynamicPruning {
  /** Keeps the rows whose `key` is among the values of `buildKey` in `build`'s rows. */
  def filter(key: Expression, build: LogicalPlan, buildKey: Expression): Expression =
    DynamicPruningSubquery(key, build, Seq(buildKey), Seq(0), onlyInBroadcast = false)
}
