package io.sparklance.spark.procedures

/** What the compaction suites' pylance scripts share. */
object CompactTables {

  /**
   * The start of a pylance script that changes the table (id int64, cat string, v int64) at
   * argv[1], argv[2] being the JSON list [op, args...]: the imports, the arguments and `rows(lo, hi)`.
   * The script's own `if op == ...` lines follow it.
   */
  val PylancePrelude: String =
    """|import sys, json, lance, pyarrow as pa
      |path, (op, *args) = sys.argv[1], json.loads(sys.argv[2])
      |def rows(lo, hi):
      |    ids = list(range(lo, hi))
      |    return pa.table({"id": pa.array(ids, pa.int64()), "cat": pa.array(["c%d" % (i % 7) for i in ids]),
      |                     "v": pa.array([i * 10 for i in ids], pa.int64())})
      |""".stripMargin
}
