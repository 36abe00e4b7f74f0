package io.sparklance.spark.catalog

import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{LocalSpark, S3Server}

/**
 * Catalog tables and row-level changes on S3 (s3a against a local SeaweedFS): a LanceCatalog
 * whose warehouse is an S3 prefix (namespaces and tables as prefixes), and a session-catalog
 * table at an s3:// LOCATION, changed by INSERT, DELETE, UPDATE and MERGE.
 */
class S3CatalogSuite extends AnyFunSuite with LocalSpark {
  private var server: S3Server = _

  override protected def beforeAll(): Unit = {
    server = S3Server.start()
    super.beforeAll()
    server.hadoopConf.foreach { case (k, v) => spark.conf.set(k, v) }
    spark.conf.set("spark.sql.catalog.s3wh", classOf[LanceCatalog].getName)
    spark.conf.set("spark.sql.catalog.s3wh.warehouse", s"s3://${server.bucket}/wh")
  }

  override protected def afterAll(): Unit =
    try super.afterAll() finally if (server != null) server.stop()

  private def rows(sql: String): Seq[Row] = spark.sql(sql).collect().toSeq

  test("a LanceCatalog over an S3 warehouse: namespaces, tables, DML, history, drop") {
    spark.sql("CREATE NAMESPACE s3wh.sales")
    assert(rows("SHOW NAMESPACES IN s3wh").map(_.getString(0)) == Seq("sales"))
    spark.sql("CREATE TABLE s3wh.sales.orders (id BIGINT, amount DOUBLE) USING lance")
    spark.sql("INSERT INTO s3wh.sales.orders SELECT id, id * 1.5 FROM range(20)")
    spark.sql("DELETE FROM s3wh.sales.orders WHERE id IN (1, 2)")
    spark.sql("UPDATE s3wh.sales.orders SET amount = -1 WHERE id = 3")
    spark.range(18, 22).selectExpr("id", "0.0 AS amount").createOrReplaceTempView("src")
    spark.sql("MERGE INTO s3wh.sales.orders t USING src ON t.id = src.id " +
      "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    assert(rows("SELECT count(*), sum(id) FROM s3wh.sales.orders") == Seq(Row(20L, (0L until 22L).sum - 3L)))
    assert(rows("SELECT amount FROM s3wh.sales.orders WHERE id IN (3, 19) ORDER BY id") == Seq(Row(-1.0), Row(0.0)))
    assert(rows("SELECT operation FROM s3wh.sales.orders.history ORDER BY version").map(_.getString(0)) ==
      Seq("Overwrite", "Append", "Delete", "Update", "Update"))
    assert(rows("SHOW TABLES IN s3wh.sales").map(_.getString(1)) == Seq("orders"))
    spark.sql("DROP TABLE s3wh.sales.orders")
    assert(rows("SHOW TABLES IN s3wh.sales").isEmpty)
    spark.sql("DROP NAMESPACE s3wh.sales")
  }

  test("a session-catalog table at an s3:// location") {
    spark.sql(s"CREATE TABLE ext (id BIGINT, s STRING) USING lance LOCATION 's3://${server.bucket}/ext.lance'")
    try {
      spark.sql("INSERT INTO ext VALUES (1, 'a'), (2, 'b'), (3, 'c')")
      spark.sql("DELETE FROM ext WHERE id = 2")
      spark.sql("ALTER TABLE ext ADD COLUMNS (n INT)")
      assert(rows("SELECT * FROM ext ORDER BY id") == Seq(Row(1L, "a", null), Row(3L, "c", null)))
    } finally spark.sql("DROP TABLE IF EXISTS ext")
    assert(spark.read.format("lance").load(s"s3://${server.bucket}/ext.lance").count() == 2, "external: data kept")
  }
}
