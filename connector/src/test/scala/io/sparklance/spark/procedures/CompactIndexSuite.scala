package io.sparklance.spark.procedures

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.spark.{LanceOptions, LanceTable}
import io.sparklance.spark.maintenance.Compaction
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{IndexLookup, ScanPlanner, Snapshot}
import io.sparklance.table.expr.Expr
import io.sparklance.table.maintenance.CompactionOptions
import io.sparklance.testutil.{LocalSpark, PylanceScript}

/**
 * Compaction of tables without stable row ids whose fragments BTREE, BITMAP and ZONEMAP indices
 * (made by pylance) cover: the BTREE and BITMAP come remapped to the new fragments, as pylance's
 * compact_files remaps them, and pylance answers with them exactly what a full scan answers;
 * pylance continues writing, indexing and compacting; a table pylance compacted is continued by
 * us; a concurrent index change fails the compaction, whose files are then removed.
 */
class CompactIndexSuite extends AnyFunSuite with LocalSpark {

  // pylance: changes the table (id int64, cat string, v int64) at argv[1]; argv[2] is [op, args...].
  private val Write = CompactTables.PylancePrelude +
    """|if op == "create":
      |    lance.write_dataset(rows(args[0], args[1]), path, max_rows_per_file=args[2])
      |elif op == "append":
      |    lance.write_dataset(rows(args[0], args[1]), path, mode="append", max_rows_per_file=args[2])
      |elif op == "delete":
      |    lance.dataset(path).delete(args[0])
      |elif op == "index":
      |    ds = lance.dataset(path)
      |    ds.create_scalar_index("id", "BTREE")
      |    ds.create_scalar_index("cat", "BITMAP")
      |    ds.create_scalar_index("v", "ZONEMAP")
      |elif op == "reindex":
      |    lance.dataset(path).create_scalar_index("id", "BTREE", replace=True)
      |elif op == "compact":
      |    lance.dataset(path).optimize.compact_files(target_rows_per_fragment=args[0])
      |print(json.dumps({"version": lance.dataset(path).version}))
      |""".stripMargin

  // pylance: for each filter, the ids found with the indices and by a full scan and the plan; the
  // indices (uuid, fragments), the fragments, the row addresses of ids 77 and 500, the last
  // transaction as pylance prints it.
  private val Check =
    """import sys, json, lance, lance.debug
      |ds = lance.dataset(sys.argv[1])
      |filters = json.loads(sys.argv[2])
      |out = {"version": ds.version, "ids": sorted(ds.to_table(columns=["id"]).column("id").to_pylist()), "filters": {}}
      |for f in filters:
      |    indexed = sorted(ds.to_table(filter=f, columns=["id"]).column("id").to_pylist())
      |    scanned = sorted(ds.to_table(filter=f, columns=["id"], use_scalar_index=False).column("id").to_pylist())
      |    out["filters"][f] = {"indexed": indexed, "scanned": scanned, "plan": ds.scanner(filter=f, columns=["id"]).explain_plan()}
      |out["indices"] = {i["name"]: [i["uuid"], sorted(i["fragment_ids"])] for i in ds.list_indices()}
      |out["fragments"] = [f.fragment_id for f in ds.get_fragments()]
      |t = ds.to_table(filter="id IN (77, 500)", columns=["id"], with_row_address=True).sort_by("id")
      |out["addresses"] = [[i, a] for i, a in zip(t.column("id").to_pylist(), t.column("_rowaddr").to_pylist())]
      |out["c0"] = ds.to_table(filter="cat = 'c0'", columns=["id"], with_row_address=True, use_scalar_index=False).column("_rowaddr").to_pylist()
      |out["txn"] = lance.debug.list_transactions(ds, 1)[0]
      |print(json.dumps(out))
      |""".stripMargin

  private val BTreeFilters = Seq("id = 77", "id = 73", "id >= 100 AND id < 180", "id IN (5, 500, 955, 1040)")
  private val BitmapFilters = Seq("cat = 'c3'", "cat IN ('c1', 'c5')")
  private val Filters = BTreeFilters ++ BitmapFilters :+ "v >= 1000 AND v < 1100"

  private def json(x: Any): String = x match {
    case s: String => "\"" + s.replace("\"", "\\\"") + "\""
    case s: Iterable[_] => s.map(json).mkString("[", ", ", "]")
    case n => n.toString
  }
  private def num(x: Any): Long = x.asInstanceOf[BigDecimal].toLongExact
  private def nums(x: Any): Seq[Long] = x.asInstanceOf[Seq[Any]].map(num)
  private def write(path: String, op: Any*): Long = num(PylanceScript.run(Write, path, json(op))("version"))

  private final case class Checked(version: Long, ids: Seq[Long], filters: Map[String, (Seq[Long], Seq[Long], String)],
      indices: Map[String, (String, Set[Long])], fragments: Set[Long], addresses: Map[Long, Long], c0: Set[Long], txn: String)

  private def check(path: String): Checked = {
    val out = PylanceScript.run(Check, path, json(Filters))
    val filters = out("filters").asInstanceOf[Map[String, Map[String, Any]]].map { case (f, r) =>
      f -> (nums(r("indexed")), nums(r("scanned")), r("plan").asInstanceOf[String])
    }
    val indices = out("indices").asInstanceOf[Map[String, Seq[Any]]].map { case (n, Seq(u, fs)) => n -> (u.asInstanceOf[String], nums(fs).toSet) }
    Checked(num(out("version")), nums(out("ids")), filters, indices, nums(out("fragments")).toSet,
      out("addresses").asInstanceOf[Seq[Seq[Any]]].map(p => num(p.head) -> num(p(1))).toMap, nums(out("c0")).toSet, out("txn").asInstanceOf[String])
  }

  /** pylance answers every filter with its index where one applies, and exactly as a full scan does; `live` are the rows. */
  private def assertAnswers(c: Checked, live: Seq[Long]): Unit = {
    assert(c.ids == live)
    c.filters.foreach { case (f, (indexed, scanned, plan)) =>
      assert(indexed == scanned, f)
      if (BTreeFilters.contains(f)) assert(plan.contains("@id_idx(BTree)"), plan)
      if (BitmapFilters.contains(f)) assert(plan.contains("@cat_idx(Bitmap)"), plan)
    }
    assert(c.filters("id = 77")._1 == live.filter(_ == 77L))
    assert(c.filters("cat = 'c3'")._1 == live.filter(_ % 7 == 3))
    assert(c.filters("id >= 100 AND id < 180")._1 == live.filter(i => i >= 100 && i < 180))
  }

  /** Our reader's index look-ups: the row addresses the BTREE and the BITMAP give are those pylance reads the rows at. */
  private def assertOurLookups(path: String, c: Checked): Unit = {
    val store = new HadoopObjectStore(new Configuration())
    val snapshot = Snapshot.open(store, path, None)
    val rows = ScanPlanner.plan(store, snapshot).map(t => t.fragmentId -> t.physicalRows).toMap
    def addresses(p: Expr): Set[Long] = {
      val found = IndexLookup.select(store, snapshot, p, rows)
      assert(found.nonEmpty, s"no index used for $p")
      found.toSeq.flatMap { case (f, offsets) => offsets.toArray.map(o => (f << 32) | (o & 0xffffffffL)) }.toSet
    }
    assert(addresses(Expr.In("id", Seq(77L, 500L))) == c.addresses.values.toSet)
    // The BITMAP names every live row with cat c0 of the fragments it covers, and only rows of those.
    val byCat = addresses(Expr.Compare("cat", Expr.Eq, "c0"))
    val covered = c.indices("cat_idx")._2
    assert(c.c0.filter(a => covered(a >>> 32)).subsetOf(byCat) && byCat.forall(a => covered(a >>> 32)))
    assert(c.c0.exists(a => covered(a >>> 32)))
    val ours = spark.read.format("lance").load(path).where("id IN (77, 500) OR cat = 'c3'").select("id").collect().map(_.getLong(0)).sorted.toSeq
    assert(ours == c.ids.filter(i => i == 77 || i == 500 || i % 7 == 3))
  }

  private def newPath(): String = new File(Files.createTempDirectory("compact-index").toFile, "t").getPath

  private def compact(path: String, target: Int): Seq[Long] = {
    val row = spark.sql(s"CALL lance.system.compact(table => '$path', target_rows_per_fragment => $target)").collect().head
    (0 until 6).map(i => row.get(i).toString.toLong)
  }

  /** The index directories holding files. */
  private def indexDirs(path: String): Set[String] =
    Option(new File(path, "_indices").listFiles()).toSeq.flatten.filter(d => Option(d.list()).exists(_.nonEmpty)).map(_.getName).toSet

  test("BTREE and BITMAP indices are remapped to the new fragments; pylance uses them and continues") {
    val path = newPath()
    write(path, "create", 0, 1000, 100)
    write(path, "index")
    write(path, "delete", "id % 10 = 3 OR (id >= 900 AND id < 950)")
    val before = check(path)
    val live = (0L until 1000L).filterNot(i => i % 10 == 3 || (i >= 900 && i < 950))
    assertAnswers(before, live)

    val Seq(removed, added, _, _, rows, v) = compact(path, 400)
    assert((removed, added, rows) == (10L, 2L, live.length.toLong))
    val after = check(path)
    assert(after.version == v && v == before.version + 2, "a ReserveFragments version, then the Rewrite")
    assertAnswers(after, live)
    // New BTREE and BITMAP indices (new uuids) covering exactly the new fragments; the zone map
    // keeps its uuid and no longer covers the rewritten fragments.
    assert(after.indices("id_idx")._2 == after.fragments && after.indices("cat_idx")._2 == after.fragments, after.indices)
    assert(after.indices("id_idx")._1 != before.indices("id_idx")._1 && after.indices("cat_idx")._1 != before.indices("cat_idx")._1)
    assert(after.indices("v_idx")._1 == before.indices("v_idx")._1 && after.indices("v_idx")._2.isEmpty)
    assert(indexDirs(path) == (before.indices.values.map(_._1) ++ after.indices.values.map(_._1)).toSet)
    // pylance reads our transaction: the Rewrite names both remapped indices, old id to new.
    assert(after.txn.contains("Rewrite") && after.txn.split("RewrittenIndex").length == 3, after.txn)
    Seq("id_idx", "cat_idx").foreach { n =>
      assert(after.txn.contains(s"old_id: ${before.indices(n)._1}") && after.txn.contains(s"new_id: ${after.indices(n)._1}"), after.txn)
    }
    assert(after.txn.contains("page_data.lance") && after.txn.contains("bitmap_page_lookup.lance"), after.txn)
    assertOurLookups(path, after)

    // pylance continues: an append, a delete, its own compaction (remapping our index files).
    write(path, "append", 1000, 1100, 50)
    write(path, "delete", "id = 500 OR id = 1040")
    val live2 = (live ++ (1000L until 1100L)).filterNot(i => i == 500 || i == 1040)
    write(path, "compact", 2000)
    val continued = check(path)
    assertAnswers(continued, live2)
    // And we compact again after more deletions.
    write(path, "delete", "id % 10 = 7")
    val live3 = live2.filterNot(_ % 10 == 7)
    compact(path, 300)
    val again = check(path)
    assertAnswers(again, live3)
    // The appended rows were never indexed: the indices cover the fragments of the others.
    assert(again.indices("id_idx")._2 == again.indices("cat_idx")._2 && again.indices("id_idx")._2.subsetOf(again.fragments), again.indices)
    assertOurLookups(path, again)
  }

  test("a table pylance compacted with its indices remapped is continued by us") {
    val path = newPath()
    write(path, "create", 0, 600, 100)
    write(path, "index")
    write(path, "delete", "id % 9 = 4")
    write(path, "compact", 250)
    write(path, "append", 600, 700, 40)
    write(path, "delete", "id >= 100 AND id < 130")
    val live = ((0L until 600L).filterNot(_ % 9 == 4) ++ (600L until 700L)).filterNot(i => i >= 100 && i < 130)
    val before = check(path)
    assertAnswers(before, live)
    val Seq(removed, _, _, _, _, _) = compact(path, 1000)
    assert(removed > 1)
    val after = check(path)
    assertAnswers(after, live)
    // The appended fragments were not indexed: the remapped indices cover what they covered, moved.
    val uncovered = before.fragments -- before.indices("id_idx")._2
    assert(uncovered.nonEmpty && after.indices("id_idx")._2.nonEmpty)
    assert(after.indices("id_idx")._2.subsetOf(after.fragments), after.indices)
    assertOurLookups(path, after)
  }

  test("an index replaced while the compaction ran fails it; its data and index files are removed") {
    val path = newPath()
    write(path, "create", 0, 400, 100)
    write(path, "index")
    write(path, "delete", "id % 5 = 0")
    val dirs = indexDirs(path)
    val data = new File(path, "data").list().toSet
    val t = LanceTable.open(new CaseInsensitiveStringMap(Map(LanceOptions.Path -> path).asJava))
    var theirs = 0L
    val e = intercept[Exception](Compaction.run(t, CompactionOptions(targetRowsPerFragment = 1000), () => theirs = write(path, "reindex")))
    assert(Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).exists(_.getMessage.contains("remapped an index")), e.toString)
    val c = check(path)
    assert(c.version == theirs)
    assertAnswers(c, (0L until 400L).filterNot(_ % 5 == 0))
    // Only pylance's new BTREE directory was added; our remapped copies and rewritten data are gone.
    assert(indexDirs(path) -- dirs == Set(c.indices("id_idx")._1))
    assert(new File(path, "data").list().toSet == data)
    // Run again, it commits.
    compact(path, 1000)
    assertAnswers(check(path), (0L until 400L).filterNot(_ % 5 == 0))
  }

  test("an append committed while the compaction ran lands too: the reserved ids keep the remapped addresses its own") {
    val path = newPath()
    write(path, "create", 0, 400, 100)
    write(path, "index")
    write(path, "delete", "id % 6 = 1")
    val t = LanceTable.open(new CaseInsensitiveStringMap(Map(LanceOptions.Path -> path).asJava))
    val result = Compaction.run(t, CompactionOptions(targetRowsPerFragment = 1000), () => write(path, "append", 400, 450, 25))
    val c = check(path)
    assert(c.version == result.version)
    assertAnswers(c, (0L until 400L).filterNot(_ % 6 == 1) ++ (400L until 450L))
    // The appended fragments (ids after the reserved one) are not indexed; the compacted one is.
    val compacted = c.fragments.filter(f => c.indices("id_idx")._2(f))
    assert(compacted.size == 1 && c.fragments.size == 3 && (c.fragments - compacted.head).forall(_ > compacted.head), c)
    assertOurLookups(path, c)
  }
}
