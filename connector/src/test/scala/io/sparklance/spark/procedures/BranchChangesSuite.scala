package io.sparklance.spark.procedures

import java.io.File
import java.nio.file.Files

import scala.concurrent.{Await, Future}
import scala.concurrent.ExecutionContext.Implicits.global
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.spark.catalog.LanceCatalog
import io.sparklance.table.{RefWrites, Refs}
import io.sparklance.testutil.{CatalogTables, PylanceScript}

/**
 * What changes a branch beyond its writes: ALTER TABLE on `t.branch_<name>`, compaction,
 * restore and cleanup of a branch, each committed on the branch's own line and checked by pylance 14 on
 * the branch and on the main line (which must not change). And a tag move, which a reader
 * (ours and pylance) never sees without the tag.
 */
class BranchChangesSuite extends AnyFunSuite with CatalogTables {

  /**
   * pylance's read of the latest version of the main line (`main`) or of a branch (any other
   * argument): version, column names, config and every row, sorted by id, as lists of values.
   */
  private val PylanceRead =
    """import sys, json, lance
      |uri = sys.argv[1]
      |out = {}
      |for line in sys.argv[2:]:
      |    d = lance.dataset(uri) if line == "main" else lance.dataset(uri).checkout_version((line, None))
      |    t = d.to_table()
      |    t = t.sort_by("id")
      |    rows = [[r[c] for c in t.column_names] for r in t.to_pylist()]
      |    out[line] = {"version": d.version, "columns": t.column_names, "config": d.config(), "rows": rows,
      |                 "fragments": len(d.get_fragments())}
      |print(json.dumps(out))
      |""".stripMargin

  private case class Read(version: Long, columns: Seq[String], config: Map[String, String], rows: Seq[Seq[Any]], fragments: Int)

  private def pylance(uri: String, lines: String*): Map[String, Read] =
    PylanceScript.run(PylanceRead, (uri +: lines): _*).map { case (k, v) =>
      val m = v.asInstanceOf[Map[String, Any]]
      k -> Read(m("version").asInstanceOf[BigDecimal].toLongExact, m("columns").asInstanceOf[Vector[String]],
        m("config").asInstanceOf[Map[String, String]],
        m("rows").asInstanceOf[Vector[Vector[Any]]].map(_.map {
          case n: BigDecimal if n.isValidLong => n.toLongExact
          case n: BigDecimal => n.toDouble
          case x => x
        }),
        m("fragments").asInstanceOf[BigDecimal].toIntExact)
    }

  private def row(values: Any*): Seq[Any] = values

  private def call(sql: String): Seq[Row] = spark.sql(s"CALL lance.system.$sql").collect().toSeq

  /** Every file of the main line (what is below `tree/` is the branches') with a digest of its bytes. */
  private def mainFiles(t: String): Map[String, Int] =
    Files.walk(new File(t).toPath).iterator().asScala.filter(Files.isRegularFile(_))
      .filterNot(p => p.toString.startsWith(s"$t/tree/") || p.toString.startsWith(s"$t/_refs/"))
      .map(p => p.toString -> java.util.Arrays.hashCode(Files.readAllBytes(p))).toMap

  /** Table `name` with ids 1..3 on the main line and branch `dev` made from its latest version. */
  private def withBranch(name: String): String = {
    spark.sql(s"CREATE TABLE $name (id BIGINT NOT NULL, name STRING) USING lance")
    spark.sql(s"INSERT INTO $name VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    call(s"create_branch(table => 'default.$name', branch => 'dev')")
    location(name)
  }

  test("ALTER TABLE on t.branch_dev adds, renames and drops columns and sets properties on the branch only") {
    val t = withBranch("s")
    val main = pylance(t, "main")("main")
    val before = mainFiles(t)
    spark.sql("ALTER TABLE s.`branch_dev` ADD COLUMNS (score DOUBLE, note STRING)")
    spark.sql("INSERT INTO s.`branch_dev` VALUES (4, 'd', 1.5, 'x')")
    spark.sql("ALTER TABLE s.`branch_dev` RENAME COLUMN name TO label")
    spark.sql("ALTER TABLE s.`branch_dev` DROP COLUMN note")
    spark.sql("ALTER TABLE s.`branch_dev` SET TBLPROPERTIES ('team' = 'search', 'gone' = '1')")
    spark.sql("ALTER TABLE s.`branch_dev` UNSET TBLPROPERTIES ('gone')")

    val seen = pylance(t, "main", "dev")
    assert(seen("main") == main, "the main line is untouched")
    assert(mainFiles(t) == before, "no file of the main line changed")
    val dev = seen("dev")
    assert(dev.version == main.version + 6)
    assert(dev.columns == Seq("id", "label", "score"))
    assert(dev.rows == Seq(row(1L, "a", null), row(2L, "b", null), row(3L, "c", null), row(4L, "d", 1.5)))
    assert(dev.config.get("team").contains("search") && !dev.config.contains("gone"))
    assert(!main.config.contains("team"))
    // Our reader agrees.
    assert(rows("SELECT id, label, score FROM s.`branch_dev` ORDER BY id") ==
      Seq(Row(1L, "a", null), Row(2L, "b", null), Row(3L, "c", null), Row(4L, "d", 1.5)))
    assert(rows("SELECT * FROM s ORDER BY id") == Seq(Row(1L, "a"), Row(2L, "b"), Row(3L, "c")))

    // pylance continues the branch we altered.
    PylanceScript.run(
      """import sys, lance, pyarrow as pa
        |d = lance.dataset(sys.argv[1]).checkout_version(("dev", None))
        |lance.write_dataset(pa.table({"id": pa.array([5], pa.int64()), "label": ["e"], "score": [2.5]}), d, mode="append")
        |print("{}")""".stripMargin, t)
    assert(rows("SELECT id, label, score FROM s.`branch_dev` WHERE id = 5") == Seq(Row(5L, "e", 2.5)))
  }

  test("ALTER TABLE on a branch through a LanceCatalog path name, and on a tag refused with nothing changed") {
    val t = withBranch("p")
    spark.conf.set("spark.sql.catalog.brw", classOf[LanceCatalog].getName)
    spark.conf.set("spark.sql.catalog.brw.warehouse", new File(t).getParent)
    spark.sql(s"ALTER TABLE brw.`$t`.`branch_dev` ADD COLUMNS (extra INT)")
    spark.sql(s"ALTER TABLE brw.`$t`.`branch_dev` SET TBLPROPERTIES ('k' = 'v')")
    val seen = pylance(t, "main", "dev")
    assert(seen("dev").columns == Seq("id", "name", "extra") && seen("dev").config.get("k").contains("v"))
    assert(seen("dev").rows == Seq(row(1L, "a", null), row(2L, "b", null), row(3L, "c", null)))
    assert(seen("main").columns == Seq("id", "name") && !seen("main").config.contains("k"))

    call(s"create_tag(table => 'default.p', tag => 'first')")
    val before = Files.walk(new File(t).toPath).iterator().asScala.map(_.toString).toSet
    Seq("ALTER TABLE p.`tag_first` ADD COLUMNS (x INT)", "ALTER TABLE p.history SET TBLPROPERTIES ('a' = 'b')",
      s"ALTER TABLE brw.`$t`.`tag_first` DROP COLUMN name").foreach { sql =>
      assert(lanceError(spark.sql(sql)).errorClass == "LANCE_INVALID_ARGUMENT", sql)
    }
    assert(lanceError(spark.sql("ALTER TABLE p.`branch_nope` ADD COLUMNS (x INT)")).errorClass == "LANCE_REF_NOT_FOUND")
    assert(Files.walk(new File(t).toPath).iterator().asScala.map(_.toString).toSet == before)
  }

  test("compact, restore and cleanup on t.branch_dev change the branch only; pylance reads both lines, main unchanged") {
    val t = withBranch("c")
    (4 to 9).foreach(i => spark.sql(s"INSERT INTO c.`branch_dev` VALUES ($i, 'n$i')"))
    spark.sql("DELETE FROM c.`branch_dev` WHERE id IN (2, 5)")
    val main = pylance(t, "main")("main")
    val before = mainFiles(t)
    val pre = pylance(t, "dev")("dev")
    assert(pre.fragments >= 7)
    val expected = Seq(1L -> "a", 3L -> "c", 4L -> "n4", 6L -> "n6", 7L -> "n7", 8L -> "n8", 9L -> "n9").map { case (i, n) => row(i, n) }
    assert(pre.rows == expected)

    val result = call("compact(table => 'default.c.`branch_dev`')")
    assert(result.length == 1)
    val r = result.head
    assert(r.getAs[Int]("fragments_removed") == pre.fragments && r.getAs[Int]("fragments_added") == 1 && r.getAs[Long]("rows") == 7L)
    var seen = pylance(t, "main", "dev")
    assert(seen("dev").version == pre.version + 1 && r.getAs[Long]("version") == pre.version + 1)
    assert(seen("dev").rows == expected && seen("dev").fragments == 1)
    assert(seen("main") == main && mainFiles(t) == before, "the main line is untouched")
    assert(new File(s"$t/tree/dev/data").listFiles().exists(f => f.length() > 0), "the new fragment lies on the branch")

    // Restore the branch to its first version (the main line's content when it was made).
    val first = main.version
    assert(call(s"restore(table => 'default.c.`branch_dev`', version => $first)") == Seq(Row(first, pre.version + 2)))
    seen = pylance(t, "main", "dev")
    assert(seen("dev").rows == Seq(row(1L, "a"), row(2L, "b"), row(3L, "c")) && seen("dev").version == pre.version + 2)
    assert(seen("main") == main && mainFiles(t) == before)
    // The branch goes on from the restored content.
    spark.sql("INSERT INTO c.`branch_dev` VALUES (10, 'j')")
    val restored = Seq(row(1L, "a"), row(2L, "b"), row(3L, "c"), row(10L, "j"))
    assert(pylance(t, "dev")("dev").rows == restored)

    // Cleanup of the branch keeps its latest version only: the files of its old versions (the
    // appends, the compacted fragment) go; the main line's files, which the branch names, stay.
    val devData = new File(s"$t/tree/dev/data")
    val dataBefore = devData.listFiles().length
    val cleaned = call("cleanup(table => 'default.c.`branch_dev`', retain_versions => 1, override => true)").head
    assert(cleaned.getAs[Long]("versions_removed") == pre.version + 3 - first, "every version of the branch but its latest")
    assert(devData.listFiles().length == 1 && dataBefore > 1, devData.listFiles().toSeq)
    seen = pylance(t, "main", "dev")
    assert(seen("dev").rows == restored && seen("main") == main && mainFiles(t) == before)
  }

  test("a tag moved over and over is never missing to a concurrent reader, ours or pylance's") {
    val t = Files.createTempDirectory("tagmove").resolve("t").toString
    spark.range(3).write.format("lance").save(t)
    spark.range(3, 6).write.format("lance").mode("append").save(t)
    RefWrites.createTag(store, t, "moving", None, Some(1L), replace = false)
    @volatile var stop = false
    val moves = Future {
      var n = 0
      while (!stop) { RefWrites.createTag(store, t, "moving", None, Some(1L + n % 2), replace = true); n += 1 }
      n
    }
    // Ours: the tag file read back and parsed, again and again while the moves run.
    val ours = Future {
      val s = store
      (1 to 3000).map(_ => scala.util.Try(Refs.tag(s, t, "moving").version))
    }
    // pylance's: lists the tags (reads every tag file) until it has seen both versions many times.
    val theirs = Future(PylanceScript.run(
      """import sys, json, lance
        |ds = lance.dataset(sys.argv[1])
        |missing, errors, seen = 0, 0, {}
        |for _ in range(1500):
        |    try:
        |        tags = ds.tags.list()
        |    except Exception:
        |        errors += 1
        |        continue
        |    if "moving" not in tags:
        |        missing += 1
        |    else:
        |        v = str(tags["moving"]["version"])
        |        seen[v] = seen.get(v, 0) + 1
        |print(json.dumps({"missing": missing, "errors": errors, "seen": seen}))""".stripMargin, t))
    val ourReads = Await.result(ours, 5.minutes)
    val py = Await.result(theirs, 5.minutes)
    stop = true
    val moved = Await.result(moves, 1.minute)
    assert(moved > 100, s"only $moved moves ran")
    assert(ourReads.forall(_.isSuccess), ourReads.collectFirst { case scala.util.Failure(e) => e })
    assert(ourReads.map(_.get).toSet == Set(1L, 2L), "the reads overlapped the moves")
    assert(py("missing") == BigDecimal(0) && py("errors") == BigDecimal(0), py)
    assert(py("seen").asInstanceOf[Map[String, Any]].keySet == Set("1", "2"), s"pylance's reads overlapped the moves: $py")
    // No temporary file is left beside the tag.
    assert(new File(s"$t/_refs/tags").list().toSeq == Seq("moving.json"))
  }
}
