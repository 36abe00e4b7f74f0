package io.sparklance.spark.compat

import org.apache.spark.sql.catalyst.expressions.{DynamicPruningSubquery, Expression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** Spark's dynamic pruning filter, whose build key is chosen by one index in Spark 3.5. */
object DynamicPruning {
  /** Keeps the rows whose `key` is among the values of `buildKey` in `build`'s rows. */
  def filter(key: Expression, build: LogicalPlan, buildKey: Expression): Expression =
    DynamicPruningSubquery(key, build, Seq(buildKey), 0, onlyInBroadcast = false)
}
