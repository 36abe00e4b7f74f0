package io.sparklance.spark.catalog

import org.apache.spark.sql.{AnalysisException, Row}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.CatalogTables

/** Spark 4.2's DataFrameWriterV2.withSchemaEvolution(): an append that adds the DataFrame's new columns. */
class WriterSchemaEvolutionSuite extends AnyFunSuite with CatalogTables {

  test("writeTo(...).withSchemaEvolution().append() adds the new columns; without it they are refused") {
    spark.sql("CREATE TABLE wse (id BIGINT) USING lance")
    spark.sql("INSERT INTO wse VALUES (1)")
    spark.range(3, 4).selectExpr("id", "'three' AS s", "CAST(1.5 AS DOUBLE) AS d").writeTo("wse").withSchemaEvolution().append()
    assert(rows("SELECT * FROM wse ORDER BY id") == Seq(Row(1L, null, null), Row(3L, "three", 1.5)))
    intercept[AnalysisException](spark.range(1).selectExpr("id", "0 AS extra").writeTo("wse").append())
  }
}
