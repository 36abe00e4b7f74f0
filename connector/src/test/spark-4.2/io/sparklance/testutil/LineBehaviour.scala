package io.sparklance.testutil

/** What Spark itself does differently on this line (Spark 4.2), where a test's expectation depends on it. */
object LineBehaviour {
  /** Spark 4.2 narrows a delta-based UPDATE or MERGE to the groups (our fragments) holding matches with a runtime query; before, they read every fragment. */
  val deltaRuntimeFiltering = true

  /**
   * A write's SQL metrics are complete from Spark 4.0: a task's are read after its last file is
   * finished (DataWriter.writeAll) and the commit's are measured on the driver
   * (Write.reportDriverMetrics). Spark 3.5 has neither.
   */
  val writeMetrics = true

  /** String collations (STRING COLLATE ...) exist from Spark 4.0. */
  val collations = true

  /** INSERT INTO t WITH (options) exists from Spark 4.0. */
  val insertOptions = true
}
