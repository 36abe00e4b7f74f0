package io.sparklance.spark.catalog

import java.io.File
import java.nio.file.Files

import org.apache.spark.sql.{AnalysisException, Row}
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.spark.LanceSparkException
import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.table.Snapshot
import io.sparklance.testutil.ErrorConditions._
import io.sparklance.testutil.LocalSpark
import io.sparklance.util.LanceException

/** The path-based catalog: namespaces are folders, tables are Lance tables under the warehouse. */
class LanceCatalogSuite extends AnyFunSuite with LocalSpark {

  private lazy val warehouse: File = Files.createTempDirectory("lance-warehouse").toFile

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    spark.conf.set("spark.sql.catalog.wh", classOf[LanceCatalog].getName)
    spark.conf.set("spark.sql.catalog.wh.warehouse", warehouse.toURI.toString)
  }

  private def store = new HadoopObjectStoreFactory(spark.sessionState.newHadoopConf()).create()
  private def rows(sql: String): Seq[Row] = spark.sql(sql).collect().toSeq
  private def names(sql: String): Seq[String] = rows(sql).map(_.getString(1)).sorted

  test("namespaces are folders; tables are <name>.lance folders; a pylance-style dataset already there is a table") {
    spark.sql("CREATE NAMESPACE wh.sales")
    assert(new File(warehouse, "sales").isDirectory)
    spark.sql("CREATE TABLE wh.sales.orders (id BIGINT, amount DOUBLE) USING lance")
    assert(new File(warehouse, "sales/orders.lance/_versions").isDirectory)
    spark.sql("INSERT INTO wh.sales.orders VALUES (1, 2.5), (2, 4.0)")
    assert(rows("SELECT sum(amount) FROM wh.sales.orders") == Seq(Row(6.5)))

    // A dataset written by path (as pylance or df.write would), without the suffix.
    spark.range(3).write.format("lance").save(new File(warehouse, "sales/legacy").getPath)
    assert(names("SHOW TABLES IN wh.sales") == Seq("legacy", "orders"))
    assert(rows("SELECT count(*) FROM wh.sales.legacy") == Seq(Row(3L)))
    assert(rows("SHOW NAMESPACES IN wh").map(_.getString(0)) == Seq("sales"))
    assert(Snapshot.listVersions(store, new File(warehouse, "sales/orders.lance").getPath).map(_._1) == Seq(1L, 2L))
  }

  test("CTAS, time travel, REPLACE and DROP under the warehouse") {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS wh.tt")
    spark.sql("CREATE TABLE wh.tt.t USING lance AS SELECT id FROM range(4)")
    spark.sql("INSERT INTO wh.tt.t VALUES (100)")
    assert(rows("SELECT count(*) FROM wh.tt.t VERSION AS OF 1") == Seq(Row(4L)))
    assert(rows("SELECT count(*) FROM wh.tt.t") == Seq(Row(5L)))
    spark.sql("CREATE OR REPLACE TABLE wh.tt.t USING lance AS SELECT 'x' AS s")
    assert(rows("SELECT * FROM wh.tt.t") == Seq(Row("x")))
    spark.sql("DROP TABLE wh.tt.t")
    assert(!new File(warehouse, "tt/t.lance").exists())
    spark.sql("CREATE TABLE wh.tt.u (a INT) USING lance")
    val e = intercept[AnalysisException](spark.sql("DROP NAMESPACE wh.tt"))
    assert(e.condition == "SCHEMA_NOT_EMPTY", e)
    assert(new File(warehouse, "tt/u.lance/_versions").isDirectory)
    spark.sql("DROP NAMESPACE wh.tt CASCADE")
    assert(!new File(warehouse, "tt").exists())
  }

  test("a table outside the warehouse by path; its data is never deleted through the catalog") {
    val path = new File(Files.createTempDirectory("lance-outside").toFile, "t.lance").getPath
    spark.range(2).write.format("lance").save(path)
    assert(rows(s"SELECT count(*) FROM wh.`$path`") == Seq(Row(2L)))
    spark.sql(s"INSERT INTO wh.`$path` VALUES (5)")
    assert(spark.read.format("lance").load(path).count() == 3)
    val e = intercept[Throwable](spark.sql(s"DROP TABLE wh.`$path`"))
    assert(Iterator.iterate(e)(_.getCause).takeWhile(_ != null).exists(_.isInstanceOf[LanceException]), e)
    assert(new File(path, "_versions").isDirectory)
  }

  test("unknown namespaces, names that leave the warehouse and a missing warehouse are refused") {
    intercept[NoSuchNamespaceException](spark.sql("CREATE TABLE wh.nowhere.t (a INT) USING lance"))
    assert(!new File(warehouse, "nowhere").exists())
    val bad = intercept[LanceSparkException](spark.sql("CREATE TABLE wh.`..`.t (a INT) USING lance"))
    assert(bad.condition == "LANCE_INVALID_NAME" && bad.getMessage.contains("'..' is not a valid namespace name"), bad)
    spark.conf.set("spark.sql.catalog.nowh", classOf[LanceCatalog].getName)
    val e = intercept[Throwable](spark.sql("SHOW TABLES IN nowh"))
    assert(Iterator.iterate(e)(_.getCause).takeWhile(_ != null).exists(x => x.getMessage != null && x.getMessage.contains("needs a warehouse")), e)
  }

  test("a NUL or a path in a name is refused as an AnalysisException of the LANCE family, and nothing is created") {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS wh.nm")
    val before = warehouse.list().toSet ++ new File(warehouse, "nm").list()
    for (sql <- Seq("CREATE TABLE wh.nm.`a\u0000b` (a INT) USING lance", "CREATE TABLE wh.`a\u0000b`.t (a INT) USING lance",
      "SHOW TABLES IN wh.`a\u0000b`", "CREATE NAMESPACE wh.`a\u0000b`", "SELECT * FROM wh.nm.`a\u0000b`", "CREATE TABLE wh.nm.`x/y` (a INT) USING lance",
      "CREATE TABLE wh.`..`.t USING lance AS SELECT 1 AS a", "SHOW TABLES IN wh.`..`")) {
      val e = intercept[LanceSparkException](spark.sql(sql))
      assert(e.condition == "LANCE_INVALID_NAME", s"$sql: $e")
    }
    assert(warehouse.list().toSet ++ new File(warehouse, "nm").list() == before)
  }

  test("USING another format is refused; a table below a table named by its path is read") {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS wh.fmt")
    for (sql <- Seq("CREATE TABLE wh.fmt.p (a INT) USING parquet", "CREATE TABLE wh.fmt.p USING parquet AS SELECT 1 AS a",
      "CREATE OR REPLACE TABLE wh.fmt.p USING delta AS SELECT 1 AS a")) {
      val e = intercept[LanceSparkException](spark.sql(sql))
      assert(e.condition == "LANCE_UNSUPPORTED_FEATURE" && e.getMessage.contains("USING "), s"$sql: $e")
    }
    assert(!new File(warehouse, "fmt/p.lance").exists() && !new File(warehouse, "fmt/p").exists())
    spark.sql("CREATE TABLE wh.fmt.l (a INT)") // no USING: a Lance table
    spark.sql("CREATE TABLE wh.fmt.l2 (a INT) USING lance")
    assert(new File(warehouse, "fmt/l.lance/_versions").isDirectory && new File(warehouse, "fmt/l2.lance/_versions").isDirectory)
    spark.sql("REPLACE TABLE wh.fmt.l USING lance AS SELECT 2 AS a")
    intercept[LanceSparkException](spark.sql("REPLACE TABLE wh.fmt.l USING parquet AS SELECT 3 AS a"))
    assert(rows("SELECT a FROM wh.fmt.l") == Seq(Row(2)))

    val path = new File(Files.createTempDirectory("lance-outside").toFile, "h.lance").getPath
    spark.range(2).write.format("lance").save(path)
    spark.range(2).write.format("lance").mode("append").save(path)
    assert(rows(s"SELECT version FROM wh.`$path`.history ORDER BY version").map(_.getLong(0)) == Seq(1L, 2L))
  }
}
