package io.sparklance.spark

import org.apache.arrow.memory.RootAllocator
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{Canonical, Golden, LocalSpark}

/** spark.read.format("lance") returns, value for value, what pylance reads. */
class SparkReadSuite extends AnyFunSuite with LocalSpark {

  private def checkEquals(name: String): Unit = {
    val ds = Golden.dataset(name)
    ds.versions.foreach { v =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val (_, expected) = Golden.expectedRows(ds.expectedFile(v), allocator)
        val df = spark.read.format("lance").option("version", v.toString).load(ds.uri)
        val schema = df.schema
        val actual = df.queryExecution.toRdd.map(_.copy()).collect().toIndexedSeq.map(Canonical.fromSpark(_, schema))
        assert(actual.length == expected.length, s"$name v$v rows")
        assert(df.count() == expected.length, s"$name v$v COUNT(*)")
        actual.indices.foreach { i =>
          if (actual(i) != expected(i)) fail(s"$name v$v row $i:\n spark:   ${actual(i)}\n pylance: ${expected(i)}")
        }
      } finally allocator.close()
    }
  }

  Seq("basic_types", "basic_types_large", "no_nulls").foreach { name =>
    test(s"$name through Spark equals pylance, every version")(checkEquals(name))
  }

  test("load resolves the snapshot once: the table of inferSchema is the table of getTable") {
    val provider = new LanceDataSource
    val options = new org.apache.spark.sql.util.CaseInsensitiveStringMap(java.util.Map.of("path", Golden.dataset("basic_types").uri))
    val schema = provider.inferSchema(options)
    val table = provider.getTable(schema, Array.empty, options.asCaseSensitiveMap())
    assert(table eq provider.getTable(schema, Array.empty, options.asCaseSensitiveMap()))
    // Other options are another table.
    val v1 = java.util.Map.of("path", Golden.dataset("basic_types").uri, "version", "1")
    assert(provider.getTable(schema, Array.empty, v1).asInstanceOf[LanceTable].snapshot.version == 1)
    assert(!(provider.getTable(schema, Array.empty, v1) eq table))
  }

  // Older releases' mistakes: 0.8.0's physical_rows that count live rows, in manifests
  // without writer_version, and legacy files whose manifest records a short size (0.39 to
  // 4.0; their values are compared in TableHistorySuite, as Spark widens unsigned types).
  test("old/0.8.0/migrated through Spark equals pylance, every version")(checkEquals("old/0.8.0/migrated"))

  test("legacy files of 0.39, 1.0 and 4.0 count and read as many rows as pylance, every version") {
    Seq("old/0.39.0/legacy", "old/1.0.4/legacy", "old/4.0.2/legacy").foreach { name =>
      val ds = Golden.dataset(name)
      ds.versions.foreach { v =>
        val allocator = new RootAllocator(Long.MaxValue)
        try {
          val rows = Golden.expectedRows(ds.expectedFile(v), allocator)._2.length
          val df = spark.read.format("lance").option("version", v.toString).load(ds.uri)
          assert(df.count() == rows && df.collect().length == rows, s"$name v$v")
        } finally allocator.close()
      }
    }
  }

  test("count and projection") {
    val df = spark.read.format("lance").load(Golden.dataset("projection_and_count").uri)
    assert(df.count() == 10)
    assert(df.select("id").collect().map(_.getLong(0)).toSeq == (0L until 10L))
    assert(df.where("score > 50").count() == 5)
  }

  test("nested column pruning reads only the struct members asked for") {
    val df = spark.read.format("lance").load(Golden.dataset("types_v2_2").uri)
    val q = df.select("nested_struct_col.inner.y", "struct_col.b")
    val scan = q.queryExecution.executedPlan.collectFirst {
      case s: org.apache.spark.sql.execution.datasources.v2.BatchScanExec => s.scan.asInstanceOf[LanceScan]
    }.get
    assert(scan.readSchema().simpleString == "struct<struct_col:struct<b:string>,nested_struct_col:struct<inner:struct<y:string>>>")
    val full = df.select("nested_struct_col", "struct_col").collect()
    val pruned = q.collect()
    assert(pruned.length == full.length)
    full.indices.foreach { i =>
      val inner = Option(full(i).getStruct(0)).flatMap(s => Option(s.getStruct(0)))
      assert(pruned(i).get(0) == inner.map(_.get(1)).orNull)
      assert(pruned(i).get(1) == Option(full(i).getStruct(1)).map(_.get(1)).orNull)
    }
  }

  test("splits follow bytes, not fragments: small fragments pack, large ones split") {
    val ds = Golden.dataset("basic_types")
    val df = spark.read.format("lance").option("version", "2").load(ds.uri)
    assert(df.rdd.getNumPartitions >= 2) // a small table is still spread over the cores
    val packed = spark.read.format("lance").option("version", "2").option("openCostBytes", "0").option("splitSizeBytes", "100000000").load(ds.uri)
    assert(packed.rdd.getNumPartitions < 4) // small fragments share splits
    // Six tiny fragments at the latest version: the per-fragment open cost counts towards the
    // total that is spread over the cores, so they pack into about one split per core rather
    // than one split each (a 100,000-fragment table must not plan 100,000 / k tasks).
    val latest = spark.read.format("lance").load(ds.uri)
    assert(latest.rdd.getNumPartitions >= 2 && latest.rdd.getNumPartitions <= 3)
    assert(df.queryExecution.executedPlan.toString.contains("version=2"))
    val large = Golden.dataset("basic_types_large").uri
    val split = spark.read.format("lance").option("splitSizeBytes", (256 * 1024).toString).option("openCostBytes", "0").load(large)
    assert(split.rdd.getNumPartitions > 2) // 2 fragments cut into row ranges
    assert(split.count() == 120000)
    val ids = split.select("id").collect().map(_.getLong(0))
    assert(ids.toSeq == spark.read.format("lance").load(large).select("id").collect().map(_.getLong(0)).toSeq)
  }

  test("COUNT(*) comes from the manifest without opening a data file") {
    val dir = java.nio.file.Files.createTempDirectory("lance-count").toFile
    org.apache.commons.io.FileUtils.copyDirectory(new java.io.File(Golden.dataset("basic_types").uri), dir)
    org.apache.commons.io.FileUtils.deleteDirectory(new java.io.File(dir, "data"))
    val df = spark.read.format("lance").load(dir.getPath)
    assert(df.count() == 5200)
    val plan = df.groupBy().count().queryExecution.executedPlan.toString
    assert(plan.contains("LocalTableScan") && !plan.contains("BatchScan"), plan) // answered on the driver
  }

  test("statistics reach the optimizer") {
    val df = spark.read.format("lance").load(Golden.dataset("basic_types").uri)
    assert(df.queryExecution.optimizedPlan.stats.rowCount.contains(BigInt(5200)))
  }

  test("the same scan compares equal, a different version does not") {
    val uri = Golden.dataset("basic_types").uri
    def scan(v: String) = spark.read.format("lance").option("version", v).load(uri).queryExecution.executedPlan.collectFirst {
      case s: org.apache.spark.sql.execution.datasources.v2.BatchScanExec => s.scan
    }.get
    assert(scan("2") == scan("2"))
    assert(scan("2") != scan("3"))
  }

  test("a task's peak Arrow memory follows the batch size, not the fragment size") {
    val uri = Golden.dataset("basic_types_large").uri // 2 fragments of 60,000 rows
    def peak(batch: Int): Long = {
      val q = spark.read.format("lance").option("batchSize", batch.toString).load(uri).select("string_col", "int64_col")
      assert(q.collect().length == 120000)
      val scan = q.queryExecution.executedPlan.collectFirst { case s: org.apache.spark.sql.execution.datasources.v2.BatchScanExec => s }.get
      // Summed over the tasks; every task reads whole batches of its pieces.
      scan.metrics(LanceMetrics.ArrowPeak).value
    }
    val small = peak(256)
    val large = peak(16384)
    assert(small > 0 && large > 4 * small, s"peak Arrow bytes: $small at 256 rows a batch, $large at 16384")
  }
}
