package io.sparklance.spark.write

import java.io.File
import java.nio.file.Files

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.scalatest.funsuite.AnyFunSuite

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.{BigIntVector, Float8Vector, VectorSchemaRoot}

import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.table.{Snapshot, ZoneMapIndex}
import io.sparklance.table.commit.{CommitRequest, Operation, TableCommitter}
import io.sparklance.table.write.{FragmentWriter, FragmentWriterOptions, ZoneMapBuilder, ZoneMapUpdate, ZoneMapWriter}
import io.sparklance.testutil.{InPlaceRewrite, LocalSpark}

/**
 * A Spark append to a table with ZONEMAP indices (made by pylance) extends them over the new
 * fragments with a CreateIndex version right after the Append version; pylance and our reader
 * then prune the new fragments' zones and answer range filters as a plain scan does.
 */
class ZoneMapAppendSuite extends AnyFunSuite with LocalSpark {

  // pylance: 400 rows (id, x = id, null every 10th row) in one fragment, a ZONEMAP index of
  // 100 rows per zone on each column. No NaN: a zone map prunes NaN where `x > c` keeps it.
  private val Make =
    """import sys, lance, pyarrow as pa
      |from lance.indices import IndexConfig
      |ids = list(range(400))
      |t = pa.table({"id": pa.array(ids, pa.int64()), "x": pa.array([None if i % 10 == 0 else float(i) for i in ids], pa.float64())})
      |ds = lance.write_dataset(t, sys.argv[1])
      |for c in ["id", "x"]:
      |    ds.create_scalar_index(c, IndexConfig(index_type="zonemap", parameters={"rows_per_zone": 100}))
      |print("{}")
      |""".stripMargin

  // What pylance sees: each version's operation, the rows each index covers, and its answer to each filter.
  private val Check =
    """import sys, json, lance
      |ds = lance.dataset(sys.argv[1])
      |ops = []
      |for v in ds.versions():
      |    t = ds.read_transaction(v["version"])
      |    ops.append(type(t.operation).__name__ if t is not None else "none")
      |indexed = {d.name: d.num_rows_indexed for d in ds.describe_indices()}
      |answers = {f: sorted(ds.to_table(columns=["id"], filter=f).column("id").to_pylist()) for f in sys.argv[2:]}
      |print(json.dumps({"operations": ops, "indexed": indexed, "answers": answers}))
      |""".stripMargin

  private def python(script: String, args: String*): Map[String, Any] = io.sparklance.testutil.PylanceScript.run(script, args: _*)

  private def newTable(): String = {
    val path = new File(Files.createTempDirectory("zonemap-append").toFile, "t.lance").getPath
    python(Make, path)
    path
  }

  /** Rows 400 to 999 as Spark appends them: one task, files of 200 rows (three fragments). */
  private def appended: DataFrame = {
    val s = spark
    import s.implicits._
    (400 until 1000).map(i => (i.toLong, if (i % 10 == 0) None else Some(i.toDouble))).toDF("id", "x").coalesce(1)
  }

  private def append(path: String, options: (String, String)*): Unit =
    appended.write.format("lance").mode("append").option("maxRowsPerFile", "200").options(options.toMap).save(path)

  private val Filters: Seq[(String, (Long, Option[Double]) => Boolean)] = Seq(
    "id >= 700 AND id < 720" -> ((i, _) => i >= 700 && i < 720),
    "x > 950" -> ((_, x) => x.exists(_ > 950)),
    "x < 50 OR id >= 990" -> ((i, x) => x.exists(_ < 50) || i >= 990),
    "x IS NULL AND id > 900" -> ((i, x) => x.isEmpty && i > 900))

  private def expected(pred: (Long, Option[Double]) => Boolean): Seq[Long] =
    (0L until 1000L).filter(i => pred(i, if (i % 10 == 0) None else Some(i.toDouble)))

  private def store = new HadoopObjectStoreFactory(spark.sessionState.newHadoopConf()).create()
  private def zoneMaps(path: String) = Snapshot.open(store, path, None).manifest.indices.filter(_.kind == ZoneMapIndex.Kind)

  /** Our answer to `filter` and the scan's metrics. */
  private def ours(path: String, filter: String): (Seq[Long], Map[String, Long]) = {
    val q = spark.read.format("lance").load(path).where(filter).select("id")
    val rows = q.collect().map(_.getLong(0)).toSeq.sorted
    val scan = q.queryExecution.executedPlan.collectFirst { case s: BatchScanExec => s }.get
    (rows, scan.metrics.map { case (k, v) => k -> v.value }.toMap)
  }

  private def pylance(path: String) = {
    val r = python(Check, path +: Filters.map(_._1): _*)
    (r("operations").asInstanceOf[Seq[String]], r("indexed").asInstanceOf[Map[String, Any]].map { case (k, v) => k -> v.toString.toDouble.toLong },
      r("answers").asInstanceOf[Map[String, Seq[Any]]].map { case (k, v) => k -> v.map(_.toString.toDouble.toLong) })
  }

  test("an append extends the zone maps in a second version; pylance and our reader prune the new zones") {
    val path = newTable()
    val before = Snapshot.open(store, path, None).version
    append(path)
    val (operations, indexed, answers) = pylance(path)
    assert(Snapshot.open(store, path, None).version == before + 2)
    assert(operations.takeRight(2) == Seq("Append", "CreateIndex"))
    assert(indexed == Map("id_idx" -> 1000L, "x_idx" -> 1000L))
    assert(zoneMaps(path).forall(_.fragments.get.getCardinality == 4))
    Filters.foreach { case (f, pred) =>
      assert(answers(f) == expected(pred), f)
      assert(ours(path, f)._1 == expected(pred), f)
    }
    // Rows 700-719 are in the second new fragment: the other three fragments are pruned, and in
    // it every zone but the first (rows 600-699 then 700-799 of a 200-row fragment: one of two).
    val (_, metrics) = ours(path, "id >= 700 AND id < 720")
    assert(metrics("lanceFragmentsPruned") == 3, metrics)
    assert(metrics("lanceZonesPruned") >= 1, metrics)
  }

  test("with updateZoneMaps off an append is one version and the indices are untouched") {
    val path = newTable()
    val before = Snapshot.open(store, path, None)
    append(path, LanceWriteOptions.UpdateZoneMaps -> "false")
    val (operations, indexed, answers) = pylance(path)
    assert(Snapshot.open(store, path, None).version == before.version + 1)
    assert(operations.last == "Append")
    assert(indexed == Map("id_idx" -> 400L, "x_idx" -> 400L))
    assert(zoneMaps(path) == before.manifest.indices.filter(_.kind == ZoneMapIndex.Kind))
    Filters.foreach { case (f, pred) => assert(answers(f) == expected(pred), f); assert(ours(path, f)._1 == expected(pred), f) }
    // Only the indexed (old) fragment can be pruned.
    assert(ours(path, "id >= 700 AND id < 720")._2("lanceFragmentsPruned") == 1)
  }

  test("an index commit that fails after the data commit leaves the appended table readable") {
    val path = newTable()
    val before = Snapshot.open(store, path, None)
    // The index step fails (its old zone map cannot be read) after the Append is committed:
    // the state a job killed between the two commits leaves.
    val files = before.manifest.indices.map(i => new File(path, s"_indices/${i.uuid}/zonemap.lance"))
    files.foreach(f => assert(f.renameTo(new File(f.getPath + ".away"))))
    try append(path) finally files.foreach(f => new File(f.getPath + ".away").renameTo(f))
    val (operations, indexed, answers) = pylance(path)
    assert(Snapshot.open(store, path, None).version == before.version + 1)
    assert(operations.last == "Append")
    assert(indexed == Map("id_idx" -> 400L, "x_idx" -> 400L))
    Filters.foreach { case (f, pred) => assert(answers(f) == expected(pred), f); assert(ours(path, f)._1 == expected(pred), f) }
    assert(spark.read.format("lance").load(path).count() == 1000)
  }

  /**
   * Rows 400 to 999 (x = id, no nulls) appended by our fragment writer in three fragments of
   * 200 rows, committed as an Append; the version and the zone-map update prepared on it (its
   * index files written, not committed).
   */
  private def appendAndPrepare(path: String): (Long, ZoneMapUpdate) = {
    val s = store
    val base = Snapshot.open(s, path, None)
    val targets = ZoneMapWriter.targets(s, path, base.manifest, base.manifest.schema)
    val writer = new FragmentWriter(s, path, base.manifest.schema, FragmentWriterOptions(maxRowsPerFile = 200), Some(new ZoneMapBuilder(targets)))
    val allocator = new RootAllocator()
    val batch = ArrowVectors.root(base.manifest.schema.toArrowForWrite("test"), allocator)
    try {
      val (ids, xs) = (batch.getVector("id").asInstanceOf[BigIntVector], batch.getVector("x").asInstanceOf[Float8Vector])
      ids.allocateNew(600); xs.allocateNew(600)
      (0 until 600).foreach { k => ids.set(k, 400L + k); xs.set(k, 400.0 + k) }
      batch.setRowCount(600)
      writer.write(batch)
    } finally { batch.close(); allocator.close() }
    val fragments = writer.finish()
    val appended = new TableCommitter(s, path).commit(CommitRequest(Some(base.version), Operation.Append(fragments))).version
    val committed = Snapshot.open(s, path, Some(appended)).manifest
    (appended, ZoneMapWriter.prepare(s, path, committed, targets, fragments.zip(writer.zoneMapsWritten)).get)
  }

  // pylance rewrites x of fragment 0 in place to 10000 + x: `x > 5000` then matches exactly
  // its non-null rows, which the old zone map (x below 400 there) would prune.
  private val Rewrite = "lambda i, v: None if v is None else v + 10000"
  private val Rewritten = (0L until 400L).filter(_ % 10 != 0)

  test("a zone-map commit over another writer's in-place rewrite of the indexed column no longer covers the rewritten fragment") {
    val path = newTable()
    val (appended, update) = appendAndPrepare(path)
    // Between our read (the Append's version) and our index commit, pylance patches x of fragment 0.
    val (rewritten, fields) = InPlaceRewrite(path, 0, "x", Rewrite, appended)
    val xId = Snapshot.open(store, path, None).manifest.schema.fields.find(_.name == "x").get.id
    assert(rewritten == appended + 1 && fields == Seq(xId))
    val indexed = new TableCommitter(store, path).commit(CommitRequest(Some(appended), update.operation)).version
    assert(indexed == rewritten + 1)
    // Every rewritten row is found, by our reader and by pylance: the appended fragments are
    // still pruned by their zones, fragment 0 is read.
    val (rows, metrics) = ours(path, "x > 5000")
    assert(rows == Rewritten)
    assert(metrics("lanceFragmentsPruned") == 3, metrics)
    assert(ours(path, "x > 500 AND x < 520")._1 == (501L until 520L))
    val r = python(Check, path, "x > 5000", "x > 500 AND x < 520")
    assert(r("operations").asInstanceOf[Seq[String]].takeRight(3) == Seq("Append", "Update", "CreateIndex"))
    val answers = r("answers").asInstanceOf[Map[String, Seq[Any]]].map { case (k, v) => k -> v.map(_.toString.toDouble.toLong) }
    assert(answers("x > 5000") == Rewritten && answers("x > 500 AND x < 520") == (501L until 520L))
    // As Lance rebases a CreateIndex over an Update with fields_modified: the rewritten fragment
    // leaves the index on the rewritten column, the index on id keeps it.
    val covered = zoneMaps(path).map(i => i.name -> i.fragments.get.toArray.toSeq).toMap
    assert(covered == Map("x_idx" -> Seq(1, 2, 3), "id_idx" -> Seq(0, 1, 2, 3)), covered)
  }

  test("an in-place rewrite committed over our zone-map commit takes the rewritten fragment out of the index it finds") {
    val path = newTable()
    val (appended, update) = appendAndPrepare(path)
    val indexed = new TableCommitter(store, path).commit(CommitRequest(Some(appended), update.operation)).version
    // pylance read before our index commit: its Update is rebased over our CreateIndex and prunes it.
    val (rewritten, _) = InPlaceRewrite(path, 0, "x", Rewrite, appended)
    assert(rewritten == indexed + 1)
    val covered = zoneMaps(path).map(i => i.name -> i.fragments.get.toArray.toSeq).toMap
    assert(covered == Map("x_idx" -> Seq(1, 2, 3), "id_idx" -> Seq(0, 1, 2, 3)), covered)
    assert(ours(path, "x > 5000")._1 == Rewritten)
  }
}
