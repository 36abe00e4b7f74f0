package io.sparklance.spark.dml

import java.io.File

import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.table.{DeletionFileType, Snapshot}
import io.sparklance.table.proto.TransactionCodec
import io.sparklance.testutil.CatalogTables
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
      case io.sparklance.table.commit.Operation.Update(removed, updated, added, _, false, false, _, false) =>
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

  test("INSERT INTO ... REPLACE WHERE and overwrite(condition): the matching rows replaced in one Update") {
    table("r", 30, 10)
    val v = snapshot("r").version
    spark.sql("INSERT INTO r REPLACE WHERE id >= 5 AND id < 12 SELECT id, 'new' FROM range(5, 8)")
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

  test("a DELETE on a path table, or at an old version, is refused by name") {
    table("p", 5, 5)
    val e = intercept[Exception](spark.sql(s"DELETE FROM lance.`${location("p")}` WHERE id = 1"))
    assert(e.getMessage != null)
    assert(ids("p") == (0L until 5L))
  }
}
