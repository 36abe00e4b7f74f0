package io.sparklance.spark.catalog

import java.io.File
import java.nio.file.Files

import org.apache.spark.sql.Row
import org.apache.spark.sql.functions.{col, lit, struct}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{CatalogTables, LineBehaviour, PylanceScript}

/**
 * Column names and types a Lance table cannot keep are refused at every entry (CREATE, CTAS,
 * REPLACE, ALTER ADD / RENAME COLUMN, DataFrame writes, mergeSchema), by name and before
 * anything is written.
 */
class ColumnNamesSuite extends AnyFunSuite with CatalogTables {

  private def warehouse: File = new File(new java.net.URI(spark.conf.get("spark.sql.warehouse.dir")))

  /** Runs `f`, which must fail with `errorClass` naming `name`, and checks that the table `table` was not created. */
  private def refusedCreate(table: String, errorClass: String, name: String)(f: => Any): Unit = {
    val e = lanceError(f)
    assert(e.errorClass == errorClass && e.getMessage.contains(name), e.getMessage)
    assert(!spark.catalog.tableExists(table))
    assert(!new File(warehouse, table).exists(), s"nothing written for $table")
  }

  test("names pylance refuses or cannot read back, and reserved names in any case, are refused by CREATE and CTAS") {
    // pylance 14 refuses these (insert.rs: "is a reserved name"; schema.rs: "cannot contain `.`")...
    val py = PylanceScript.run(
      """import json, sys, tempfile, lance, pyarrow as pa
        |out = {}
        |for n in json.loads(sys.argv[1]):
        |    try:
        |        lance.write_dataset(pa.table({"id": [1], n: [2]}), tempfile.mkdtemp()); out[n] = "written"
        |    except Exception as e:
        |        out[n] = "refused"
        |print(json.dumps(out))""".stripMargin,
      """["_rowid", "_rowaddr", "_rowoffset", "_row_created_at_version", "_row_last_updated_at_version", "a.b"]""")
    assert(py.values.toSet == Set("refused"), py)
    for (name <- py.keys.toSeq :+ "_ROWADDR" :+ "_RowId" :+ "_FragId" :+ "" :+ "x`y") {
      val quoted = "`" + name.replace("`", "``") + "`"
      refusedCreate("t", "LANCE_INVALID_NAME", s"'$name'")(spark.sql(s"CREATE TABLE t (id INT, $quoted BIGINT) USING lance"))
      refusedCreate("t", "LANCE_INVALID_NAME", s"'$name'")(spark.sql(s"CREATE TABLE t USING lance AS SELECT 1 AS id, 2L AS $quoted"))
    }
    // (Spark itself refuses names equal but for case in a CREATE, at any depth; DataFrame writes come below.)
  }

  test("ALTER TABLE ADD COLUMNS and RENAME COLUMN refuse them too, committing nothing") {
    spark.sql("CREATE TABLE a USING lance AS SELECT id, id * 2 AS x FROM range(3)")
    val before = versions(location("a"))
    def refused(name: String)(sql: String): Unit = {
      val e = lanceError(spark.sql(sql))
      assert(e.errorClass == "LANCE_INVALID_NAME" && e.getMessage.contains(s"'$name'"), e.getMessage)
    }
    refused("_rowid")("ALTER TABLE a ADD COLUMNS (_rowid BIGINT)")
    refused("_ROWADDR")("ALTER TABLE a ADD COLUMNS (_ROWADDR BIGINT)")
    refused("a.b")("ALTER TABLE a ADD COLUMNS (`a.b` BIGINT)")
    refused("_rowaddr")("ALTER TABLE a RENAME COLUMN x TO _rowaddr")
    refused("_Row_Created_At_Version")("ALTER TABLE a RENAME COLUMN x TO _Row_Created_At_Version")
    refused("a.b")("ALTER TABLE a RENAME COLUMN x TO `a.b`")
    assert(versions(location("a")) == before, "nothing committed")
    assert(spark.table("a").schema.fieldNames.toSeq == Seq("id", "x"))
    // What pylance reads is still the table as it was.
    val read = PylanceScript.run(
      """import json, sys, lance
        |print(json.dumps({"columns": lance.dataset(sys.argv[1]).to_table().column_names}))""".stripMargin, location("a"))
    assert(read("columns") == Seq("id", "x"))
  }

  test("DataFrame writes (new tables, overwrites, appends with mergeSchema) refuse them before any file is written") {
    val path = new File(Files.createTempDirectory("lance-names").toFile, "t.lance")
    val base = spark.range(3).toDF("id")
    for (bad <- Seq(base.withColumn("a.b", lit(1)), base.withColumn("_ROWADDR", col("id")), base.select(col("id").as("A"), col("id").as("a")),
      base.withColumn("", lit(1)), base.withColumn("s", struct(col("id").as("X"), col("id").as("x"))))) {
      val e = lanceError(bad.write.format("lance").save(path.getPath))
      assert(e.errorClass == "LANCE_INVALID_NAME", e.getMessage)
      assert(!path.exists(), "no file written")
    }
    base.write.format("lance").save(path.getPath)
    val (tableVersions, files) = (versions(path.getPath), new File(path, "data").list().toSet)
    for (bad <- Seq(base.withColumn("_rowOffset", lit(1L)), base.withColumn("x.y", lit(1L)))) {
      val e = lanceError(bad.write.format("lance").mode("append").option("mergeSchema", "true").save(path.getPath))
      assert(e.errorClass == "LANCE_INVALID_NAME", e.getMessage)
      val o = lanceError(bad.write.format("lance").mode("overwrite").save(path.getPath))
      assert(o.errorClass == "LANCE_INVALID_NAME", o.getMessage)
    }
    assert(versions(path.getPath) == tableVersions, "no schema change, no data")
    assert(new File(path, "data").list().toSet == files)
    assert(spark.read.format("lance").load(path.getPath).collect().toSeq.sortBy(_.getLong(0)) == Seq(Row(0L), Row(1L), Row(2L)))
  }

  test("CHAR, VARCHAR and collated strings are refused by name rather than stored as plain strings") {
    // Collations are Spark 4.0+ (LineBehaviour.collations).
    val collated = if (LineBehaviour.collations) Seq("STRING COLLATE UTF8_LCASE" -> "UTF8_LCASE", "ARRAY<STRING COLLATE UNICODE_CI>" -> "UNICODE_CI") else Nil
    for ((declared, shown) <- Seq("VARCHAR(2)" -> "VARCHAR(2)", "CHAR(3)" -> "CHAR(3)", "STRUCT<v: VARCHAR(4)>" -> "VARCHAR(4)") ++ collated) {
      refusedCreate("d", "LANCE_UNSUPPORTED_FEATURE", shown)(spark.sql(s"CREATE TABLE d (id INT, v $declared) USING lance"))
    }
    if (LineBehaviour.collations) refusedCreate("d", "LANCE_UNSUPPORTED_FEATURE", "UTF8_LCASE")(
      spark.sql("CREATE TABLE d USING lance AS SELECT 'a' COLLATE UTF8_LCASE AS v"))
    spark.sql("CREATE TABLE d (id INT) USING lance")
    val e = lanceError(spark.sql("ALTER TABLE d ADD COLUMNS (v VARCHAR(5))"))
    assert(e.errorClass == "LANCE_UNSUPPORTED_FEATURE" && e.getMessage.contains("VARCHAR(5)"), e.getMessage)
    assert(versions(location("d")) == Seq(1L))
    // Plain strings stay as they were, and a collated value written into one is a plain string.
    spark.sql("CREATE TABLE s (v STRING) USING lance")
    spark.sql(if (LineBehaviour.collations) "INSERT INTO s SELECT 'A' COLLATE UTF8_LCASE" else "INSERT INTO s SELECT 'A'")
    assert(rows("SELECT v FROM s WHERE v = 'a'").isEmpty && rows("SELECT v FROM s") == Seq(Row("A")))
  }
}
