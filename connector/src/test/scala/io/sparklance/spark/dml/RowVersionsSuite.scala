package io.sparklance.spark.dml

import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{CatalogTables, PylanceScript}

/**
 * Row versions on tables with stable row ids (lance-format/lance
 * docs/src/format/table/row_id_lineage.md): every row read by pylance has the version that
 * created it and the version that last updated it, as Lance's rules give them, whether Spark or
 * pylance made each version, and pylance's change queries (`delta`) find exactly the rows each of
 * our appends, UPDATEs and MERGEs inserted and updated.
 */
class RowVersionsSuite extends AnyFunSuite with CatalogTables {

  // pylance: each row's (id, created-at, last-updated-at) version, and for each [begin, end] the
  // ids delta() reports inserted and updated (read at version end: delta looks at the rows of the
  // version it is called on).
  private val Read =
    """import sys, json, lance
      |ds = lance.dataset(sys.argv[1])
      |t = ds.to_table(columns=["id", "_row_created_at_version", "_row_last_updated_at_version"]).sort_by("id")
      |def ids(reader):
      |    t = reader.read_all()
      |    return sorted(t.column("id").to_pylist()) if t.num_rows else []
      |deltas = []
      |for a, b in json.loads(sys.argv[2]):
      |    d = lance.dataset(sys.argv[1], version=b).delta(begin_version=a, end_version=b)
      |    deltas.append({"inserted": ids(d.get_inserted_rows()), "updated": ids(d.get_updated_rows())})
      |print(json.dumps({"rows": [list(r.values()) for r in t.to_pylist()], "deltas": deltas}))
      |""".stripMargin

  // pylance: one change of the table (id: int64, v: int64) at argv[1], given as JSON; prints the version it made.
  private val Change =
    """import sys, json, lance, pyarrow as pa
      |path, (op, *args) = sys.argv[1], json.loads(sys.argv[2])
      |def rows(ids, v):
      |    return pa.table({"id": pa.array(ids, pa.int64()), "v": pa.array([v] * len(ids), pa.int64())})
      |if op == "create":
      |    lance.write_dataset(rows(args[0], 0), path, enable_stable_row_ids=True, max_rows_per_file=args[1])
      |elif op == "append":
      |    lance.write_dataset(rows(args[0], 0), path, mode="append")
      |elif op == "update":
      |    lance.dataset(path).update({"v": str(args[1])}, where=args[0])
      |elif op == "merge":
      |    lance.dataset(path).merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(rows(args[0], args[1]))
      |elif op == "delete":
      |    lance.dataset(path).delete(args[0])
      |elif op == "compact":
      |    lance.dataset(path).optimize.compact_files(target_rows_per_fragment=1000, materialize_deletions_threshold=0.0)
      |print(json.dumps({"version": lance.dataset(path).version}))
      |""".stripMargin

  /** What Lance's rules make of each row: id -> (created-at, last-updated-at), kept for every version. */
  private final class Expected {
    private var now = Map.empty[Long, (Long, Long)]
    private var at = Map.empty[Long, Map[Long, (Long, Long)]]
    def rows: Map[Long, (Long, Long)] = now
    def ids: Seq[Long] = now.keys.toSeq.sorted
    /** Version `v`: `inserted` rows new, `updated` rows rewritten (their created-at kept), `deleted` gone. */
    def commit(v: Long, inserted: Seq[Long] = Nil, updated: Seq[Long] = Nil, deleted: Seq[Long] = Nil): Unit = {
      assert(updated.forall(now.contains) && deleted.forall(now.contains) && !inserted.exists(now.contains))
      now = now -- deleted ++ updated.map(id => id -> (now(id)._1, v)) ++ inserted.map(_ -> (v, v))
      at += v -> now
    }
    /** What delta(begin, end) must report: (inserted, updated) ids, sorted. */
    def delta(begin: Long, end: Long): (Seq[Long], Seq[Long]) = {
      val rows = at(end)
      (rows.collect { case (id, (c, _)) if c > begin => id }.toSeq.sorted,
        rows.collect { case (id, (c, u)) if c <= begin && u > begin => id }.toSeq.sorted)
    }
  }

  private def num(x: Any): Long = x.asInstanceOf[BigDecimal].toLongExact

  /** JSON of the scripts' arguments: numbers, strings without quotes in them, and lists. */
  private def json(x: Any): String = x match {
    case s: String => "\"" + s + "\""
    case (a, b) => json(Seq(a, b))
    case s: Iterable[_] => s.map(json).mkString("[", ", ", "]")
    case n => n.toString
  }

  /** pylance's row versions at `path`, and its delta of each (begin, end), checked against `expected`. */
  private def checkPylance(path: String, expected: Expected, ranges: Seq[(Long, Long)]): Unit = {
    val out = PylanceScript.run(Read, path, json(ranges))
    val read = out("rows").asInstanceOf[Seq[Seq[Any]]].map(r => num(r(0)) -> (num(r(1)), num(r(2))))
    assert(read.map(_._1) == expected.ids)
    val wrong = read.filter { case (id, v) => expected.rows(id) != v }
    assert(wrong.isEmpty, s"${wrong.size} of ${read.size} rows have other versions than Lance's rules give, first " +
      wrong.take(5).map { case (id, v) => s"$id: $v, not ${expected.rows(id)}" }.mkString("; "))
    ranges.zip(out("deltas").asInstanceOf[Seq[Map[String, Any]]]).foreach { case ((a, b), d) =>
      val (inserted, updated) = expected.delta(a, b)
      assert(d("inserted").asInstanceOf[Seq[Any]].map(num) == inserted, s"rows inserted after $a up to $b")
      assert(d("updated").asInstanceOf[Seq[Any]].map(num) == updated, s"rows updated after $a up to $b")
    }
  }

  private def version(table: String): Long = snapshot(table).version

  test("rows our appends, UPDATE, MERGE and DELETE write carry Lance's row versions; pylance's delta finds our changes") {
    spark.sql("CREATE TABLE rv (id BIGINT NOT NULL, v BIGINT) USING lance " +
      "OPTIONS (enableStableRowIds 'true', maxRowsPerFile '100')")
    val expected = new Expected
    val steps = Seq.newBuilder[(Long, Long)]
    def step(statement: => Unit)(change: Long => Unit): Unit = {
      val before = version("rv")
      statement
      val v = version("rv")
      assert(v == before + 1, "one commit")
      change(v)
      steps += before -> v
    }
    step(spark.range(0, 300).selectExpr("id", "0L AS v").coalesce(1).writeTo("rv").append())(v => expected.commit(v, inserted = 0L until 300L))
    step(spark.range(300, 500).selectExpr("id", "0L AS v").writeTo("rv").append())(v => expected.commit(v, inserted = 300L until 500L))
    step(spark.sql("UPDATE rv SET v = 1 WHERE id % 7 = 0"))(v => expected.commit(v, updated = expected.ids.filter(_ % 7 == 0)))
    // Matched rows (some updated before, so moved once already) and new ones.
    spark.range(250, 550).selectExpr("id", "2L AS v").createOrReplaceTempView("src")
    step(spark.sql("MERGE INTO rv USING src ON rv.id = src.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")) { v =>
      expected.commit(v, updated = 250L until 500L, inserted = 500L until 550L)
    }
    step(spark.sql("DELETE FROM rv WHERE id % 10 = 3"))(v => expected.commit(v, deleted = expected.ids.filter(_ % 10 == 3)))
    // Rows moved twice keep the version that created them.
    step(spark.sql("UPDATE rv SET v = 3 WHERE id IN (0, 7, 14, 280, 501, 42)"))(v => expected.commit(v, updated = Seq(0L, 7L, 14L, 42L, 280L, 501L)))
    val ranges = steps.result()
    checkPylance(location("rv"), expected, ranges ++ Seq(ranges(1)._1 -> ranges.last._2, ranges(2)._2 -> ranges(4)._2))
    // The UPDATE's own delta holds exactly the rows it changed, the MERGE's its updates and inserts.
    assert(expected.delta(ranges(2)._1, ranges(2)._2) == (Nil, (0L until 500L).filter(_ % 7 == 0)))
    assert(expected.delta(ranges(3)._1, ranges(3)._2) == ((500L until 550L), (250L until 500L)))
  }

  test("a history written by pylance and by us in turns: every row's versions as Lance's rules give them") {
    val path = Files.createTempDirectory("row-versions").resolve("mixed.lance").toString
    val expected = new Expected
    val steps = Seq.newBuilder[(Long, Long)]
    var last = 0L
    def pylance(change: Any*)(rows: Long => Unit): Unit = {
      val v = num(PylanceScript.run(Change, path, json(change))("version"))
      rows(v)
      steps += last -> v
      last = v
    }
    def ours(statement: String)(rows: Long => Unit): Unit = {
      spark.sql(statement)
      val v = version("mixed")
      assert(v == last + 1)
      rows(v)
      steps += last -> v
      last = v
    }
    def where(p: Long => Boolean) = expected.ids.filter(p)
    pylance("create", 0 until 200, 50)(v => expected.commit(v, inserted = 0L until 200L))
    pylance("update", "id % 5 = 0", 1)(v => expected.commit(v, updated = where(_ % 5 == 0)))
    // pylance's merge-insert writes moved and inserted rows into one fragment (created-at in two runs).
    pylance("merge", 195 until 215, 2)(v => expected.commit(v, updated = 195L until 200L, inserted = 200L until 215L))
    pylance("delete", "id % 9 = 4")(v => expected.commit(v, deleted = where(_ % 9 == 4)))
    // Compaction drops the deleted rows: the runs' spans become ranges with bitmaps. It changes no row's versions.
    pylance("compact")(v => expected.commit(v))
    spark.sql(s"CREATE TABLE mixed USING lance LOCATION '$path'")
    ours("UPDATE mixed SET v = 10 WHERE id % 4 = 1")(v => expected.commit(v, updated = where(_ % 4 == 1)))
    pylance("update", "id % 6 = 0", 20)(v => expected.commit(v, updated = where(_ % 6 == 0)))
    spark.range(205, 225).selectExpr("id", "30L AS v").createOrReplaceTempView("src")
    ours("MERGE INTO mixed USING src ON mixed.id = src.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *") { v =>
      expected.commit(v, updated = where(id => id >= 205 && id < 225), inserted = (205L until 225L).filterNot(expected.rows.contains))
    }
    ours("DELETE FROM mixed WHERE id % 11 = 0")(v => expected.commit(v, deleted = where(_ % 11 == 0)))
    pylance("append", 300 until 310)(v => expected.commit(v, inserted = 300L until 310L))
    ours("UPDATE mixed SET v = 40 WHERE id IN (3, 5, 205, 301, 21, 197)")(v => expected.commit(v, updated = Seq(3L, 5L, 21L, 197L, 205L, 301L)))
    pylance("merge", Seq(5, 21, 400), 50)(v => expected.commit(v, updated = Seq(5L, 21L), inserted = Seq(400L)))
    checkPylance(path, expected, steps.result().tail :+ (1L -> last))
  }
}
