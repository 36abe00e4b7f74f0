package io.sparklance.spark

import java.io.File
import java.nio.file.Files

import org.apache.arrow.memory.RootAllocator
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{Canonical, Golden, LocalSpark}
import io.sparklance.util.Json

/**
 * Equality and IN filters on columns with a BTREE or BITMAP index read only the rows the
 * index names in the fragments it covers, scan the others, and return exactly pylance's
 * rows for the same filter; indices whose addresses may not be this version's are not used.
 */
class IndexLookupSuite extends AnyFunSuite with LocalSpark {

  // These tests look at the scan's tasks: a look-up of few rows is otherwise read on the driver
  // (the last test shows that path).
  override protected def beforeAll(): Unit = {
    super.beforeAll()
    spark.conf.set(LanceDriverScan.MaxRows, "0")
  }

  override protected def afterAll(): Unit = {
    spark.conf.unset(LanceDriverScan.MaxRows)
    super.afterAll()
  }

  private def filters(name: String): Seq[String] = {
    val info = new String(Files.readAllBytes(new File(new File(Golden.root, name), "info.json").toPath), "UTF-8")
    Json.parse(info).asInstanceOf[Map[String, Any]]("filters").asInstanceOf[Seq[String]]
  }

  private def read(name: String, version: Long): DataFrame =
    spark.read.format("lance").option("version", version.toString).load(Golden.dataset(name).uri)

  /** The rows, sorted, and the scan's metrics. */
  private def run(q: DataFrame): (Seq[IndexedSeq[Any]], Map[String, Long]) = {
    val schema = q.schema
    val rows = q.queryExecution.toRdd.map(_.copy()).collect().toSeq.map(Canonical.fromSpark(_, schema))
    val scan = q.queryExecution.executedPlan.collectFirst { case s: BatchScanExec => s }.get
    (rows.sortBy(_.head.asInstanceOf[Long]), scan.metrics.map { case (k, v) => k -> v.value })
  }

  /** Every filter at every version equals pylance's to_table(filter=...); returns the metrics by (version, filter). */
  private def checkAgainstPylance(name: String): Map[(Long, String), Map[String, Long]] = {
    val ds = Golden.dataset(name)
    val fs = filters(name)
    ds.versions.flatMap { v =>
      fs.zipWithIndex.map { case (f, i) =>
        val allocator = new RootAllocator(Long.MaxValue)
        val expected =
          try Golden.expectedRows(new File(ds.expectedFile(v).getParentFile, s"filter${i}_v$v.arrow"), allocator)._2
          finally allocator.close()
        val (rows, metrics) = run(read(name, v).where(f))
        assert(rows == expected.sortBy(_.head.asInstanceOf[Long]), s"$name v$v: $f")
        (v, f) -> metrics
      }
    }.toMap
  }

  test("BTREE and BITMAP look-ups return pylance's rows: deletions, appended and updated rows, non-ASCII keys") {
    val metrics = checkAgainstPylance("index_lookups")
    // Before the append every fragment is indexed: only the rows found are read.
    val (rows, m) = run(read("index_lookups", 6).where("key IN (0, 3, 89997, 45000, 12, 7)"))
    assert(rows.length == 5 && m("numOutputRows") == 5 && m("lanceIndexRows") == 5, m)
    assert(metrics((6L, "grp = 4 AND tag = 'beta'"))("numOutputRows") == 135) // two indices, intersected
    assert(metrics((6L, "key = 300 OR grp = 4"))("lanceIndexFragments") == 0) // an OR is not looked up
  }

  test("fragments the index does not cover are scanned, deleted rows it still names are dropped") {
    // v9: fragments 0..2 indexed (rows with id % 100 = 7 deleted since), 3 appended, 4 updated rows.
    val (rows, m) = run(read("index_lookups", 9).where("key = 88500"))
    assert(rows.isEmpty) // its row moved to fragment 4 with key 88501; the index still names the old one
    assert(m("lanceIndexFragments") == 1 && m("lanceIndexRows") == 1 && m("lanceRowsDeleted") >= 1, m)
    val uncovered = spark.read.format("lance").option("version", "9").load(Golden.dataset("index_lookups").uri)
      .where("_fragid >= 3").count()
    assert(m("numOutputRows") == uncovered, m) // the two uncovered fragments, whole
    assert(m("lanceFragmentsPruned") == 2, m)
  }

  test("the optimizer's size estimate and the partitions follow the rows a look-up reads") {
    val df = read("index_lookups", 6)
    val lookup = df.where("key IN (0, 3, 89997, 45000, 12, 7)")
    val (rows, m) = run(lookup)
    assert(rows.length == 5 && m("lanceFragmentsRead") == 3, m)
    assert(lookup.rdd.getNumPartitions <= 2)
    val size = lookup.queryExecution.optimizedPlan.stats.sizeInBytes
    assert(size * 100 < df.queryExecution.optimizedPlan.stats.sizeInBytes, size) // small enough to broadcast
  }

  test("a damaged index file is reported, not silently skipped") {
    val dir = Files.createTempDirectory("lance-index").toFile
    try {
      org.apache.commons.io.FileUtils.copyDirectory(new File(Golden.dataset("index_lookups").uri), dir)
      val lookup = new File(dir, "_indices").listFiles().flatMap(d => Option(d.listFiles()).toSeq.flatten)
        .find(_.getName == "page_lookup.lance").get
      val bytes = Files.readAllBytes(lookup.toPath)
      java.util.Arrays.fill(bytes, bytes.length - 40, bytes.length - 8, 0xff.toByte) // the footer's offsets
      Files.write(lookup.toPath, bytes)
      val e = intercept[Exception](spark.read.format("lance").load(dir.getPath).where("key = 300 AND grp = 0 AND name = 'x'").collect())
      val lance = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).collectFirst { case l: io.sparklance.util.LanceException => l }
      assert(lance.exists(_.errorClass == "LANCE_CORRUPT_FILE"), e)
    } finally org.apache.commons.io.FileUtils.deleteDirectory(dir)
  }

  test("tables with stable row ids scan instead: their indices may hold row ids") {
    checkAgainstPylance("index_stable_row_ids").foreach { case ((v, f), m) =>
      assert(m("lanceIndexFragments") == 0, s"v$v $f")
    }
  }

  test("a compaction that deferred remapping the indices makes them unusable") {
    val metrics = checkAgainstPylance("index_remap_deferred")
    assert(metrics((4L, "key = 300"))("lanceIndexFragments") == 1)
    val latest = Golden.dataset("index_remap_deferred").versions.max
    assert(metrics.collect { case ((v, _), m) if v == latest => m("lanceIndexFragments") }.forall(_ == 0))
  }

  test("the older golden index: BTREE on int32 and BITMAP on strings with nulls") {
    val df = spark.read.format("lance").load(Golden.dataset("indexed").uri)
    val all = df.collect().map(r => (r.getLong(0), r.getInt(1), Option(r.getString(3))))
    val (rows, m) = run(df.where("key IN (5, 17000, 20500)").select("id", "key"))
    assert(rows.map(r => r(1).asInstanceOf[Int]).toSet == all.filter(r => Set(5, 17000, 20500).contains(r._2)).map(_._2).toSet)
    assert(m("lanceIndexFragments") <= 2, m)
    val (beta, mb) = run(df.where("category = 'beta'").select("id"))
    assert(beta.map(_.head) == all.filter(_._3.contains("beta")).map(_._1).toSeq.sorted)
    assert(mb("lanceIndexFragments") == 4, mb)
  }

  test("a look-up of few rows is read on the driver: no job, the rows of the scan through the tasks") {
    val lookup = "key IN (0, 3, 89997, 45000, 12, 7)"
    val (byTasks, _) = run(read("index_lookups", 6).where(lookup))
    spark.conf.set(LanceDriverScan.MaxRows, "10")
    try {
      val q = read("index_lookups", 6).where(lookup)
      val plan = q.queryExecution.executedPlan
      assert(plan.isInstanceOf[org.apache.spark.sql.execution.LocalTableScanExec], plan)
      spark.sparkContext.setJobGroup("driver-lookup", "a point look-up")
      val rows =
        try q.collect().toSeq.map(r => Canonical.fromSpark(org.apache.spark.sql.catalyst.CatalystTypeConverters
          .convertToCatalyst(r).asInstanceOf[org.apache.spark.sql.catalyst.InternalRow], q.schema))
        finally spark.sparkContext.clearJobGroup()
      assert(spark.sparkContext.statusTracker.getJobIdsForGroup("driver-lookup").isEmpty)
      assert(rows.sortBy(_.head.asInstanceOf[Long]) == byTasks && rows.length == 5)
      // A projection and a filter Spark evaluates after the scan are applied on the driver too.
      def keys() = read("index_lookups", 6).where(lookup + " AND key % 2 = 1").select("key").collect().map(_.get(0).toString.toLong).sorted.toSeq
      val onDriver = keys()
      spark.conf.set(LanceDriverScan.MaxRows, "0")
      assert(onDriver == keys() && onDriver.nonEmpty)
      // A setting that is not a row count is refused by name.
      spark.conf.set(LanceDriverScan.MaxRows, "many")
      val bad = intercept[Exception](read("index_lookups", 6).where(lookup).collect())
      assert(Iterator.iterate[Throwable](bad)(_.getCause).takeWhile(_ != null).exists {
        case l: io.sparklance.util.LanceException => l.errorClass == "LANCE_INVALID_OPTION" && l.getMessage.contains(LanceDriverScan.MaxRows)
        case _ => false
      }, bad)
      // More rows than the limit: a job, as before.
      spark.conf.set(LanceDriverScan.MaxRows, "4")
      assert(read("index_lookups", 6).where(lookup).queryExecution.executedPlan.collectFirst { case s: BatchScanExec => s }.isDefined)
    } finally spark.conf.set(LanceDriverScan.MaxRows, "0")
  }
}
