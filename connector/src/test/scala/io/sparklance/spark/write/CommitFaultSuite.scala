package io.sparklance.spark.write

import java.io.File
import java.nio.file.Files

import org.apache.spark.sql.{DataFrame, SaveMode}
import org.scalatest.BeforeAndAfterEach
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.{FaultyFileSystem, StorageFaults}
import io.sparklance.storage.hadoop.StorageFaults.{NotStored, StoredThenExists, StoredThenLost}
import io.sparklance.testutil.{LocalSpark, PylanceScript}
import io.sparklance.util.LanceException

/**
 * Every kind of write, with the storage answer of its commit lost or lying: the manifest is
 * stored and then answered with "already exists" (what S3A's retry of a PUT whose response was
 * lost gets: 412), stored and then an error, or refused before it is stored. The write must
 * commit exactly once or fail with a class that says what to do; no version may name a file
 * that is gone. pylance, reading the same folders as local paths, is the judge.
 */
class CommitFaultSuite extends AnyFunSuite with LocalSpark with BeforeAndAfterEach {

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    spark.sparkContext.hadoopConfiguration.set("fs.faulty.impl", classOf[FaultyFileSystem].getName)
    spark.sparkContext.hadoopConfiguration.set("fs.faulty.impl.disable.cache", "true")
  }

  override protected def afterEach(): Unit = {
    StorageFaults.clear()
    spark.sessionState.catalog.listTables("default").foreach(t => spark.sql(s"DROP TABLE IF EXISTS ${t.quotedString}"))
    super.afterEach()
  }

  private val Faults = Seq(StoredThenExists, StoredThenLost, NotStored)

  /** A new table folder: (its local path, the same folder under faulty://). */
  private def newFolder(): (String, String) = {
    val local = new File(Files.createTempDirectory("commit-faults").toFile, "t.lance").getPath
    (local, s"faulty://$local")
  }

  private def rows(ids: Range, tag: String): DataFrame = spark.range(ids.start, ids.end).selectExpr("id", s"'$tag' AS tag").coalesce(1)

  // Every version of the table read whole by pylance (each file every version names must be
  // there), and the ids of each version, sorted.
  private val ReadAll =
    """import sys, json, lance
      |ds = lance.dataset(sys.argv[1])
      |out = {}
      |for v in ds.versions():
      |    t = lance.dataset(sys.argv[1], version=v["version"]).to_table()
      |    out[str(v["version"])] = sorted(t.column("id").to_pylist()) if "id" in t.column_names else []
      |print(json.dumps({"versions": out}))
      |""".stripMargin

  private def pylanceVersions(local: String): Map[Long, Seq[Long]] =
    PylanceScript.run(ReadAll, local)("versions").asInstanceOf[Map[String, Any]].map { case (v, ids) =>
      v.toLong -> ids.asInstanceOf[Seq[Any]].map(_.asInstanceOf[BigDecimal].toLongExact)
    }

  private def latest(local: String): Seq[Long] = { val vs = pylanceVersions(local); vs(vs.keys.max) }

  /** Catalog table `t` at `uri` holding ids 0 to 19 tagged "a": version 1 creates it, version 2 appends. */
  private def catalogTable(uri: String, options: String = ""): Unit = {
    spark.sql(s"CREATE TABLE t (id BIGINT, tag STRING) USING lance LOCATION '$uri' $options")
    rows(0 until 20, "a").writeTo("t").append()
  }

  private def lanceError(t: Throwable): Option[LanceException] =
    Iterator.iterate(t)(_.getCause).takeWhile(_ != null).collectFirst { case e: LanceException => e }

  test("an append whose manifest answer is lost or lies commits once: no row twice, none lost") {
    for (fault <- Faults) withClue(fault) {
      val (local, uri) = newFolder()
      rows(0 until 10, "a").write.format("lance").save(uri)
      val hits = StorageFaults.inject(StorageFaults.Manifest, fault)
      rows(10 until 20, "b").write.format("lance").mode("append").save(uri)
      assert(hits() == 1)
      val vs = pylanceVersions(local)
      assert(vs.keySet == Set(1L, 2L), "one version for the append")
      assert(vs(2L) == (0L until 20L))
    }
  }

  test("creating a table (errorifexists, ignore, overwrite) with a lost answer commits once and keeps its files") {
    for (fault <- Faults; mode <- Seq(SaveMode.ErrorIfExists, SaveMode.Ignore, SaveMode.Overwrite)) withClue(s"$fault $mode") {
      val (local, uri) = newFolder()
      val hits = StorageFaults.inject(StorageFaults.Manifest, fault)
      rows(0 until 10, "a").write.format("lance").mode(mode).save(uri)
      assert(hits() == 1)
      assert(pylanceVersions(local) == Map(1L -> (0L until 10L)))
      // And an overwrite of the existing table.
      StorageFaults.inject(StorageFaults.Manifest, fault)
      rows(100 until 105, "o").write.format("lance").mode("overwrite").save(uri)
      assert(pylanceVersions(local) == Map(1L -> (0L until 10L), 2L -> (100L until 105L)))
    }
  }

  test("an idempotent append (txnAppId) whose answer lies is committed, not taken for a duplicate, and keeps its files") {
    for (fault <- Faults) withClue(fault) {
      val (local, uri) = newFolder()
      rows(0 until 10, "a").write.format("lance").save(uri)
      StorageFaults.inject(StorageFaults.Manifest, fault)
      def write(): Unit = rows(10 until 20, "b").write.format("lance").mode("append")
        .option("txnAppId", "job").option("txnVersion", "1").save(uri)
      write()
      assert(latest(local) == (0L until 20L))
      write() // the same pair again: a duplicate, nothing written
      val vs = pylanceVersions(local)
      assert(vs.keySet == Set(1L, 2L) && vs(2L) == (0L until 20L))
    }
  }

  test("DELETE, UPDATE and MERGE whose answer is lost or lies commit once and keep their deletion and data files") {
    for (fault <- Faults) withClue(fault) {
      val (local, uri) = newFolder()
      catalogTable(uri)
      StorageFaults.inject(StorageFaults.Manifest, fault)
      spark.sql("DELETE FROM t WHERE id IN (1, 2, 3)")
      StorageFaults.inject(StorageFaults.Manifest, fault)
      spark.sql("UPDATE t SET tag = 'u' WHERE id >= 15")
      StorageFaults.inject(StorageFaults.Manifest, fault)
      rows(18 until 25, "m").createOrReplaceTempView("src")
      spark.sql("MERGE INTO t USING src ON t.id = src.id WHEN MATCHED THEN UPDATE SET tag = src.tag WHEN NOT MATCHED THEN INSERT *")
      val vs = pylanceVersions(local)
      assert(vs.keySet == Set(1L, 2L, 3L, 4L, 5L), "one version per statement")
      assert(vs(5L) == (0L until 25L).filterNot(Set(1L, 2L, 3L)))
      assert(spark.sql("SELECT tag, count(*) FROM t GROUP BY tag ORDER BY tag").collect().map(r => (r.getString(0), r.getLong(1))).toSeq ==
        Seq(("a", 12L), ("m", 7L), ("u", 3L)))
      spark.sql("DROP TABLE t")
    }
  }

  test("ALTER TABLE and a DELETE answered from statistics report success when their version landed") {
    for (fault <- Faults) withClue(fault) {
      val (local, uri) = newFolder()
      catalogTable(uri, "OPTIONS (maxRowsPerFile '5')")
      StorageFaults.inject(StorageFaults.Manifest, fault)
      spark.sql("ALTER TABLE t ADD COLUMNS (extra INT)")
      assert(spark.table("t").columns.toSeq == Seq("id", "tag", "extra"))
      StorageFaults.inject(StorageFaults.Manifest, fault)
      spark.sql("DELETE FROM t WHERE id >= 0") // every row: whole fragments removed
      val vs = pylanceVersions(local)
      assert(vs.keySet == Set(1L, 2L, 3L, 4L) && vs(4L).isEmpty && vs(3L) == (0L until 20L))
      spark.sql("DROP TABLE t")
    }
  }

  test("a table whose _versions is a file is not taken for no table: the write fails and leaves nothing") {
    val (local, uri) = newFolder()
    rows(0 until 5, "a").write.format("lance").save(uri)
    val versions = new File(local, "_versions")
    org.apache.commons.io.FileUtils.deleteDirectory(versions)
    Files.write(versions.toPath, Array[Byte](1, 2, 3))
    val dataBefore = new File(local, "data").list().toSet
    val e = intercept[Throwable](rows(5 until 10, "b").write.format("lance").mode("append").save(uri))
    assert(lanceError(e).exists(_.errorClass == "LANCE_DATASET_NOT_FOUND"), e)
    assert(versions.isFile && new File(local, "data").list().toSet == dataBefore, "no version 1, and the write's files removed")
  }

  test("a data or deletion file whose write fails fails the statement, with nothing committed and every version whole") {
    for (fault <- Seq(StoredThenLost, NotStored)) withClue(fault) {
      val (local, uri) = newFolder()
      catalogTable(uri)
      StorageFaults.inject(StorageFaults.DataFile, fault, times = 100)
      val e = intercept[Throwable](rows(20 until 30, "b").writeTo("t").append())
      assert(lanceError(e).exists(_.errorClass == "LANCE_IO_ERROR"), e)
      StorageFaults.clear()
      StorageFaults.inject(StorageFaults.DeletionFile, fault)
      val d = intercept[Throwable](spark.sql("DELETE FROM t WHERE id = 4"))
      assert(lanceError(d).exists(_.errorClass == "LANCE_IO_ERROR"), d)
      assert(pylanceVersions(local) == Map(1L -> Seq.empty, 2L -> (0L until 20L)))
      assert(!new File(local, "_deletions").exists || new File(local, "_deletions").list().isEmpty, "the failed delete left no file")
      spark.sql("DROP TABLE t")
    }
  }
}
