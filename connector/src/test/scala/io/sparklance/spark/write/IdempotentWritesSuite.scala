package io.sparklance.spark.write

import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{CatalogTables, LineBehaviour}

/** An idempotent write's (txnAppId, txnVersion) on catalog tables: honoured by row-level writes, refused where stored. */
class IdempotentWritesSuite extends AnyFunSuite with CatalogTables {

  private def ids(table: String): Seq[Long] = rows(s"SELECT id FROM $table ORDER BY id").map(_.getLong(0))

  test("a pair stored with a table would make every later write a duplicate: refused by CREATE, CTAS and REPLACE") {
    for (statement <- Seq(
        "CREATE TABLE s (id BIGINT) USING lance OPTIONS (txnAppId 'job', txnVersion '1')",
        "CREATE TABLE s USING lance OPTIONS ('txnVersion' '1', 'txnAppId' 'job') AS SELECT id FROM range(3)")) {
      val e = lanceError(spark.sql(statement))
      assert(e.errorClass == "LANCE_INVALID_OPTION" && e.getMessage.contains("stored"), e.getMessage)
      assert(!spark.catalog.tableExists("s"))
    }
    spark.sql("CREATE TABLE s (id BIGINT) USING lance")
    val e = lanceError(spark.sql("REPLACE TABLE s USING lance OPTIONS (txnAppId 'job', txnVersion '1') AS SELECT id FROM range(3)"))
    assert(e.errorClass == "LANCE_INVALID_OPTION")
    assert(versions(location("s")) == Seq(1L))
  }

  test("overwrite(condition) with a pair commits once: the same pair again changes nothing and leaves no file") {
    val s = spark
    import s.implicits._
    spark.sql("CREATE TABLE r (id BIGINT, name STRING) USING lance")
    spark.range(10).selectExpr("id", "'old' AS name").writeTo("r").append()
    def replace(): Unit = Seq((3L, "new"), (4L, "new")).toDF("id", "name").writeTo("r")
      .option("txnAppId", "job").option("txnVersion", "7").overwrite($"id" >= 3 && $"id" < 6)
    replace()
    val after = versions(location("r"))
    assert(ids("r") == Seq(0L, 1L, 2L, 3L, 4L, 6L, 7L, 8L, 9L))
    val dataFiles = new java.io.File(location("r"), "data").list().length
    val deletionFiles = Option(new java.io.File(location("r"), "_deletions").list()).fold(0)(_.length)
    replace()
    assert(versions(location("r")) == after, "the duplicate committed nothing")
    assert(ids("r") == Seq(0L, 1L, 2L, 3L, 4L, 6L, 7L, 8L, 9L))
    assert(new java.io.File(location("r"), "data").list().length == dataFiles, "the duplicate's data files are removed")
    assert(Option(new java.io.File(location("r"), "_deletions").list()).fold(0)(_.length) == deletionFiles,
      "the duplicate's deletion files are removed")
    assert(snapshot("r").manifest.config.get("spark-lance.txn.job").contains("7"))
  }

  // INSERT INTO ... WITH (options) is Spark 4.0+ syntax (LineBehaviour.insertOptions).
  test("INSERT INTO ... WITH (txnAppId, txnVersion): the statement run again inserts nothing") {
    assume(LineBehaviour.insertOptions, "Spark 3.5 has no INSERT INTO ... WITH (options)")
    spark.sql("CREATE TABLE i (id BIGINT) USING lance")
    val insert = "INSERT INTO i WITH ('txnAppId' = 'loader', 'txnVersion' = '3') SELECT id FROM range(4)"
    spark.sql(insert)
    val after = versions(location("i"))
    spark.sql(insert)
    assert(versions(location("i")) == after && ids("i") == Seq(0L, 1L, 2L, 3L))
    spark.sql("INSERT INTO i WITH ('txnAppId' = 'loader', 'txnVersion' = '4') SELECT id FROM range(4, 6)")
    assert(ids("i") == (0L until 6L))
  }
}
