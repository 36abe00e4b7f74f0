package io.sparklance.spark.dml

import java.io.File

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.CommandResultExec
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.table.{DeletionFileType, Snapshot}
import io.sparklance.table.proto.TransactionCodec
import io.sparklance.testutil.{CatalogTables, LineBehaviour}
import io.sparklance.util.Bytes

/** DELETE, UPDATE and MERGE INTO on Lance tables: deletion files, rewritten rows, one commit each. */
class DmlSuite extends AnyFunSuite with CatalogTables {

  private def ids(table: String): Seq[Long] = rows(s"SELECT id FROM $table ORDER BY id").map(_.getLong(0))
  private def lastOperation(table: String) = {
    val m = snapshot(table).manifest
    val path = s"${location(table)}/_transactions/${m.transactionFile.get}"
    TransactionCodec.parse(Bytes.wrap(path, 0, store.readAll(path))).operation
  }

  /** A table of ids 0 until `n`, `perFragment` rows per fragment, with a name column. */
  private def table(name: String, n: Int, perFragment: Int): Unit = {
    spark.sql(s"CREATE TABLE $name (id BIGINT NOT NULL, name STRING) USING lance OPTIONS (maxRowsPerFile '$perFragment')")
    spark.range(n).coalesce(1).selectExpr("id", "concat('n', id) AS name").writeTo(name).append()
  }

  test("DELETE writes a deletion file in each fragment it touches and one Delete commit") {
    table("d", 30, 10)
    val before = snapshot("d")
    assert(before.manifest.fragments.map(_.physicalRows) == Seq(10L, 10L, 10L))
    spark.sql("DELETE FROM d WHERE id IN (3, 13, 23, 25)")
    assert(ids("d") == (0L until 30L).filterNot(i => i % 10 == 3 || i == 25))
    val after = snapshot("d")
    assert(after.version == before.version + 1)
    val files = after.manifest.fragments.map(f => f.id -> f.deletionFile).toMap
    assert(files.values.forall(_.exists(d => d.fileType == DeletionFileType.Bitmap)))
    assert(after.manifest.fragments.map(_.deletionFile.get.numDeletedRows) == Seq(1L, 1L, 2L))
    lastOperation("d") match {
      case io.sparklance.table.commit.Operation.Delete(updated, removed, predicate) =>
        assert(updated.map(_.id) == Seq(0L, 1L, 2L) && removed.isEmpty)
        assert(predicate == "id IN (3, 13, 23, 25)", "the pushed condition is the recorded predicate")
      case other => fail(s"expected a Delete, got $other")
    }
    // A second delete in the same fragment keeps the first one's rows deleted.
    spark.sql("DELETE FROM d WHERE id % 10 = 4 AND id > 20") // not pushed down: Spark filters the rows
    assert(ids("d") == (0L until 30L).filterNot(i => i % 10 == 3 || i == 25 || i == 24))
    assert(snapshot("d").manifest.fragments.find(_.id == 2).get.deletionFile.get.numDeletedRows == 3)
    // Earlier versions still read their rows.
    assert(rows(s"SELECT count(*) FROM d VERSION AS OF ${before.version}") == Seq(Row(30L)))
  }

  test("a DELETE that empties a fragment removes it; a DELETE matching nothing commits nothing") {
    table("e", 30, 10)
    spark.sql("DELETE FROM e WHERE id >= 5 AND id < 20")
    assert(ids("e") == ((0L until 5L) ++ (20L until 30L)))
    assert(snapshot("e").manifest.fragments.map(_.id) == Seq(0L, 2L))
    val v = snapshot("e").version
    spark.sql("DELETE FROM e WHERE id > 1000")
    assert(snapshot("e").version == v)
  }

  test("UPDATE deletes the old rows and writes them again in a new fragment, as one Update") {
    table("u", 20, 10)
    spark.sql("UPDATE u SET name = upper(name) WHERE id >= 8 AND id < 12")
    assert(rows("SELECT id, name FROM u WHERE id BETWEEN 7 AND 12 ORDER BY id") ==
      Seq(Row(7L, "n7"), Row(8L, "N8"), Row(9L, "N9"), Row(10L, "N10"), Row(11L, "N11"), Row(12L, "n12")))
    assert(rows("SELECT count(*) FROM u") == Seq(Row(20L)))
    val m = snapshot("u").manifest
    // The rewritten rows are in new fragments (one per task that wrote some), after the old ones.
    assert(m.fragments.filter(_.id >= 2).map(_.physicalRows).sum == 4)
    lastOperation("u") match {
      case io.sparklance.table.commit.Operation.Update(removed, updated, added, _, false, None, _, false) =>
        assert(removed.isEmpty && updated.map(_.id) == Seq(0L, 1L) && added.map(_.physicalRows).sum == 4)
      case other => fail(s"expected an Update, got $other")
    }
  }

  test("MERGE INTO updates matched rows, inserts the others, deletes by source; a target row matched by two source rows fails") {
    table("m", 10, 5)
    spark.range(8, 13).selectExpr("id", "concat('s', id) AS name").createOrReplaceTempView("src")
    spark.sql("""MERGE INTO m USING src ON m.id = src.id
                |WHEN MATCHED THEN UPDATE SET name = src.name
                |WHEN NOT MATCHED THEN INSERT *
                |WHEN NOT MATCHED BY SOURCE AND m.id < 2 THEN DELETE""".stripMargin)
    assert(rows("SELECT id, name FROM m ORDER BY id") ==
      (2L until 8L).map(i => Row(i, s"n$i")) ++ (8L until 13L).map(i => Row(i, s"s$i")))
    val v = snapshot("m").version
    spark.sql("SELECT * FROM src UNION ALL SELECT 9, 'again'").createOrReplaceTempView("dup")
    val e = intercept[Exception](spark.sql(
      "MERGE INTO m USING dup ON m.id = dup.id WHEN MATCHED THEN UPDATE SET name = dup.name"))
    assert(e.getMessage.contains("MERGE_CARDINALITY_VIOLATION"), e.getMessage)
    assert(snapshot("m").version == v, "the failed MERGE committed nothing")
  }

  /** (fragments pruned, zones pruned) by the scans of `statement` that Spark narrowed with a runtime filter on `column`. */
  private def runtimeFiltered(statement: DataFrame, column: String): Seq[(Long, Long)] = {
    val plan = statement.queryExecution.executedPlan match {
      case c: CommandResultExec => c.commandPhysicalPlan
      case p => p
    }
    new AdaptiveSparkPlanHelper {}.collectWithSubqueries(plan) {
      case s: BatchScanExec if s.runtimeFilters.exists(_.references.exists(_.name == column)) =>
        (s.metrics("lanceFragmentsPruned").value, s.metrics("lanceZonesPruned").value)
    }
  }

  /** Fragments pruned by the runtime query by fragment. */
  private def runtimePruned(statement: DataFrame): Seq[Long] = runtimeFiltered(statement, "_fragid").map(_._1)

  test("UPDATE and MERGE read the rows they rewrite only from the fragments holding matches; DELETE reads once") {
    table("g", 50, 10)
    // Not translatable, so no statistics prune it: only the runtime query finds that fragment 3 holds the rows.
    val update = spark.sql("UPDATE g SET name = 'u' WHERE id % 50 IN (33, 35)")
    assert(runtimePruned(update) == Seq(4L).filter(_ => LineBehaviour.deltaRuntimeFiltering))
    spark.range(41, 44).union(spark.range(60, 62)).selectExpr("id", "concat('s', id) AS name").createOrReplaceTempView("few")
    val merge = spark.sql("MERGE INTO g USING few ON g.id = few.id WHEN MATCHED THEN UPDATE SET name = few.name WHEN NOT MATCHED THEN INSERT *")
    // Fragment 4 holds 41-43; the UPDATE's new fragment and fragments 0-3 are skipped.
    assert(runtimePruned(merge) == Seq(5L).filter(_ => LineBehaviour.deltaRuntimeFiltering))
    assert(rows("SELECT id, name FROM g WHERE name NOT LIKE 'n%' ORDER BY id") ==
      Seq(Row(33L, "u"), Row(35L, "u"), Row(41L, "s41"), Row(42L, "s42"), Row(43L, "s43"), Row(60L, "s60"), Row(61L, "s61")))
    assert(rows("SELECT count(*) FROM g") == Seq(Row(52L)))
    // A source matching nothing still inserts its rows, reading no target fragment twice.
    spark.range(70, 72).selectExpr("id", "'x' AS name").createOrReplaceTempView("none")
    spark.sql("MERGE INTO g USING none ON g.id = none.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *")
    assert(rows("SELECT count(*) FROM g") == Seq(Row(54L)))
    assert(runtimePruned(spark.sql("DELETE FROM g WHERE id % 50 = 7")).isEmpty, "a DELETE is not run twice")
    assert(rows("SELECT count(*) FROM g") == Seq(Row(53L)))
  }

  private def prunedBySourceKeys(statement: DataFrame): Seq[(Long, Long)] = runtimeFiltered(statement, "id")

  test("MERGE reads only the target zones that may hold a source key; not with WHEN NOT MATCHED BY SOURCE") {
    // pylance's `indexed` table: ids 0-19999 in fragments 0-3 (ZONEMAP on id), 20000-20999 in fragment 4 (not indexed).
    val dir = io.sparklance.testutil.HostileCopies.copy("indexed")
    spark.sql(s"CREATE TABLE k USING lance LOCATION '${dir.getPath}'")
    val before = rows("SELECT count(*), sum(x) FROM k").head
    spark.createDataFrame(Seq((12000L, 1e300), (12001L, 2e300), (50000L, 3e300))).toDF("id", "x").createOrReplaceTempView("keys")
    val merge = spark.sql("MERGE INTO k USING keys ON k.id = keys.id WHEN MATCHED THEN UPDATE SET x = keys.x " +
      "WHEN NOT MATCHED THEN INSERT (id, x) VALUES (keys.id, keys.x)")
    val (fragments, zones) = prunedBySourceKeys(merge).head
    assert(fragments == 3, "fragments 0, 1 and 3 hold no source key; 4 has no zone map and is read")
    assert(zones > 0)
    assert(runtimePruned(merge).isEmpty, "with the keys at hand, no runtime query by fragment")
    assert(rows("SELECT id, x FROM k WHERE x >= 1e300 ORDER BY id") == Seq(Row(12000L, 1e300), Row(12001L, 2e300), Row(50000L, 3e300)))
    assert(rows("SELECT count(*) FROM k") == Seq(Row(before.getLong(0) + 1)))
    // Rows the source does not match must be visited for the BY SOURCE clause: nothing pruned.
    val bySource = spark.sql("MERGE INTO k USING keys ON k.id = keys.id WHEN MATCHED THEN UPDATE SET x = keys.x " +
      "WHEN NOT MATCHED BY SOURCE AND k.id = 7 THEN DELETE")
    assert(prunedBySourceKeys(bySource).isEmpty)
    assert(rows("SELECT count(*) FROM k WHERE id = 7") == Seq(Row(0L)))
    // Without adaptive execution, and with a Lance table as the source (planned through its own scan).
    spark.sql("CREATE TABLE ks USING lance AS SELECT CAST(id + 3000 AS BIGINT) AS id, CAST(id + 0.5 AS DOUBLE) AS x FROM range(2)")
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try {
      val fromTable = spark.sql("MERGE INTO k USING ks ON k.id = ks.id WHEN MATCHED THEN UPDATE SET x = ks.x")
      assert(prunedBySourceKeys(fromTable).map(_._1) == Seq(3L))
    } finally spark.conf.unset("spark.sql.adaptive.enabled")
    assert(rows("SELECT id, x FROM k WHERE id IN (3000, 3001) ORDER BY id") == Seq(Row(3000L, 0.5), Row(3001L, 1.5)))
    spark.conf.set(SourceKeyPruning.MaxSourceBytes, "-2")
    try assert(lanceError(spark.sql("MERGE INTO k USING keys ON k.id = keys.id WHEN MATCHED THEN DELETE")).errorClass == "LANCE_INVALID_OPTION")
    finally spark.conf.unset(SourceKeyPruning.MaxSourceBytes)
    spark.conf.set(SourceKeyPruning.MaxSourceBytes, "-1")
    try assert(prunedBySourceKeys(spark.sql("MERGE INTO k USING keys ON k.id = keys.id WHEN MATCHED THEN DELETE")).isEmpty)
    finally spark.conf.unset(SourceKeyPruning.MaxSourceBytes)
    assert(rows("SELECT count(*) FROM k WHERE x >= 1e300") == Seq(Row(0L)))
  }

  test("INSERT INTO ... REPLACE WHERE and overwrite(condition): the matching rows replaced in one Update") {
    table("r", 30, 10)
    val v = snapshot("r").version
    spark.sql("INSERT INTO r REPLACE WHERE id >= 5 AND id < 12 SELECT id, 'new' FROM range(5, 8)")
    // Rows outside the condition (or where it is NULL) fail the statement, which commits nothing.
    val before = snapshot("r").version
    Seq("id >= 5 AND id < 12 SELECT id, 'out' FROM range(11, 13)", "name > 'a' SELECT 40, CAST(NULL AS STRING)").foreach { statement =>
      assert(lanceError(spark.sql(s"INSERT INTO r REPLACE WHERE $statement")).errorClass == "LANCE_REPLACE_WHERE_MISMATCH")
    }
    assert(snapshot("r").version == before)
    assert(rows("SELECT id, name FROM r WHERE id BETWEEN 3 AND 13 ORDER BY id") ==
      Seq(Row(3L, "n3"), Row(4L, "n4"), Row(5L, "new"), Row(6L, "new"), Row(7L, "new"), Row(12L, "n12"), Row(13L, "n13")))
    assert(snapshot("r").version == v + 1)
    assert(lastOperation("r").isInstanceOf[io.sparklance.table.commit.Operation.Update])
    // A condition the statistics decide is not needed here; a whole-table condition is an overwrite.
    val s = spark
    import s.implicits._
    Seq((100L, "x")).toDF("id", "name").writeTo("r").overwrite($"id" >= 20)
    assert(rows("SELECT max(id), count(*) FROM r") == Seq(Row(100L, 20L - 7 + 3 + 1)))
  }

  // What pylance sees of a table: its rows, column names and types now and at `version`.
  private val PylanceView =
    """import sys, json, lance
      |ds = lance.dataset(sys.argv[1])
      |old = ds.checkout_version(int(sys.argv[2]))
      |print(json.dumps({"latest": ds.version, "rows": ds.count_rows(), "schema": str(ds.schema), "oldSchema": str(old.schema),
      |  "oldIds": sorted(old.to_table(columns=["id"]).column("id").to_pylist()), "indices": [i.name for i in ds.describe_indices()]}))
      |""".stripMargin

  test("TRUNCATE TABLE, DELETE FROM t and DELETE FROM t WHERE true remove every fragment in one Delete; older versions stay") {
    Seq("TRUNCATE TABLE w", "DELETE FROM w", "DELETE FROM w WHERE true", "DELETE FROM w WHERE 1 = 1").foreach { statement =>
      table("w", 30, 10)
      io.sparklance.testutil.PylanceScript.run(
        """import sys, lance; lance.dataset(sys.argv[1]).create_scalar_index("id", "ZONEMAP"); print("{}")""", location("w"))
      val before = snapshot("w")
      spark.sql(statement)
      assert(ids("w").isEmpty, statement)
      val after = snapshot("w")
      assert(after.version == before.version + 1 && after.manifest.fragments.isEmpty, statement)
      lastOperation("w") match {
        case io.sparklance.table.commit.Operation.Delete(updated, removed, predicate) =>
          assert(updated.isEmpty && removed == Seq(0L, 1L, 2L) && predicate == "TRUE", statement)
        case other => fail(s"$statement: expected a Delete, got $other")
      }
      val seen = io.sparklance.testutil.PylanceScript.run(PylanceView, location("w"), before.version.toString)
      assert(seen("latest") == after.version && seen("rows") == 0L, s"$statement: $seen")
      assert(seen("schema") == seen("oldSchema") && seen("oldIds") == (0L until 30L), s"$statement: $seen")
      assert(seen("indices") == Seq("id_idx"), s"$statement: the index stays: $seen")
      // An empty table takes rows again; emptying it once more commits nothing.
      spark.sql(statement)
      assert(snapshot("w").version == after.version, statement)
      spark.sql("INSERT INTO w VALUES (7, 'x')")
      assert(ids("w") == Seq(7L), statement)
      spark.sql("DROP TABLE w")
    }
  }

  test("TRUNCATE TABLE of a tagged version is refused by name, not answered with nothing done") {
    table("q", 5, 5)
    io.sparklance.testutil.PylanceScript.run(
      """import sys, lance; ds = lance.dataset(sys.argv[1]); ds.tags.create("first", ds.version); print("{}")""", location("q"))
    val e = lanceError(spark.sql("TRUNCATE TABLE q.tag_first"))
    assert(e.errorClass == "LANCE_UNSUPPORTED_FEATURE" && e.getMessage.contains("TRUNCATE TABLE"), e)
    assert(ids("q") == (0L until 5L))
  }

  test("a DELETE on a path table, or at an old version, is refused by name") {
    table("p", 5, 5)
    val e = intercept[Exception](spark.sql(s"DELETE FROM lance.`${location("p")}` WHERE id = 1"))
    assert(e.getMessage != null)
    assert(ids("p") == (0L until 5L))
  }
}
