package io.sparklance.testutil

import org.apache.spark.sql.SparkSession
import org.scalatest.{BeforeAndAfterAll, Suite}

/**
 * A local SparkSession shared by the tests of one suite, with the Lance session catalog and the
 * procedure catalog `lance` (as pyspark_lance.configure sets them) and a warehouse in a temporary folder.
 */
trait LocalSpark extends BeforeAndAfterAll { self: Suite =>
  @transient protected var spark: SparkSession = _

  /** local[2]: two task threads, a failed task is not tried again. */
  protected def master: String = "local[2]"

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    spark = SparkSession.builder()
      .master(master)
      .appName(getClass.getSimpleName)
      .config("spark.ui.enabled", "false")
      .config("spark.driver.host", "127.0.0.1")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.sql.session.timeZone", "UTC")
      .config("spark.sql.catalog.spark_catalog", "io.sparklance.spark.catalog.LanceSessionCatalog")
      .config("spark.sql.catalog.lance", "io.sparklance.spark.procedures.LanceProcedureCatalog")
      .config("spark.sql.warehouse.dir", java.nio.file.Files.createTempDirectory("spark-warehouse").toUri.toString)
      .getOrCreate()
  }

  override protected def afterAll(): Unit = {
    try if (spark != null) spark.stop()
    finally super.afterAll()
  }
}
