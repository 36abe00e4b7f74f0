package io.sparklance.spark.dml

import java.io.File
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.table.Snapshot
import io.sparklance.table.commit.{KeyExistenceFilter, Operation}
import io.sparklance.table.proto.TransactionCodec
import io.sparklance.testutil.CatalogTables
import io.sparklance.util.Bytes

/**
 * A MERGE on a table's unenforced primary key records the keys it inserted exactly as pylance's
 * merge-insert does: for the same keys the two transactions carry the same bloom filter, bit
 * for bit, so that each side's conflict check reads the other's. A MERGE whose ON condition is
 * not the key records none (and stays conservative).
 */
class InsertedKeysSuite extends AnyFunSuite with CatalogTables {

  // pylance: a table (key column `k` of the given type, primary key), then a merge-insert of `new` keys on a copy.
  private val Make =
    """import sys, shutil, json, lance, pyarrow as pa
      |kind, path, copy = sys.argv[1], sys.argv[2], sys.argv[3]
      |t = pa.int64() if kind == "long" else pa.string()
      |key = (lambda i: i) if kind == "long" else (lambda i: f"key-{i}")
      |schema = pa.schema([pa.field("k", t, nullable=False, metadata={"lance-schema:unenforced-primary-key": "true"}),
      |                    pa.field("v", pa.int64())])
      |lance.write_dataset(pa.table({"k": [key(i) for i in range(10)], "v": list(range(10))}, schema=schema), path)
      |shutil.copytree(path, copy)
      |src = pa.table({"k": [key(i) for i in (5, 100, 101, 102)], "v": [50, 1000, 1010, 1020]}, schema=schema)
      |lance.dataset(copy).merge_insert("k").when_matched_update_all().when_not_matched_insert_all().execute(src)
      |print(json.dumps({"rows": lance.dataset(copy).count_rows()}))
      |""".stripMargin

  private def python(script: String, args: String*): Map[String, Any] = io.sparklance.testutil.PylanceScript.run(script, args: _*)

  private def lastUpdate(path: String): Operation.Update = {
    val m = Snapshot.open(store, path, None).manifest
    val file = s"$path/_transactions/${m.transactionFile.get}"
    TransactionCodec.parse(Bytes.wrap(file, 0, store.readAll(file))).operation match {
      case u: Operation.Update => u
      case other => fail(s"expected an Update, got $other")
    }
  }

  private val Statements = Seq(
    "a MERGE" -> "MERGE INTO pk USING src ON pk.k = src.k WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
    // Spark writes an insert-only MERGE as an append; into a primary-key table it commits as a merge-insert.
    "an insert-only MERGE" -> "MERGE INTO pk USING src ON pk.k = src.k WHEN NOT MATCHED THEN INSERT *")

  for ((kind, key) <- Seq("long" -> "id", "string" -> "concat('key-', id)"); (label, statement) <- Statements) {
    test(s"$label on a $kind primary key records the keys it inserted as pylance does") {
      val dir = Files.createTempDirectory("inserted-keys").toFile
      val (ours, theirs) = (new File(dir, "ours.lance").getPath, new File(dir, "theirs.lance").getPath)
      assert(python(Make, kind, ours, theirs)("rows").toString.toDouble == 13)
      spark.sql(s"CREATE TABLE pk USING lance LOCATION '$ours'")
      spark.sql(s"SELECT $key AS k, id * 10 AS v FROM VALUES (5L), (100L), (101L), (102L) AS s(id)").createOrReplaceTempView("src")
      spark.sql(statement)
      assert(rows("SELECT count(*) FROM pk").head.getLong(0) == 13)
      val (mine, pylance) = (lastUpdate(ours).insertedRows.get, lastUpdate(theirs).insertedRows.get)
      assert(mine.fieldIds == pylance.fieldIds)
      (mine.data, pylance.data) match {
        case (a: KeyExistenceFilter.Bloom, b: KeyExistenceFilter.Bloom) =>
          assert(a.bitmap.count(_ != 0) > 0, "the inserted keys set bits")
          assert(a == b, "the same bits, size and configuration as pylance's")
        case other => fail(s"expected two bloom filters, got $other")
      }
      assert(!mine.mayOverlap(mine.copy(data = KeyExistenceFilter.Bloom(new Array[Byte](32768), 262144, 8192, 0.00057))))
      spark.sql("DROP TABLE pk")
    }
  }

  test("a MERGE whose ON condition is not the primary key records no keys and stays strict") {
    val dir = Files.createTempDirectory("inserted-keys").toFile
    val (ours, theirs) = (new File(dir, "ours.lance").getPath, new File(dir, "theirs.lance").getPath)
    python(Make, "long", ours, theirs)
    spark.sql(s"CREATE TABLE pk2 USING lance LOCATION '$ours'")
    spark.sql("MERGE INTO pk2 USING (SELECT 200L AS k, 777L AS v) s ON pk2.v = s.v " +
      "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    val u = lastUpdate(ours)
    assert(u.insertedRows.isEmpty && u.insertsKeys == false, "insertsKeys is never stored")
    assert(rows("SELECT count(*) FROM pk2 WHERE k = 200").head.getLong(0) == 1)
  }
}
