package io.sparklance.spark.write

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.types._
import org.scalatest.concurrent.Eventually._
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.time.SpanSugar._

import io.sparklance.format.FileVersion
import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.table.Snapshot
import io.sparklance.testutil.{LineBehaviour, LocalSpark}
import io.sparklance.util.LanceException

/** `df.write.format("lance")` in every save mode, its options, its checks and its metrics. */
class SparkWriteSuite extends AnyFunSuite with LocalSpark {

  private def newPath(): String = new File(Files.createTempDirectory("lance-write").toFile, "t.lance").getPath

  private def people(ids: Range): DataFrame = {
    val s = spark
    import s.implicits._
    ids.map(i => (i.toLong, s"p$i", if (i % 3 == 0) None else Some(i * 1.5))).toDF("id", "name", "score")
  }

  private def read(path: String, version: Option[Long] = None): DataFrame = {
    val r = spark.read.format("lance")
    version.fold(r)(v => r.option("version", v)).load(path)
  }

  private def ids(path: String, version: Option[Long] = None): Seq[Long] =
    read(path, version).select("id").collect().map(_.getLong(0)).toSeq.sorted

  private def store = new HadoopObjectStoreFactory(spark.sessionState.newHadoopConf()).create()
  private def snapshot(path: String): Snapshot = Snapshot.open(store, path, None)
  private def versions(path: String): Seq[Long] =
    if (new File(path, "_versions").isDirectory) Snapshot.listVersions(store, path).map(_._1) else Nil
  private def dataFiles(path: String): Set[String] =
    Option(new File(path, "data").listFiles()).map(_.map(_.getName).toSet).getOrElse(Set.empty)

  private def errorOf(f: => Any): LanceException = {
    val t = intercept[Throwable](f)
    Iterator.iterate(t)(_.getCause).takeWhile(_ != null).collectFirst { case e: LanceException => e }
      .getOrElse(fail(s"expected a LanceException, got $t", t))
  }

  /** Runs `f`, which must fail with `errorClass`, and checks that it wrote no file and no version. */
  private def refusedUnchanged(path: String, errorClass: String)(f: => Any): LanceException = {
    val (files, vs) = (dataFiles(path), versions(path))
    val e = errorOf(f)
    assert(e.errorClass == errorClass, e.getMessage)
    // A task still running when another failed the job is killed, and aborts (removing its
    // unfinished file) on its own thread, possibly after the job has reported the failure.
    eventually(timeout(30.seconds), interval(100.millis)) {
      assert(dataFiles(path) == files, "no data file is left behind")
    }
    assert(versions(path) == vs, "no version is committed")
    e
  }

  test("append to a path with nothing there creates the table") {
    val path = newPath()
    people(0 until 10).write.format("lance").mode("append").save(path)
    assert(versions(path) == Seq(1L))
    assert(read(path).orderBy("id").collect().toSeq == people(0 until 10).orderBy("id").collect().toSeq)
    assert(read(path).schema.map(f => (f.name, f.dataType)) == Seq("id" -> LongType, "name" -> StringType, "score" -> DoubleType))
  }

  test("errorifexists, the default, creates a table and refuses an existing one") {
    val path = newPath()
    people(0 until 5).write.format("lance").save(path)
    assert(ids(path) == (0L until 5L))
    val e = refusedUnchanged(path, "LANCE_TABLE_ALREADY_EXISTS")(people(5 until 9).write.format("lance").save(path))
    assert(e.getMessage.contains(path))
    refusedUnchanged(path, "LANCE_TABLE_ALREADY_EXISTS")(people(5 until 9).write.format("lance").mode("errorifexists").save(path))
  }

  test("ignore creates a table and leaves an existing one as it is") {
    val path = newPath()
    people(0 until 4).write.format("lance").mode("ignore").save(path)
    val files = dataFiles(path)
    people(10 until 20).write.format("lance").mode("ignore").save(path)
    assert(ids(path) == (0L until 4L))
    assert(versions(path) == Seq(1L) && dataFiles(path) == files)
  }

  test("appends and overwrites make versions; every older version stays readable") {
    val path = newPath()
    people(0 until 3).write.format("lance").mode("overwrite").save(path) // overwrite creates too
    people(3 until 6).write.format("lance").mode("append").save(path)
    people(6 until 8).write.format("lance").mode("append").save(path)
    val spark2 = spark
    import spark2.implicits._
    Seq(("a", 1), ("b", 2)).toDF("key", "n").write.format("lance").mode("overwrite").save(path)
    people(8 until 9).write.format("lance").mode("overwrite").save(path)
    assert(versions(path) == (1L to 5L))
    assert(ids(path, Some(1)) == (0L until 3L))
    assert(ids(path, Some(2)) == (0L until 6L))
    assert(ids(path, Some(3)) == (0L until 8L))
    assert(read(path, Some(4)).collect().map(r => (r.getString(0), r.getInt(1))).toSet == Set("a" -> 1, "b" -> 2))
    assert(read(path, Some(4)).schema.fieldNames.toSeq == Seq("key", "n"))
    assert(ids(path) == Seq(8L))
    assert(read(path).count() == 1)
  }

  test("an append matches columns by name, in any order") {
    val path = newPath()
    people(0 until 3).write.format("lance").save(path)
    people(3 until 6).select("score", "id", "name").write.format("lance").mode("append").save(path)
    assert(read(path).orderBy("id").collect().toSeq == people(0 until 6).orderBy("id").collect().toSeq)
  }

  test("missing, extra and differently typed columns fail before any file is written, named") {
    val path = newPath()
    people(0 until 3).write.format("lance").save(path)
    val missing = refusedUnchanged(path, "LANCE_SCHEMA_MISMATCH")(
      people(3 until 6).drop("score").write.format("lance").mode("append").save(path))
    assert(missing.getMessage.contains("'score'"))
    val extra = refusedUnchanged(path, "LANCE_SCHEMA_MISMATCH")(
      people(3 until 6).withColumn("extra", org.apache.spark.sql.functions.lit(1)).write.format("lance").mode("append").save(path))
    assert(extra.getMessage.contains("'extra'"))
    val typed = refusedUnchanged(path, "LANCE_SCHEMA_MISMATCH")(
      people(3 until 6).withColumn("id", org.apache.spark.sql.functions.col("id").cast("int")).write.format("lance").mode("append").save(path))
    assert(typed.getMessage.contains("'id' is int"), typed.getMessage)
    val all = refusedUnchanged(path, "LANCE_SCHEMA_MISMATCH")(
      people(3 until 6).drop("name").withColumn("id", org.apache.spark.sql.functions.col("id").cast("string"))
        .withColumn("x", org.apache.spark.sql.functions.lit(true)).write.format("lance").mode("append").save(path))
    Seq("'name'", "'x'", "'id' is string").foreach(s => assert(all.getMessage.contains(s), all.getMessage))
    assert(ids(path) == (0L until 3L))
  }

  test("reserved and duplicate column names are refused") {
    val path = newPath()
    refusedUnchanged(path, "LANCE_INVALID_NAME")(people(0 until 2).withColumnRenamed("id", "_rowid").write.format("lance").save(path))
    refusedUnchanged(path, "LANCE_INVALID_NAME")(people(0 until 2).select("id", "name", "name").write.format("lance").save(path))
    assert(!new File(path, "_versions").exists())
  }

  test("a null in a non-nullable column fails the write and leaves the table as it was, no new file referenced") {
    val path = newPath()
    val schema = StructType(Seq(StructField("id", LongType, nullable = false), StructField("v", StringType)))
    spark.createDataFrame(java.util.Arrays.asList(Row(1L, "a"), Row(2L, "b")), schema).write.format("lance").save(path)
    assert(!read(path).schema("id").nullable)
    val withNull = spark.createDataFrame(java.util.Arrays.asList(Row(3L, "c"), Row(null, "d")),
      StructType(Seq(StructField("id", LongType), StructField("v", StringType))))
    val (files, vs) = (dataFiles(path), versions(path))
    val e = errorOf(withNull.write.format("lance").mode("append").save(path))
    assert(e.errorClass == "LANCE_NULL_IN_NON_NULLABLE_COLUMN", e.getMessage)
    assert(versions(path) == vs, "no version is committed")
    assert(ids(path) == Seq(1L, 2L))
    // The other task may finish its file while the failing one ends the job; Spark then drops
    // its commit message (it reaches neither commit nor abort), so that file can stay behind,
    // unreferenced, for cleanup. Every file the table references is one it had before.
    val referenced = snapshot(path).manifest.fragments.flatMap(_.files.map(_.path)).toSet
    assert(referenced == files)
  }

  test("bad options fail before anything is written") {
    val path = newPath()
    Seq("maxRowsPerFile" -> "0", "fileFormatVersion" -> "2.3", "data_storage_version" -> "next", "txnAppId" -> "a",
      "version" -> "1", "enable_stable_row_ids" -> "maybe").foreach { case (k, v) =>
      val e = errorOf(people(0 until 2).write.format("lance").option(k, v).save(path))
      assert(e.errorClass == "LANCE_INVALID_OPTION" && e.getMessage.contains(s"'$k' = '$v'"), e.getMessage)
    }
    assert(!new File(path).exists())
    val e = errorOf(people(0 until 2).write.format("lance").partitionBy("name").save(path))
    assert(e.errorClass == "LANCE_UNSUPPORTED_FEATURE" && e.getMessage.contains("partitionBy"))
  }

  test("a new table takes file format 2.2 unless asked; an append keeps the table's") {
    val path = newPath()
    people(0 until 3).write.format("lance").save(path)
    assert(snapshot(path).manifest.fileVersion(path).contains(FileVersion.V2_2))
    val old = newPath()
    people(0 until 3).write.format("lance").option("data_storage_version", "2.0").save(old)
    people(3 until 6).write.format("lance").mode("append").save(old)
    val m = snapshot(old).manifest
    assert(m.fileVersion(old).contains(FileVersion.V2_0))
    assert(m.fragments.flatMap(_.files).map(f => (f.majorVersion, f.minorVersion)).distinct == Seq((2, 0)))
    refusedUnchanged(old, "LANCE_INVALID_OPTION")(
      people(6 until 7).write.format("lance").mode("append").option("fileFormatVersion", "2.1").save(old))
    people(0 until 2).write.format("lance").mode("overwrite").option("fileFormatVersion", "2.1").save(old)
    assert(snapshot(old).manifest.fileVersion(old).contains(FileVersion.V2_1))
  }

  test("maxRowsPerFile rolls to a new data file (a new fragment)") {
    val path = newPath()
    people(0 until 10).coalesce(1).write.format("lance").option("max_rows_per_file", "3").save(path)
    val m = snapshot(path).manifest
    assert(m.fragments.map(_.physicalRows) == Seq(3L, 3L, 3L, 1L))
    assert(m.fragments.map(_.id).distinct.length == 4)
    assert(ids(path) == (0L until 10L))
  }

  test("stable row ids are chosen when the table is created") {
    val path = newPath()
    people(0 until 3).write.format("lance").option("enableStableRowIds", "true").save(path)
    assert((snapshot(path).manifest.readerFeatureFlags & io.sparklance.table.FeatureFlags.StableRowIds) != 0)
    people(3 until 5).write.format("lance").mode("append").save(path)
    refusedUnchanged(path, "LANCE_INVALID_OPTION")(
      people(5 until 6).write.format("lance").mode("append").option("enableStableRowIds", "false").save(path))
    assert(read(path).select("_rowid").collect().map(_.getLong(0)).sorted.toSeq == (0L until 5L))
  }

  test("a retried idempotent write (txnAppId, txnVersion) writes nothing") {
    val path = newPath()
    def write(ids: Range, v: Long) =
      people(ids).write.format("lance").mode("append").option("txnAppId", "nightly").option("txnVersion", v).save(path)
    write(0 until 3, 1)
    write(3 until 6, 2)
    val (files, vs) = (dataFiles(path), versions(path))
    write(3 until 6, 2) // the retry of version 2
    write(0 until 3, 1) // an older one
    assert(dataFiles(path) == files && versions(path) == vs)
    assert(ids(path) == (0L until 6L))
    write(6 until 7, 3)
    assert(ids(path) == (0L until 7L))
    assert(snapshot(path).manifest.config.get("spark-lance.txn.nightly").contains("3"))
  }

  test("write metrics: rows, files and bytes from the tasks, commit attempts and time from the driver") {
    assume(LineBehaviour.writeMetrics, "Spark 3.5 reads a write task's metrics before its files are finished and takes none from the driver")
    val path = newPath()
    people(0 until 10).coalesce(1).write.format("lance").option("maxRowsPerFile", "4").save(path)
    val store = spark.sharedState.statusStore
    // The UI's listener takes the metrics from the event queue: wait until the write's execution has them.
    def written = store.executionsList().filter(e => store.planGraph(e.executionId).allNodes.exists(_.metrics.exists(_.name == "rows written")))
      .filter(_.completionTime.isDefined).sortBy(_.executionId).lastOption
    val deadline = System.nanoTime() + 20L * 1000 * 1000 * 1000
    while (written.forall(_.metricValues == null) && System.nanoTime() < deadline) Thread.sleep(50)
    val exec = written.get
    val byName = store.planGraph(exec.executionId).allNodes.flatMap(_.metrics).map(m => m.name -> m.accumulatorId).toMap
    val values = exec.metricValues
    def metric(name: String): String = withClue(byName.map { case (n, id) => n -> values.get(id) }) {
      values(byName(name)).replaceAll("[^0-9]", "")
    }
    assert(metric("rows written") == "10")
    assert(metric("data files written") == "3")
    val bytes = dataFiles(path).toSeq.map(n => new File(new File(path, "data"), n).length()).sum
    assert(metric("bytes of data files written") == bytes.toString)
    assert(metric("commit attempts") == "1")
    assert(metric("commit retries after a concurrent commit") == "0")
    assert(metric("zone map versions") == "0")
  }

  /**
   * `people(ids)` whose computation creates a table at `path` (a copy of a golden table with
   * the same columns) while the write's tasks run: another writer creating the table between
   * this write's planning and its commit.
   */
  private def racing(path: String, ids: Range): DataFrame = {
    val golden = io.sparklance.testutil.Golden.dataset("projection_and_count").uri
    val createMeanwhile = org.apache.spark.sql.functions.udf { (id: Long) =>
      if (id == ids.head) org.apache.commons.io.FileUtils.copyDirectory(new File(golden), new File(path))
      id
    }
    people(ids).coalesce(1).withColumn("id", createMeanwhile(org.apache.spark.sql.functions.col("id")))
  }

  private def goldenFiles: Set[String] = dataFiles(io.sparklance.testutil.Golden.dataset("projection_and_count").uri)
  private def goldenIds: Seq[Long] = ids(io.sparklance.testutil.Golden.dataset("projection_and_count").uri)

  test("errorifexists racing another writer's create: LANCE_TABLE_ALREADY_EXISTS, and our files are removed") {
    val path = newPath()
    val e = errorOf(racing(path, 100 until 105).write.format("lance").save(path))
    assert(e.errorClass == "LANCE_TABLE_ALREADY_EXISTS")
    assert(dataFiles(path) == goldenFiles)
    assert(ids(path) == goldenIds)
  }

  test("ignore racing another writer's create succeeds and leaves that table as it is") {
    val path = newPath()
    racing(path, 100 until 105).write.format("lance").mode("ignore").save(path)
    assert(dataFiles(path) == goldenFiles)
    assert(ids(path) == goldenIds)
  }

  test("overwrite racing another writer's create overwrites the new table") {
    val path = newPath()
    val before = versions(io.sparklance.testutil.Golden.dataset("projection_and_count").uri)
    racing(path, 100 until 105).write.format("lance").mode("overwrite").save(path)
    assert(ids(path) == (100L until 105L))
    assert(versions(path) == before :+ (before.last + 1))
  }

  test("append racing another writer's create of the same columns appends to it") {
    val path = newPath()
    racing(path, 100 until 105).write.format("lance").mode("append").save(path)
    assert(ids(path) == (goldenIds ++ (100L until 105L)).sorted)
  }
}
