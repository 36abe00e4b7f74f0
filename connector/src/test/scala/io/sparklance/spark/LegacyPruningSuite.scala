package io.sparklance.spark

import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{Golden, LocalSpark}

/**
 * Legacy (0.1) data files skip write batches that their page statistics rule out, and
 * never a row that matches: nulls that read back as zero, empty strings that read back
 * as null and NaN are all accounted for. Expected rows come from the same filter applied
 * by Spark to an in-memory copy of the whole table.
 */
class LegacyPruningSuite extends AnyFunSuite with LocalSpark {
  // Dataset -> whether its files carry page statistics (pylance 0.5.10 wrote none).
  private val datasets = Seq("types_legacy" -> true, "old/0.5.10/types" -> false, "old/0.10.18/types" -> true,
    "old/4.0.2/legacy" -> true)

  private val filters = Seq(
    "id >= 300 AND id < 310", "id < 5 OR id > 990", "NOT (id >= 10)", "id IN (0, 450, 999)",
    "int32_col = 0", "int32_col < -1000000", "int64_col > 0", "int8_col <= 0", "uint8_col = 0",
    "float64_col > 0.5", "float64_col < 0", "float32_col > 1e30", "NOT (float64_col <= 1e300)",
    "bool_col = false", "bool_col", "string_col IS NULL", "string_col IS NOT NULL", "string_col = ''",
    "string_col >= 'm'", "string_col LIKE 'a%'")

  datasets.foreach { case (name, hasStatistics) =>
    test(s"$name: filters with page statistics return exactly the matching rows") {
      val df = spark.read.format("lance").load(Golden.dataset(name).uri)
      val usable = filters.filter(f => "[a-z0-9_]+_col|id".r.findAllIn(f).forall(df.columns.contains))
      val columns = usable.flatMap(f => "[a-z0-9_]+_col|id".r.findAllIn(f)).distinct
      val local = df.select(columns.map(df.col): _*)
      val copy = spark.createDataFrame(spark.sparkContext.parallelize(local.collect().toSeq, 1), local.schema)
      var pruned = 0L
      usable.foreach { f =>
        val q = df.where(f).select("id")
        val got = q.collect().map(_.getLong(0)).sorted.toSeq
        assert(got == copy.where(f).select("id").collect().map(_.getLong(0)).sorted.toSeq, s"$name: $f")
        pruned += q.queryExecution.executedPlan.collectFirst { case s: BatchScanExec => s }.get.metrics("lanceRowsPruned").value
      }
      assert((pruned > 0) == hasStatistics, s"$name: $pruned rows skipped")
    }
  }
}
