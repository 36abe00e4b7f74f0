package io.sparklance.spark

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{Golden, LocalSpark}

/**
 * Filters prune fragments and zones through the ZONEMAP index, fragments the index does
 * not cover are still read, and the rows are exactly those of the unpruned query.
 */
class PruningSuite extends AnyFunSuite with LocalSpark {
  private lazy val uri = Golden.dataset("indexed").uri

  private def run(q: DataFrame): (Seq[org.apache.spark.sql.Row], Map[String, Long]) = {
    val rows = q.collect().toSeq
    val scan = q.queryExecution.executedPlan.collectFirst { case s: BatchScanExec => s }.get
    (rows, scan.metrics.map { case (k, v) => k -> v.value })
  }

  test("a narrow range on the zone-mapped column prunes zones and fragments") {
    val df = spark.read.format("lance").load(uri)
    val all = df.select("id").collect().map(_.getLong(0)).toSet
    val (rows, metrics) = run(df.where("id >= 5000 AND id < 5020").select("id"))
    assert(rows.map(_.getLong(0)).toSet == all.filter(i => i >= 5000 && i < 5020))
    assert(metrics("lanceZonesPruned") > 0, metrics)
    assert(metrics("lanceFragmentsPruned") > 0, metrics)
  }

  test("IN lists, OR, NOT and IS NULL keep every matching row") {
    val df = spark.read.format("lance").load(uri)
    val ids = df.select("id").collect().map(_.getLong(0))
    def check(filter: String, pred: Long => Boolean): Unit = {
      val (rows, _) = run(df.where(filter).select("id"))
      assert(rows.map(_.getLong(0)).sorted == ids.filter(pred).sorted.toSeq, filter)
    }
    check("id IN (3, 9000, 19999, 20500)", Set(3L, 9000L, 19999L, 20500L).contains)
    check("id < 10 OR id > 19990", i => i < 10 || i > 19990)
    check("NOT (id >= 10)", _ < 10)
    check("id IS NULL", _ => false)
    check("id > 1000000", _ => false)
  }

  test("pushed filters and pruned fragments are shown in EXPLAIN") {
    val plan = spark.read.format("lance").load(uri).where("id = 7").queryExecution.executedPlan.toString
    assert(plan.contains("EqualTo(id,7)") && plan.contains("pushedFilters="), plan)
    val narrow = spark.read.format("lance").load(uri).where("id >= 5000 AND id < 5020").queryExecution.executedPlan.toString
    val pruned = "prunedFragments=(\\d+)".r.findFirstMatchIn(narrow).map(_.group(1).toInt)
    assert(pruned.exists(_ > 0) && narrow.contains("prunedZones="), narrow)
  }
}
