package io.sparklance.spark.compat

import org.apache.spark.sql.sources.CreatableRelationProvider
import org.apache.spark.sql.types.DataType

/**
 * A DataFrame writer's source that takes every column type. Spark 4.0+ asks before
 * createRelation whether each column's type can be written (supportsDataType), by default
 * refusing interval types; the write's own schema mapping (WriteSchema) stores what Lance can hold
 * (DAY TO SECOND intervals as durations) and refuses the rest with an error naming the column.
 */
trait EveryTypeWritable extends CreatableRelationProvider {
  override def supportsDataType(dt: DataType): Boolean = true
}
