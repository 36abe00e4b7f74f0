package io.sparklance.spark.catalog

import java.io.File

import org.apache.spark.sql.{AnalysisException, Row}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.table.Snapshot
import io.sparklance.testutil.CatalogTables
import io.sparklance.util.LanceException

/** ALTER TABLE on Lance tables: metadata-only Merge, Project and UpdateConfig commits; no data file rewritten. */
class AlterTableSuite extends AnyFunSuite with CatalogTables {

  private def dataFiles(table: String): Set[String] = new File(location(table), "data").list().toSet

  test("ADD COLUMNS adds nullable columns without rewriting data; new rows carry them") {
    spark.sql("CREATE TABLE a USING lance AS SELECT id, CAST(id AS STRING) AS s FROM range(3)")
    val files = dataFiles("a")
    spark.sql("ALTER TABLE a ADD COLUMNS (score DOUBLE COMMENT 'points', tags ARRAY<STRING>)")
    assert(dataFiles("a") == files, "no data file written")
    assert(spark.table("a").schema.fieldNames.toSeq == Seq("id", "s", "score", "tags"))
    assert(snapshot("a").manifest.schema.flatFields.map(_.id) == Seq(0, 1, 2, 3, 4), "new ids after the old ones (tags has an item field)")
    spark.sql("INSERT INTO a VALUES (9, 'nine', 1.5, array('x'))")
    assert(rows("SELECT id, score, tags FROM a ORDER BY id") ==
      Seq(Row(0L, null, null), Row(1L, null, null), Row(2L, null, null), Row(9L, 1.5, Seq("x"))))
    assert(lanceError(spark.sql("ALTER TABLE a ADD COLUMNS (n INT NOT NULL)")).errorClass == "LANCE_UNSUPPORTED_FEATURE")
    assert(lanceError(spark.sql("ALTER TABLE a ADD COLUMNS (s2 INT FIRST)")).errorClass == "LANCE_UNSUPPORTED_FEATURE")
  }

  test("DROP and RENAME COLUMN are a Project: data kept, and a column added later never shows a dropped one's values") {
    spark.sql("CREATE TABLE p USING lance AS SELECT id, id * 10 AS x, 'k' AS k FROM range(3)")
    val files = dataFiles("p")
    spark.sql("ALTER TABLE p DROP COLUMN x")
    spark.sql("ALTER TABLE p RENAME COLUMN k TO key")
    assert(dataFiles("p") == files)
    assert(rows("SELECT * FROM p ORDER BY id") == Seq(Row(0L, "k"), Row(1L, "k"), Row(2L, "k")))
    spark.sql("ALTER TABLE p ADD COLUMNS (y BIGINT)")
    assert(rows("SELECT y FROM p").forall(_.isNullAt(0)), "the new column does not reuse the dropped column's field id")
    assert(rows("SELECT x FROM p VERSION AS OF 1 ORDER BY id") == Seq(Row(0L), Row(10L), Row(20L)))
    intercept[AnalysisException](spark.sql("ALTER TABLE p ALTER COLUMN id TYPE INT")) // Spark refuses narrowing itself
    assert(lanceError(spark.sql("ALTER TABLE p ALTER COLUMN id COMMENT 'the key'")).errorClass == "LANCE_UNSUPPORTED_FEATURE")
    assert(lanceError(spark.sql("ALTER TABLE p DROP COLUMNS (id, key, y)")).errorClass == "LANCE_UNSUPPORTED_FEATURE")
  }

  test("SET and UNSET TBLPROPERTIES change the Lance table config") {
    spark.sql("CREATE TABLE c (id BIGINT) USING lance TBLPROPERTIES ('a' = '1')")
    spark.sql("ALTER TABLE c SET TBLPROPERTIES ('b' = '2', 'a' = '3')")
    assert(snapshot("c").manifest.config.filter(_._1.length == 1) == Map("a" -> "3", "b" -> "2"))
    spark.sql("ALTER TABLE c UNSET TBLPROPERTIES ('a')")
    assert(snapshot("c").manifest.config.filter(_._1.length == 1) == Map("b" -> "2"))
    assert(rows("SHOW TBLPROPERTIES c").map(r => r.getString(0) -> r.getString(1)).toMap.get("b").contains("2"))
  }

  // INSERT WITH SCHEMA EVOLUTION and withSchemaEvolution() (Spark 4.2): InsertSchemaEvolutionSuite.
  test("schema evolution on write: mergeSchema by path") {
    val path = new File(java.nio.file.Files.createTempDirectory("lance-merge").toFile, "t.lance").getPath
    spark.range(2).write.format("lance").save(path)
    spark.range(2, 3).selectExpr("id", "'x' AS tag").write.format("lance").mode("append").option("mergeSchema", "true").save(path)
    assert(spark.read.format("lance").load(path).orderBy("id").collect().toSeq == Seq(Row(0L, null), Row(1L, null), Row(2L, "x")))
    assert(Snapshot.listVersions(store, path).map(_._1) == Seq(1L, 2L, 3L), "create, Merge (the new column), Append")
    assert(lanceError(spark.range(3, 4).selectExpr("id", "1 AS other").write.format("lance").mode("append").save(path)).errorClass ==
      "LANCE_SCHEMA_MISMATCH", "without mergeSchema a new column is refused")
  }

  test("a mergeSchema append that fails its checks leaves the table as it was: no version, no new column") {
    spark.sql("CREATE TABLE ms (id BIGINT NOT NULL, s STRING) USING lance")
    spark.sql("INSERT INTO ms VALUES (1, 'one')")
    val path = location("ms")
    val View = """import sys, json, lance
      |ds = lance.dataset(sys.argv[1])
      |print(json.dumps({"version": ds.version, "columns": ds.schema.names, "rows": ds.count_rows()}))
      |""".stripMargin
    val before = io.sparklance.testutil.PylanceScript.run(View, path)
    assert(before("columns") == Seq("id", "s"))
    def mergeAppend(select: String*): Unit =
      spark.range(1).selectExpr(select: _*).write.format("lance").mode("append").option("mergeSchema", "true").save(path)
    // A column of the wrong type, refused when the write is planned.
    assert(lanceError(mergeAppend("'x' AS id", "'two' AS s", "2 AS extra")).errorClass == "LANCE_SCHEMA_MISMATCH")
    // A null in a NOT NULL column, found by a task while the rows are written.
    assert(lanceError(mergeAppend("CAST(NULL AS BIGINT) AS id", "'two' AS s", "2 AS extra")).errorClass == "LANCE_NULL_IN_NON_NULLABLE_COLUMN")
    assert(io.sparklance.testutil.PylanceScript.run(View, path) == before, "pylance sees the table unchanged")
    assert(Snapshot.listVersions(store, path).map(_._1).last == before("version").toString.toLong)
    // A write that passes its checks adds the column and its rows: a Merge, then the Append.
    mergeAppend("2L AS id", "'two' AS s", "2 AS extra")
    val after = io.sparklance.testutil.PylanceScript.run(View, path)
    assert(after("columns") == Seq("id", "s", "extra") && after("rows") == 2L && after("version").toString.toLong == before("version").toString.toLong + 2, after)
    assert(rows("SELECT * FROM ms ORDER BY id") == Seq(Row(1L, "one", null), Row(2L, "two", 2)))
  }
}
