package io.sparklance.spark.catalog

import java.io.File
import java.nio.file.Files
import java.sql.Timestamp

import org.apache.spark.sql.{AnalysisException, Row}
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.table.proto.TransactionCodec
import io.sparklance.testutil.CatalogTables
import io.sparklance.util.Bytes

/** Lance tables by name in the session catalog: CREATE, CTAS, REPLACE, INSERT, DROP, DESCRIBE, time travel. */
class SessionCatalogSuite extends AnyFunSuite with CatalogTables {

  private def newDir(): String = Files.createTempDirectory("lance-catalog").toFile.getPath

  test("CREATE TABLE commits an empty version 1 at the managed location; INSERT INTO and INSERT OVERWRITE add versions") {
    spark.sql("CREATE TABLE people (id BIGINT NOT NULL, name STRING, score DOUBLE) USING lance")
    val path = location("people")
    assert(path.startsWith(new File(new java.net.URI(spark.conf.get("spark.sql.warehouse.dir"))).getPath), path)
    assert(versions(path) == Seq(1L))
    assert(snapshot("people").manifest.fragments.isEmpty)
    assert(spark.table("people").schema == StructType(Seq(
      StructField("id", LongType, nullable = false), StructField("name", StringType), StructField("score", DoubleType))))
    assert(rows("SELECT * FROM people").isEmpty)

    spark.sql("INSERT INTO people VALUES (1, 'a', 1.5), (2, 'b', NULL)")
    spark.sql("INSERT INTO people SELECT id + 10, upper(name), score FROM people")
    assert(rows("SELECT id, name, score FROM people ORDER BY id") ==
      Seq(Row(1L, "a", 1.5), Row(2L, "b", null), Row(11L, "A", 1.5), Row(12L, "B", null)))
    spark.sql("INSERT OVERWRITE people VALUES (7, 'z', 7.0)")
    assert(rows("SELECT * FROM people") == Seq(Row(7L, "z", 7.0)))
    assert(versions(path) == Seq(1L, 2L, 3L, 4L))
    // Spark matched the VALUES by position and cast them to the table's types.
    assert(rows("SELECT count(*) FROM people VERSION AS OF 3") == Seq(Row(4L)))
    assert(rows("SELECT id FROM people VERSION AS OF 2 ORDER BY id") == Seq(Row(1L), Row(2L)))
  }

  test("VERSION AS OF a tag name; INSERT BY NAME") {
    spark.sql("CREATE TABLE tg (id BIGINT, s STRING) USING lance")
    spark.sql("INSERT INTO tg BY NAME SELECT 'one' AS s, 1L AS id")
    val tags = new File(location("tg"), "_refs/tags")
    tags.mkdirs()
    Files.writeString(new File(tags, "first.json").toPath, "{\"version\": 2, \"manifest_size\": 0}")
    spark.sql("INSERT INTO tg VALUES (2, 'two')")
    assert(rows("SELECT id, s FROM tg VERSION AS OF 'first'") == Seq(Row(1L, "one")))
    assert(rows("SELECT count(*) FROM tg") == Seq(Row(2L)))
  }

  test("TIMESTAMP AS OF reads the version current at that time") {
    spark.sql("CREATE TABLE t (id BIGINT) USING lance")
    spark.sql("INSERT INTO t VALUES (1)")
    val afterFirst = snapshot("t").manifest.timestamp.get
    Thread.sleep(20)
    spark.sql("INSERT INTO t VALUES (2)")
    val ts = Timestamp.from(afterFirst.plusMillis(5))
    assert(rows(s"SELECT id FROM t TIMESTAMP AS OF '$ts'") == Seq(Row(1L)))
    assert(rows("SELECT id FROM t ORDER BY id") == Seq(Row(1L), Row(2L)))
  }

  test("CREATE TABLE AS SELECT is one Lance commit that holds the rows; TBLPROPERTIES become table config") {
    spark.sql("CREATE TABLE c USING lance TBLPROPERTIES ('team' = 'data', 'lance.auto_cleanup.interval' = '20') " +
      "AS SELECT id, id * 2 AS twice FROM range(5)")
    val path = location("c")
    assert(versions(path) == Seq(1L))
    assert(rows("SELECT sum(twice) FROM c") == Seq(Row(20L)))
    val config = snapshot("c").manifest.config
    assert(config.get("team").contains("data") && config.get("lance.auto_cleanup.interval").contains("20"))
    val shown = rows("SHOW TBLPROPERTIES c").map(r => r.getString(0) -> r.getString(1)).toMap
    assert(shown.get("team").contains("data"), shown)
    assert(shown.keySet == Set("team", "lance.auto_cleanup.interval"), "Spark shows no reserved property here")
  }

  test("REPLACE TABLE AS SELECT overwrites data and schema in one new version; the old one stays readable") {
    spark.sql("CREATE TABLE r USING lance AS SELECT id FROM range(3)")
    spark.sql("REPLACE TABLE r USING lance AS SELECT CAST(id AS INT) AS k, 'x' AS v FROM range(2)")
    assert(versions(location("r")) == Seq(1L, 2L))
    assert(spark.table("r").schema.fieldNames.toSeq == Seq("k", "v"))
    assert(rows("SELECT k, v FROM r ORDER BY k") == Seq(Row(0, "x"), Row(1, "x")))
    assert(rows("SELECT id FROM r VERSION AS OF 1 ORDER BY id") == Seq(Row(0L), Row(1L), Row(2L)))
    // Without a query: an empty version with the new columns.
    spark.sql("CREATE OR REPLACE TABLE r (a STRING) USING lance")
    assert(versions(location("r")) == Seq(1L, 2L, 3L))
    assert(spark.table("r").schema.fieldNames.toSeq == Seq("a") && rows("SELECT * FROM r").isEmpty)
  }

  test("DataFrameWriterV2: create, append, createOrReplace") {
    val s = spark
    import s.implicits._
    Seq((1L, "a"), (2L, "b")).toDF("id", "v").writeTo("w").using("lance").create()
    Seq((3L, "c")).toDF("id", "v").writeTo("w").append()
    assert(rows("SELECT id FROM w ORDER BY id") == Seq(Row(1L), Row(2L), Row(3L)))
    Seq((9L, "z")).toDF("id", "v").writeTo("w").using("lance").createOrReplace()
    assert(rows("SELECT * FROM w") == Seq(Row(9L, "z")))
    assert(versions(location("w")) == Seq(1L, 2L, 3L))
    assert(intercept[TableAlreadyExistsException](Seq((1L, "a")).toDF("id", "v").writeTo("w").using("lance").create()) != null)
  }

  test("CREATE TABLE ... LOCATION names an existing Lance table with its schema; DROP keeps an external table's data") {
    val path = new File(newDir(), "ext.lance").getPath
    spark.range(4).selectExpr("id", "CAST(id AS STRING) AS s").write.format("lance").save(path)
    spark.sql(s"CREATE TABLE ext USING lance LOCATION '$path'")
    assert(spark.table("ext").schema.fieldNames.toSeq == Seq("id", "s"))
    assert(rows("SELECT count(*) FROM ext") == Seq(Row(4L)))
    spark.sql("INSERT INTO ext VALUES (10, 'ten')")
    assert(rows("SELECT count(*) FROM ext") == Seq(Row(5L)))
    val described = rows("DESCRIBE TABLE EXTENDED ext").map(r => r.getString(0) -> r.getString(1)).toMap
    assert(described.get("Provider").contains("lance") && described.get("Location").exists(_.contains("ext.lance")), described)
    spark.sql("DROP TABLE ext")
    assert(versions(path) == Seq(1L, 2L), "an external table's data stays")
    assert(spark.read.format("lance").load(path).count() == 5)
    // Declared columns must be the table's.
    val e = lanceError(spark.sql(s"CREATE TABLE ext2 (id BIGINT, s INT) USING lance LOCATION '$path'"))
    assert(e.errorClass == "LANCE_SCHEMA_MISMATCH" && e.getMessage.contains("'s' is int, the table takes string"), e.getMessage)
    assert(!spark.catalog.tableExists("ext2"))
  }

  test("DROP TABLE deletes a managed table's folder") {
    spark.sql("CREATE TABLE m USING lance AS SELECT 1 AS x")
    val path = new File(location("m"))
    assert(new File(path, "_versions").isDirectory)
    spark.sql("DROP TABLE m")
    assert(!path.exists())
  }

  test("statements Lance cannot honour are refused by name and change nothing") {
    assert(lanceError(spark.sql("CREATE TABLE p (id BIGINT, d STRING) USING lance PARTITIONED BY (d)")).errorClass ==
      "LANCE_UNSUPPORTED_FEATURE")
    assert(!spark.catalog.tableExists("p"))
    val empty = newDir()
    val e = lanceError(spark.sql(s"CREATE TABLE nothing USING lance LOCATION '$empty'"))
    assert(e.errorClass == "LANCE_DATASET_NOT_FOUND" && e.getMessage.contains("gives no columns"), e.getMessage)
    assert(!spark.catalog.tableExists("nothing"))
    spark.sql("CREATE TABLE t (id BIGINT NOT NULL) USING lance")
    intercept[TableAlreadyExistsException](spark.sql("CREATE TABLE t (id BIGINT) USING lance"))
    spark.sql("CREATE TABLE IF NOT EXISTS t (id BIGINT) USING lance")
    // Spark checks the columns before the write; a NULL for a NOT NULL column fails the write.
    intercept[AnalysisException](spark.sql("INSERT INTO t VALUES (1, 2)"))
    intercept[Exception](spark.sql("INSERT INTO t SELECT CAST(NULL AS BIGINT)"))
    assert(lanceError(spark.sql("ALTER TABLE t ADD COLUMNS (x INT NOT NULL)")).errorClass == "LANCE_UNSUPPORTED_FEATURE")
    assert(spark.table("t").schema.fieldNames.toSeq == Seq("id"))
    assert(versions(location("t")) == Seq(1L), "failed statements commit nothing")
  }

  test("tables of other providers are the built-in catalog's as before") {
    spark.sql("CREATE TABLE pq (id INT) USING parquet")
    spark.sql("INSERT INTO pq VALUES (1), (2)")
    assert(rows("SELECT sum(id) FROM pq") == Seq(Row(2L + 1L)))
    spark.sql("CREATE TABLE pq2 USING parquet AS SELECT * FROM pq")
    assert(rows("SELECT count(*) FROM pq2") == Seq(Row(2L)))
  }

  test("INSERT commits carry an Append transaction read at the version the statement loaded") {
    spark.sql("CREATE TABLE a (id BIGINT) USING lance")
    spark.sql("INSERT INTO a VALUES (1)")
    val m = snapshot("a").manifest
    val txnPath = s"${location("a")}/_transactions/${m.transactionFile.get}"
    val txn = TransactionCodec.parse(Bytes.wrap(txnPath, 0, store.readAll(txnPath)))
    assert(txn.readVersion == 1L && txn.operation.name == "Append", txn)
  }

  test("a table name the metastore refuses is refused before anything is written, inside the warehouse or out") {
    val warehouse = new File(new java.net.URI(spark.conf.get("spark.sql.warehouse.dir")))
    val escaped = new File(warehouse.getParentFile, s"escaped-${warehouse.getName}")
    val before = warehouse.list().toSet
    for (name <- Seq(s"../${escaped.getName}", "x/y", "a\u0000b", "..", "")) {
      val quoted = "`" + name + "`"
      for (sql <- Seq(s"CREATE TABLE default.$quoted (a INT) USING lance", s"CREATE TABLE default.$quoted USING lance AS SELECT 1 AS a")) {
        val e = lanceError(spark.sql(sql))
        assert(e.errorClass == "LANCE_INVALID_NAME", e.getMessage)
        assert(e.getMessage.contains(s"'${name.replace("\u0000", "\\u0000")}'"), e.getMessage)
      }
    }
    assert(!escaped.exists() && warehouse.list().toSet == before, "no folder created next to the warehouse or in it")
  }

  test("a relative LOCATION is resolved below the database's folder, where the metastore records it") {
    val warehouse = new File(new java.net.URI(spark.conf.get("spark.sql.warehouse.dir")))
    val cwd = new File(".").getCanonicalFile
    spark.sql("CREATE TABLE rel (id BIGINT) USING lance LOCATION 'rel-location'")
    assert(location("rel") == new File(warehouse, "rel-location").getPath)
    assert(versions(location("rel")) == Seq(1L))
    assert(!new File(cwd, "rel-location").exists(), "nothing under the driver's working folder")
    assert(spark.catalog.tableExists("rel"))
    spark.sql("INSERT INTO rel VALUES (1), (2)")
    assert(rows("SELECT sum(id) FROM rel") == Seq(Row(3L)))
    spark.sql("CREATE TABLE rel2 USING lance LOCATION 'nested/rel2' AS SELECT 7L AS id")
    assert(location("rel2") == new File(warehouse, "nested/rel2").getPath)
    assert(rows("SELECT id FROM rel2") == Seq(Row(7L)) && !new File(cwd, "nested").exists())
    assert(spark.catalog.tableExists("rel2"))
    spark.sql("DROP TABLE rel2")
    assert(new File(warehouse, "nested/rel2/_versions").isDirectory, "an external table's data stays")
  }
}
