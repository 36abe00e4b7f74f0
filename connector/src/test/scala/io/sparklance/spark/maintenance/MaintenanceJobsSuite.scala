package io.sparklance.spark.maintenance

import java.io.File
import java.nio.file.Files

import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import org.apache.spark.scheduler.{SparkListener, SparkListenerJobStart}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.LocalSpark

/** What the Spark UI shows of a compaction and a cleanup: jobs named after the table and the work, and the caller's description kept. */
class MaintenanceJobsSuite extends AnyFunSuite with LocalSpark {

  test("compaction and cleanup name their jobs and give the caller's job description back") {
    val path = new File(Files.createTempDirectory("lance-jobs").toFile, "t.lance").getPath
    spark.range(40).repartition(1).selectExpr("id", "concat('n', id) AS name").write.format("lance")
      .option("maxRowsPerFile", "10").save(path)
    val sc = spark.sparkContext
    val started = new ConcurrentLinkedQueue[String]()
    val listener = new SparkListener {
      override def onJobStart(job: SparkListenerJobStart): Unit =
        Option(job.properties).flatMap(p => Option(p.getProperty("spark.job.description"))).foreach(started.add)
    }
    sc.addSparkListener(listener)
    sc.setJobDescription("the caller's notebook cell")
    try {
      spark.sql(s"CALL lance.system.compact(table => '$path')").collect()
      assert(sc.getLocalProperty("spark.job.description") == "the caller's notebook cell")
      spark.sql(s"CALL lance.system.cleanup(table => '$path', older_than => '0 seconds', override => true)").collect()
      assert(sc.getLocalProperty("spark.job.description") == "the caller's notebook cell")
    } finally sc.setJobDescription(null)
    // The listener hears of the jobs from the event queue.
    val deadline = System.nanoTime() + 20L * 1000 * 1000 * 1000
    while (started.asScala.count(_.startsWith("Lance cleanup")) < 2 && System.nanoTime() < deadline) Thread.sleep(50)
    sc.removeSparkListener(listener)
    val mine = started.asScala.toSeq.filter(_.startsWith("Lance "))
    assert(mine.exists(d => d.startsWith("Lance compact") && d.contains(path) && d.endsWith("rewrite 4 fragments (40 rows) in 1 groups")), mine)
    assert(mine.exists(d => d.startsWith("Lance cleanup") && d.contains(path) && d.endsWith("delete 1 manifests of removed versions")), mine)
    assert(mine.exists(d => d.startsWith("Lance cleanup") && d.contains(path) && d.endsWith("delete 5 files")), mine) // the 4 data files and version 1's transaction file
  }
}
