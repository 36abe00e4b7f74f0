package io.sparklance.spark

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{Golden, LocalSpark}

/**
 * Aggregates answered from metadata (MIN/MAX from exact zone maps, with COUNT(*)) and
 * LIMIT pushed into the scan: the answers equal a full read, and metadata is used only
 * where it is exact.
 */
class MetadataAnswersSuite extends AnyFunSuite with LocalSpark {
  private lazy val indexed = Golden.dataset("indexed").uri

  private def answeredOnDriver(df: DataFrame): Boolean = {
    val plan = df.queryExecution.executedPlan.toString
    plan.contains("LocalTableScan") && !plan.contains("BatchScan")
  }

  test("MIN/MAX of a zone-mapped column come from the zone map while it covers every row") {
    // indexed v4: 20,000 rows, id 0..19999, ZONEMAP on id over all 4 fragments, no deletions.
    // A copy without data files proves that no data file is opened.
    val dir = Files.createTempDirectory("lance-minmax").toFile
    try {
      FileUtils.copyDirectory(new File(indexed), dir)
      FileUtils.deleteDirectory(new File(dir, "data"))
      val df = spark.read.format("lance").option("version", "4").load(dir.getPath).selectExpr("min(id)", "max(id)", "count(*)")
      assert(answeredOnDriver(df), df.queryExecution.executedPlan)
      assert(df.collect().toSeq.map(r => (r.getLong(0), r.getLong(1), r.getLong(2))) == Seq((0L, 19999L, 20000L)))
    } finally FileUtils.deleteDirectory(dir)
  }

  test("COUNT(*) from the manifest runs on the driver without a job, as SELECT 1 does") {
    val df = spark.read.format("lance").load(indexed).selectExpr("count(*) AS n")
    val plan = df.queryExecution.executedPlan
    // A bare local scan: collect() reads its rows on the driver; under a projection it would
    // be compiled into a stage and run as a one-task job.
    assert(plan.isInstanceOf[org.apache.spark.sql.execution.LocalTableScanExec], plan)
    val rows = spark.read.format("lance").load(indexed).rdd.count()
    spark.sparkContext.setJobGroup("count-star", "COUNT(*) from the manifest")
    try assert(df.collect().map(_.getLong(0)).toSeq == Seq(rows))
    finally spark.sparkContext.clearJobGroup()
    assert(spark.sparkContext.statusTracker.getJobIdsForGroup("count-star").isEmpty)
  }

  test("MIN/MAX are read from the rows where the zone map is not exact") {
    def check(version: Int, query: Seq[String]): Unit = {
      val df = spark.read.format("lance").option("version", version.toString).load(indexed)
      val q = df.selectExpr(query: _*)
      assert(!answeredOnDriver(q), s"v$version ${query.mkString(", ")}")
      // The same aggregates computed by Spark over the rows it read.
      val expected = df.select("id", "x").collect()
      val got = q.collect().head
      query.indices.foreach { k =>
        val (fn, col) = (query(k).take(3), if (query(k).contains("id")) 0 else 1)
        val values = expected.map(r => r.get(col).asInstanceOf[Number].doubleValue)
        val want = if (fn == "min") values.min else values.max
        assert(got.get(k).asInstanceOf[Number].doubleValue == want, s"v$version ${query(k)}")
      }
    }
    check(5, Seq("min(id)", "max(id)")) // fragment 4 (ids 20000..20999) is not in the index
    check(6, Seq("min(id)", "max(id)")) // rows were deleted after the index was built
    check(4, Seq("min(id)", "max(x)")) // x has no zone map
  }

  private def scanOf(df: DataFrame): BatchScanExec = df.queryExecution.executedPlan.collectFirst { case s: BatchScanExec => s }.get

  test("LIMIT reads only the front of the table") {
    val uri = Golden.dataset("basic_types_large").uri // 120,000 rows in 2 fragments
    val all = spark.read.format("lance").load(uri).select("id").collect().map(_.getLong(0))
    val limited = spark.read.format("lance").load(uri).select("id").limit(10)
    assert(limited.collect().map(_.getLong(0)).toSeq == all.take(10).toSeq)
    val scan = scanOf(limited)
    assert(scan.scan.description().contains("limit=10"), scan.scan.description())
    assert(scan.inputRDD.getNumPartitions == 1)
    val read = scan.metrics("lanceBytesRead").value
    val full = spark.read.format("lance").load(uri).select("id")
    full.collect()
    // Only the first fragment's first page is touched (mini-block data comes in windows of
    // up to 4 MiB, here the whole page): at most half of what the full column read takes.
    assert(read > 0 && read * 2 <= scanOf(full).metrics("lanceBytesRead").value, s"read $read bytes for 10 rows")
  }

  test("LIMIT over deleted rows still returns the limit's rows") {
    // deletions v4: fragment 0 has 69 deleted rows, fragment 1 5,004, fragment 2 5,600 of 6,000.
    val df = spark.read.format("lance").option("version", "4").load(Golden.dataset("deletions").uri).select("id")
    val all = df.collect().map(_.getLong(0))
    Seq(5, 5931, 5932, 7000, all.length, all.length + 10).foreach { n =>
      val got = df.limit(n).collect().map(_.getLong(0))
      assert(got.toSeq == all.take(n).toSeq, s"limit $n")
    }
  }

  test("a filter keeps the limit out of the scan") {
    val df = spark.read.format("lance").load(indexed).where("x > 0.5").select("id").limit(5)
    assert(!scanOf(df).scan.description().contains("limit="))
    assert(df.collect().length == 5)
  }
}
