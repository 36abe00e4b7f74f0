package io.sparklance.spark.catalog

import org.apache.spark.sql.{AnalysisException, Row}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.CatalogTables

/**
 * Spark 4.2's schema evolution on insert (INSERT WITH SCHEMA EVOLUTION, DataFrameWriterV2.withSchemaEvolution()),
 * which a table asks for with AUTOMATIC_SCHEMA_EVOLUTION (compat.SchemaEvolution); MERGE's is in MergeSchemaEvolutionSuite.
 */
class InsertSchemaEvolutionSuite extends AnyFunSuite with CatalogTables {

  test("schema evolution on write: INSERT WITH SCHEMA EVOLUTION") {
    spark.sql("CREATE TABLE se (id BIGINT) USING lance")
    spark.sql("INSERT INTO se VALUES (1)")
    spark.sql("INSERT WITH SCHEMA EVOLUTION INTO se SELECT 2L AS id, 'two' AS s")
    // Spark 4.2 asks for a type change when a written column's type differs (INT into BIGINT):
    // refused by name, with what to do, and nothing written.
    val narrower = intercept[AnalysisException](spark.sql("INSERT WITH SCHEMA EVOLUTION INTO se SELECT 4 AS id, 'four' AS s, 0.5 AS d"))
    assert(narrower.getMessage.contains("ALTER COLUMN ... TYPE") && narrower.getMessage.contains("cast the column"), narrower.getMessage)
    spark.sql("INSERT WITH SCHEMA EVOLUTION INTO se SELECT 4L AS id, 'four' AS s")
    spark.sql("INSERT WITH SCHEMA EVOLUTION INTO se SELECT 3L AS id, 'three' AS s, CAST(1.5 AS DOUBLE) AS d")
    assert(rows("SELECT * FROM se ORDER BY id") == Seq(Row(1L, null, null), Row(2L, "two", null), Row(3L, "three", 1.5), Row(4L, "four", null)))
    intercept[AnalysisException](spark.range(1).selectExpr("id", "0 AS extra").writeTo("se").append())
  }

  test("writeTo(...).withSchemaEvolution().append() adds the new columns; without it they are refused") {
    spark.sql("CREATE TABLE wse (id BIGINT) USING lance")
    spark.sql("INSERT INTO wse VALUES (1)")
    spark.range(3, 4).selectExpr("id", "'three' AS s", "CAST(1.5 AS DOUBLE) AS d").writeTo("wse").withSchemaEvolution().append()
    assert(rows("SELECT * FROM wse ORDER BY id") == Seq(Row(1L, null, null), Row(3L, "three", 1.5)))
    intercept[AnalysisException](spark.range(1).selectExpr("id", "0 AS extra").writeTo("wse").append())
  }
}
