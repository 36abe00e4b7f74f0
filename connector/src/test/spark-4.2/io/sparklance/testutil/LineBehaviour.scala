package io.sparklance.testutil

/** What Spark itself does differently on this line, where a test's expectation depends on it. */
object LineBehaviour {
  /** Spark 4.2 narrows a delta-based UPDATE or MERGE to the groups (our fragments) holding matches with a runtime query. */
  val deltaRuntimeFiltering = true
}
