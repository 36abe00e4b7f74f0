package io.sparklance.spark.compat

import org.apache.spark.sql.sources.CreatableRelationProvider

/** A DataFrame writer's source; Spark 3.5 does not ask it which column types it can write (4.0 does). */
trait EveryTypeWritable extends CreatableRelationProvider
