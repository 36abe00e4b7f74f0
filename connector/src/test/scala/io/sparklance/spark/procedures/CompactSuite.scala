package io.sparklance.spark.procedures

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.spark.{LanceOptions, LanceTable}
import io.sparklance.spark.maintenance.Compaction
import io.sparklance.table.maintenance.CompactionOptions
import io.sparklance.testutil.{LocalSpark, PylanceScript}
import io.sparklance.util.LanceException

/**
 * `CALL system.compact` judged by pylance: the same rows at every version, deleted rows stay
 * deleted, `_rowid` and row versions kept on tables with stable row ids, indices still used and
 * right; the same fragments as pylance's `compact_files` makes of the same table; tables pylance
 * compacted continued by us; and compactions racing an append, a delete and an update committed
 * between the rewrite and the commit: nothing lost, nothing resurrected, no file leaked.
 */
class CompactSuite extends AnyFunSuite with LocalSpark {

  // pylance: makes or changes the table (id int64, cat string, v int64) at argv[1]; argv[2] is
  // the JSON list [op, args...]. Prints the version, the fragments (id, physical rows, deleted rows).
  private val Pylance = CompactTables.PylancePrelude +
    """|if op == "create":
      |    lo, hi, per_file, stable = args
      |    lance.write_dataset(rows(lo, hi), path, max_rows_per_file=per_file, enable_stable_row_ids=stable)
      |elif op == "append":
      |    lance.write_dataset(rows(args[0], args[1]), path, mode="append", max_rows_per_file=args[2])
      |elif op == "delete":
      |    lance.dataset(path).delete(args[0])
      |elif op == "update":
      |    lance.dataset(path).update({"v": "v + 1"}, where=args[0])
      |elif op == "index":
      |    ds = lance.dataset(path)
      |    ds.create_scalar_index("id", "BTREE")
      |    ds.create_scalar_index("cat", "BITMAP")
      |    ds.create_scalar_index("v", "ZONEMAP")
      |elif op == "fts":
      |    lance.dataset(path).create_scalar_index("cat", "INVERTED")
      |elif op == "compact":
      |    lance.dataset(path).optimize.compact_files(target_rows_per_fragment=args[0], materialize_deletions_threshold=args[1])
      |ds = lance.dataset(path)
      |print(json.dumps({"version": ds.version, "fragments": [[f.fragment_id, f.physical_rows, f.count_rows()] for f in ds.get_fragments()]}))
      |""".stripMargin

  // pylance: every row (id, cat, v, _rowid, created-at, last-updated-at) of each version in argv[2]
  // sorted by id, what the indexed filters find and whether their plans use the index, and the
  // indices' fragment bitmaps (at the latest version).
  private val Read =
    """import sys, json, lance
      |path, versions = sys.argv[1], json.loads(sys.argv[2])
      |out = {"versions": {}}
      |for v in versions:
      |    ds = lance.dataset(path, version=v)
      |    stable = ds.has_stable_row_ids
      |    cols = ["id", "cat", "v"] + (["_rowid", "_row_created_at_version", "_row_last_updated_at_version"] if stable else [])
      |    t = ds.to_table(columns=cols).sort_by("id")
      |    out["versions"][str(v)] = [list(r.values()) for r in t.to_pylist()]
      |ds = lance.dataset(path)
      |filters = {"id": "id = 77", "cat": "cat = 'c3'", "v": "v >= 1000 AND v < 1100"}
      |out["filtered"] = {k: sorted(ds.to_table(filter=f, columns=["id"]).column("id").to_pylist()) for k, f in filters.items()}
      |out["plans"] = {k: ds.scanner(filter=f, columns=["id"]).explain_plan() for k, f in filters.items()}
      |out["indices"] = {i["name"]: sorted(i["fragment_ids"]) for i in ds.list_indices()}
      |out["fragments"] = [f.fragment_id for f in ds.get_fragments()]
      |print(json.dumps(out))
      |""".stripMargin

  private def json(x: Any): String = x match {
    case s: String => "\"" + s + "\""
    case b: Boolean => if (b) "true" else "false"
    case s: Iterable[_] => s.map(json).mkString("[", ", ", "]")
    case d: Double => d.toString
    case n => n.toString
  }
  private def num(x: Any): Long = x.asInstanceOf[BigDecimal].toLongExact
  private def pylance(path: String, op: Any*): Map[String, Any] = PylanceScript.run(Pylance, path, json(op))
  private def version(out: Map[String, Any]): Long = num(out("version"))
  private def fragments(out: Map[String, Any]): Seq[Seq[Long]] = out("fragments").asInstanceOf[Seq[Seq[Any]]].map(_.map(num))
  private def read(path: String, versions: Seq[Long]): Map[String, Any] = PylanceScript.run(Read, path, json(versions))
  private def rowsAt(r: Map[String, Any], v: Long): Seq[Seq[Any]] = r("versions").asInstanceOf[Map[String, Any]](v.toString).asInstanceOf[Seq[Seq[Any]]]

  private def newPath(): String = new File(Files.createTempDirectory("compact").toFile, "t").getPath

  private def compact(path: String, args: String = ""): Seq[Long] = {
    val row = spark.sql(s"CALL lance.system.compact(table => '$path'$args)").collect().head
    (0 until 6).map(i => row.get(i).toString.toLong)
  }

  /** Data files in the table's folder that no version names (the folder listed, every version's manifest read). */
  private def leaked(path: String): Set[String] = {
    val onDisk = new File(path, "data").listFiles().map(_.getName).toSet
    val named = PylanceScript.run(
      """import sys, json, lance
        |ds = lance.dataset(sys.argv[1])
        |names = set()
        |for v in ds.versions():
        |    for f in lance.dataset(sys.argv[1], version=v["version"]).get_fragments():
        |        names.update(d.path for d in f.data_files())
        |print(json.dumps({"names": sorted(names)}))
        |""".stripMargin, path)("names").asInstanceOf[Seq[String]].map(n => new File(n).getName).toSet
    onDisk -- named
  }

  private def table(path: String): LanceTable =
    LanceTable.open(new CaseInsensitiveStringMap(Map(LanceOptions.Path -> path).asJava))

  test("a compaction by us reads back in pylance: same rows, deleted rows gone, _rowid and row versions kept, indices used and right") {
    val path = newPath()
    pylance(path, "create", 0, 1000, 100, true)
    pylance(path, "index")
    pylance(path, "delete", "id % 10 = 3 OR (id >= 900 AND id < 950)")
    val updated = version(pylance(path, "update", "id % 50 = 1"))
    val before = read(path, Seq(updated))
    val expectedIds = (0L until 1000L).filterNot(i => i % 10 == 3 || (i >= 900 && i < 950))
    assert(rowsAt(before, updated).map(r => num(r.head)) == expectedIds)

    val live = fragments(pylance(path, "show")).map(f => f.head -> f(2)).toMap
    val Seq(removed, added, filesRemoved, filesAdded, rows, v) = compact(path, ", target_rows_per_fragment => 400")
    assert(v == updated + 1, "one version, no ReserveFragments")
    val after = read(path, Seq(updated, v))
    // Every row as it was, with the same _rowid and versions; the old version still reads the same.
    assert(rowsAt(after, v) == rowsAt(before, updated))
    assert(rowsAt(after, updated) == rowsAt(before, updated))
    val newIds = after("fragments").asInstanceOf[Seq[Any]].map(num).toSet -- before("fragments").asInstanceOf[Seq[Any]].map(num)
    assert(newIds.size == added && removed > added && filesAdded == added && filesRemoved >= removed)
    val rewritten = live.keySet -- after("fragments").asInstanceOf[Seq[Any]].map(num)
    assert(rows == rewritten.toSeq.map(live).sum && rewritten.size == removed)
    // The indices: right answers; the BITMAP (row ids, kept) covers the new fragments and is
    // used; the BTREE and the zone map (row addresses, moved) no longer cover the rewritten ones.
    val filtered = after("filtered").asInstanceOf[Map[String, Seq[Any]]].map { case (k, ids) => k -> ids.map(num) }
    assert(filtered("id") == Seq(77L))
    assert(filtered("cat") == expectedIds.filter(_ % 7 == 3))
    assert(filtered("v") == expectedIds.filter { i => val v = i * 10 + (if (i % 50 == 1) 1 else 0); v >= 1000 && v < 1100 })
    val plans = after("plans").asInstanceOf[Map[String, String]]
    assert(plans("cat").contains("ScalarIndexQuery"), plans("cat"))
    val indices = after("indices").asInstanceOf[Map[String, Seq[Any]]].map { case (k, ids) => k -> ids.map(num).toSet }
    val oldIds = before("fragments").asInstanceOf[Seq[Any]].map(num).toSet -- after("fragments").asInstanceOf[Seq[Any]].map(num)
    assert(newIds.subsetOf(indices("cat_idx")), indices)
    assert(indices("v_idx").intersect(newIds).isEmpty && indices("id_idx").intersect(newIds).isEmpty, indices)
    assert(indices.values.forall(_.intersect(oldIds).isEmpty), indices)
    // And our own reader.
    val ours = spark.read.format("lance").load(path).selectExpr("id", "_rowid").orderBy("id").collect().map(r => (r.getLong(0), r.getLong(1))).toSeq
    assert(ours == rowsAt(before, updated).map(r => (num(r.head), num(r(3)))))
    assert(leaked(path).isEmpty)
    // pylance reads our transaction: a Rewrite of the read version, the groups' old and new fragments.
    val txn = PylanceScript.run(
      """import sys, json, lance
        |ds = lance.dataset(sys.argv[1])
        |t = ds.read_transaction(ds.version)
        |print(json.dumps({"op": type(t.operation).__name__, "read": t.read_version,
        |  "groups": [[len(g.old_fragments), len(g.new_fragments)] for g in t.operation.groups]}))
        |""".stripMargin, path)
    assert(txn("op") == "Rewrite" && num(txn("read")) == updated)
    val counts = txn("groups").asInstanceOf[Seq[Seq[Any]]].map(_.map(num))
    assert(counts.map(_.head).sum == removed && counts.map(_(1)).sum == added)
  }

  for (target <- Seq(1000, 400)) test(s"the same fragments as pylance's compact_files makes of the same table (target $target rows)") {
    def build(path: String): Unit = {
      pylance(path, "create", 0, 1200, 400, false)
      pylance(path, "append", 1200, 3200, 1000)
      pylance(path, "delete", "id = 1300")
      pylance(path, "delete", "id >= 2400 AND id < 2600")
      pylance(path, "append", 3200, 3800, 300)
    }
    val (ours, theirs) = (newPath(), newPath())
    build(ours)
    build(theirs)
    val expected = fragments(pylance(theirs, "compact", target, 0.1))
    compact(ours, s", target_rows_per_fragment => $target")
    val out = pylance(ours, "show")
    val got = fragments(out)
    assert(got.map(_.tail) == expected.map(_.tail), s"ours ${got.map(_.tail)}, pylance's ${expected.map(_.tail)}")
    val r = read(ours, Seq(version(out)))
    assert(rowsAt(r, version(out)).map(r => num(r.head)) == (0L until 3800L).filterNot(i => i == 1300 || (i >= 2400 && i < 2600)))
  }

  test("a table pylance compacted is continued by us, and one we compacted by pylance") {
    val path = newPath()
    pylance(path, "create", 0, 500, 50, true)
    pylance(path, "delete", "id < 20")
    pylance(path, "compact", 200, 0.1)
    spark.range(500, 600).selectExpr("id", "concat('c', CAST(id % 7 AS STRING)) AS cat", "id * 10 AS v").coalesce(4)
      .write.format("lance").mode("append").option("maxRowsPerFile", "25").save(path)
    val beforeOurs = read(path, Seq(version(pylance(path, "delete", "id = 550"))))
    val v0 = beforeOurs("versions").asInstanceOf[Map[String, Any]].keys.head.toLong
    compact(path, ", target_rows_per_fragment => 200")
    val out = pylance(path, "compact", 1000, 0.1)
    val r = read(path, Seq(v0, version(out)))
    assert(rowsAt(r, version(out)) == rowsAt(beforeOurs, v0))
    assert(rowsAt(r, version(out)).map(x => num(x.head)) == (20L until 600L).filterNot(_ == 550))
    assert(leaked(path).isEmpty)
  }

  test("each phase is a Spark job described with the table and the phase") {
    val path = newPath()
    pylance(path, "create", 0, 300, 100, false)
    val seen = new java.util.concurrent.ConcurrentLinkedQueue[String]()
    val listener = new org.apache.spark.scheduler.SparkListener {
      override def onJobStart(e: org.apache.spark.scheduler.SparkListenerJobStart): Unit =
        Option(e.properties).flatMap(p => Option(p.getProperty("spark.job.description"))).foreach(seen.add(_))
    }
    spark.sparkContext.addSparkListener(listener)
    def described = seen.asScala.exists(d => d.startsWith("Lance compact") && d.contains(path) && d.contains(": rewrite 3 fragments (300 rows) in 1 groups"))
    try {
      compact(path)
      // Listeners hear of jobs asynchronously.
      val until = System.nanoTime() + 10000000000L
      while (!described && System.nanoTime() < until) Thread.sleep(20)
    } finally spark.sparkContext.removeSparkListener(listener)
    assert(described, seen.asScala.mkString("; "))
  }

  test("nothing qualifies: no commit, the version returned; bad options change nothing") {
    val path = newPath()
    val v = version(pylance(path, "create", 0, 100, 100, false))
    assert(compact(path) == Seq(0, 0, 0, 0, 0, v))
    val e = intercept[Exception](compact(path, ", target_rows_per_fragment => 0"))
    assert(e.getMessage.contains("target_rows_per_fragment"))
    assert(version(pylance(path, "show")) == v)
  }

  test("a catalog table written by Spark in small appends, compacted by name, reads the same in Spark and pylance") {
    spark.sql("CREATE TABLE small_appends (id BIGINT, cat STRING, v BIGINT) USING lance")
    for (i <- 0 until 6) spark.sql(s"INSERT INTO small_appends SELECT id, concat('c', CAST(id % 7 AS STRING)), id * 10 FROM range(${i * 50}, ${(i + 1) * 50})")
    spark.sql("DELETE FROM small_appends WHERE id % 9 = 0")
    val expected = (0L until 300L).filterNot(_ % 9 == 0)
    val path = new File(spark.sessionState.catalog.getTableMetadata(spark.sessionState.sqlParser.parseTableIdentifier("small_appends")).location).getPath
    try {
      val row = spark.sql("CALL spark_catalog.system.compact(table => 'default.small_appends')").collect().head
      assert(row.getInt(0) >= 6 && row.getInt(1) == 1 && row.getLong(4) == expected.length)
      assert(spark.sql("SELECT id FROM small_appends ORDER BY id").collect().map(_.getLong(0)).toSeq == expected)
      val r = read(path, Seq(row.getLong(5)))
      assert(rowsAt(r, row.getLong(5)).map(x => num(x.head)) == expected)
      assert(leaked(path).isEmpty)
    } finally spark.sql("DROP TABLE IF EXISTS small_appends")
  }

  test("a table with blob columns is refused by name before anything is written") {
    val path = newPath()
    PylanceScript.run(
      """import sys, json, lance, pyarrow as pa
        |f = pa.field("b", pa.large_binary(), metadata={"lance-encoding:blob": "true"})
        |t = pa.table({"id": pa.array(range(4), pa.int64()), "b": pa.array([b"x"] * 4, pa.large_binary())}, schema=pa.schema([pa.field("id", pa.int64()), f]))
        |lance.write_dataset(t, sys.argv[1], max_rows_per_file=1)
        |print(json.dumps({}))
        |""".stripMargin, path)
    val before = new File(path, "data").list().toSet
    val e = intercept[Exception](compact(path))
    assert(e.getMessage.contains("LANCE_UNSUPPORTED_FEATURE") && e.getMessage.contains("blob columns"), e.getMessage)
    assert(new File(path, "data").list().toSet == before && version(pylance(path, "show")) == 1)
  }

  test("on a table without stable row ids, fragments an index this writer cannot remap covers are held back, the others compacted") {
    val path = newPath()
    pylance(path, "create", 0, 300, 100, false)
    pylance(path, "fts")
    pylance(path, "append", 300, 600, 100)
    val Seq(removed, added, _, _, rows, v) = compact(path)
    assert((removed, added, rows) == (3L, 1L, 300L))
    val r = read(path, Seq(v))
    assert(rowsAt(r, v).map(x => num(x.head)) == (0L until 600L))
    assert(r("fragments").asInstanceOf[Seq[Any]].map(num).take(3) == Seq(0L, 1L, 2L))
    assert(r("indices").asInstanceOf[Map[String, Seq[Any]]]("cat_idx").map(num) == Seq(0L, 1L, 2L))
  }

  /** A compaction of `path` with `race` committed by pylance between its rewrite and its commit. */
  private def racing(path: String)(race: => Unit): Either[Throwable, Long] = {
    val t = table(path)
    try Right(Compaction.run(t, CompactionOptions(targetRowsPerFragment = 1000), () => race).version)
    catch { case e: Throwable => Left(e) }
  }

  test("racing an append: both land, nothing lost") {
    val path = newPath()
    pylance(path, "create", 0, 400, 100, true)
    val got = racing(path)(pylance(path, "append", 400, 450, 100))
    val v = got.fold(e => fail(e), identity)
    val r = read(path, Seq(v))
    assert(rowsAt(r, v).map(x => num(x.head)) == (0L until 450L))
    assert(leaked(path).isEmpty)
  }

  for (race <- Seq("delete", "update", "compact", "index"))
    test(s"racing a $race of the rewritten fragments: the compaction fails, nothing resurrected, no file leaked") {
    val path = newPath()
    pylance(path, "create", 0, 400, 100, true)
    var theirs = 0L
    val got = racing(path) {
      theirs = version(race match {
        case "compact" => pylance(path, "compact", 1000, 0.1)
        case "index" => pylance(path, "index")
        case _ => pylance(path, race, "id = 150")
      })
    }
    val e = got.left.getOrElse(fail("the compaction committed over a change of the fragments it rewrote"))
    val lance = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst { case l: LanceException => l }
    assert(lance.exists(_.getMessage.contains("Rewrite")), e.toString)
    val r = read(path, Seq(theirs))
    val ids = rowsAt(r, theirs).map(x => num(x.head))
    race match {
      case "delete" => assert(ids == (0L until 400L).filterNot(_ == 150))
      case "update" => assert(rowsAt(r, theirs).find(x => num(x.head) == 150).map(x => num(x(2))).contains(1501L))
      case _ => assert(ids == (0L until 400L))
    }
    assert(leaked(path).isEmpty, "the compaction's files are removed")
    // Run again on the new version, it commits.
    val Seq(_, _, _, _, _, v) = compact(path, ", target_rows_per_fragment => 1000")
    assert(rowsAt(read(path, Seq(v)), v) == rowsAt(r, theirs))
  }
}
