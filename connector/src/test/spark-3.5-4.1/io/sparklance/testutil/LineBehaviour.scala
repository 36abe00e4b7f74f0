package io.sparklance.testutil

/** What Spark itself does differently on this line, where a test's expectation depends on it. */
object LineBehaviour {
  /** Before 4.2 Spark filters at run time only group-based row-level operations: a delta-based UPDATE or MERGE reads every fragment. */
  val deltaRuntimeFiltering = false
}
