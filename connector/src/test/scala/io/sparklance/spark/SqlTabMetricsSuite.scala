package io.sparklance.spark

import java.io.File

import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{CatalogTables, LineBehaviour}

/**
 * The Lance metrics as the Spark UI's SQL tab shows them: read from the SQL status store (what
 * the UI renders) after each statement, and compared with what the table shows happened.
 */
class SqlTabMetricsSuite extends AnyFunSuite with CatalogTables {

  /** The metrics, by description, of the last completed execution showing `marker`, once the UI's listener has them. */
  private def lastMetrics(marker: String, after: Long): Metrics = {
    val status = spark.sharedState.statusStore
    def found = status.executionsList().filter(e => e.executionId > after && e.completionTime.isDefined &&
      status.planGraph(e.executionId).allNodes.exists(_.metrics.exists(_.name == marker))).sortBy(_.executionId).lastOption
    val deadline = System.nanoTime() + 20L * 1000 * 1000 * 1000
    while (found.forall(e => e.metricValues == null || e.metricValues.isEmpty) && System.nanoTime() < deadline) Thread.sleep(50)
    val exec = found.getOrElse(fail(s"no execution shows '$marker'"))
    val values = exec.metricValues
    Metrics(status.planGraph(exec.executionId).allNodes.flatMap(_.metrics)
      .flatMap(m => values.get(m.accumulatorId).map(m.name -> _)).toMap)
  }

  /** An execution's metric values as the UI shows them; ours are plain sums. */
  private case class Metrics(shown: Map[String, String]) {
    def apply(name: String): Long = withClue(shown) { shown(name).replaceAll("[^0-9]", "").toLong }
  }

  private def lastId: Long = {
    val all = spark.sharedState.statusStore.executionsList()
    if (all.isEmpty) -1L else all.map(_.executionId).max
  }

  private def dataBytes(table: String): Long =
    snapshot(table).manifest.fragments.flatMap(_.files).map(f => new File(s"${location(table)}/data/${f.path}").length()).sum

  // Spark 3.5 shows the reads' metrics only: its writes' are incomplete (LineBehaviour.writeMetrics).
  test("a read, an append, DELETE, UPDATE and MERGE show their true numbers in the SQL tab") {
    spark.sql("CREATE TABLE m (id BIGINT NOT NULL, name STRING) USING lance OPTIONS (maxRowsPerFile '10')")
    val writes = LineBehaviour.writeMetrics

    var before = lastId
    spark.range(30).coalesce(1).selectExpr("id", "concat('n', id) AS name").writeTo("m").append()
    if (writes) {
      val append = lastMetrics("rows written", before)
      assert(append("rows written") == 30 && append("data files written") == 3, append)
      assert(append("bytes of data files written") == dataBytes("m"), append)
      assert(append("commit attempts") == 1, append)
    }

    before = lastId
    assert(spark.sql("SELECT * FROM m").collect().length == 30)
    val read = lastMetrics("bytes read from Lance data files", before)
    assert(read("fragment pieces read") == 3, read)
    assert(read("bytes read from Lance data files") > 0, read)

    before = lastId
    spark.sql("DELETE FROM m WHERE id IN (1, 2, 15)")
    if (writes) {
      val delete = lastMetrics("commit attempts", before)
      assert(delete("commit attempts") == 1, delete)
    }

    before = lastId
    spark.sql("UPDATE m SET name = 'u' WHERE id < 5")
    if (writes) {
      val update = lastMetrics("commit attempts", before)
      assert(update("rows written") == 3 && update("commit attempts") == 1, update) // ids 0, 3, 4: 1 and 2 are gone
      assert(update("data files written") >= 1, update)
    }

    before = lastId
    spark.createDataFrame(Seq((0L, "a"), (40L, "b"), (41L, "c"))).toDF("id", "name").createOrReplaceTempView("src")
    spark.sql("MERGE INTO m t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET name = s.name " +
      "WHEN NOT MATCHED THEN INSERT *")
    if (writes) {
      val merge = lastMetrics("commit attempts", before)
      assert(merge("rows written") == 3 && merge("commit attempts") == 1, merge)
    }
    assert(spark.sql("SELECT count(*) FROM m").head().getLong(0) == 29)
  }
}
