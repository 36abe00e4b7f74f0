package io.sparklance.spark.catalog

import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{CatalogTables, PylanceScript}

/** Spark 4.1's MERGE WITH SCHEMA EVOLUTION: the source's new columns added to the table (compat.SchemaEvolution) before the MERGE writes. */
class MergeSchemaEvolutionSuite extends AnyFunSuite with CatalogTables {

  test("MERGE WITH SCHEMA EVOLUTION adds the source's new column; pylance reads every row") {
    spark.sql("CREATE TABLE mse (id BIGINT, v STRING) USING lance")
    spark.sql("INSERT INTO mse VALUES (1, 'a'), (2, 'b')")
    spark.range(2, 4).selectExpr("id", "concat('n', id) AS v", "id * 10 AS extra").createOrReplaceTempView("mse_source")
    spark.sql("""MERGE WITH SCHEMA EVOLUTION INTO mse t USING mse_source s ON t.id = s.id
                |WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *""".stripMargin)
    val want = Seq(Row(1L, "a", null), Row(2L, "n2", 20L), Row(3L, "n3", 30L))
    assert(rows("SELECT id, v, extra FROM mse ORDER BY id") == want)
    val read = PylanceScript.run(
      """import sys, json, lance
        |t = lance.dataset(sys.argv[1]).to_table().sort_by("id")
        |print(json.dumps({"columns": t.schema.names, "rows": t.to_pylist()}))
        |""".stripMargin, location("mse"))
    assert(read("columns") == Seq("id", "v", "extra"))
    assert(read("rows") == Seq(Map("id" -> 1L, "v" -> "a", "extra" -> null), Map("id" -> 2L, "v" -> "n2", "extra" -> 20L),
      Map("id" -> 3L, "v" -> "n3", "extra" -> 30L)))
  }
}
