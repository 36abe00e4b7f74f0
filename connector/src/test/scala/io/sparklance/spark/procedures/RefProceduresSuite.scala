package io.sparklance.spark.procedures

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.table.{Manifest, ManifestFile, RefWrites, Refs, Snapshot}
import io.sparklance.table.commit.Operation
import io.sparklance.table.proto.TransactionCodec
import io.sparklance.testutil.{CatalogTables, PylanceScript}
import io.sparklance.util.ScalaCompat._
import io.sparklance.util.{Bytes, Json}

/**
 * Tags and branches made from Spark (procedures, branch writes by path and in SQL), each
 * checked by pylance 14: the refs it lists and the rows it reads at every version; and refs
 * pylance made, continued by us. Bad input changes nothing in the table's folder.
 */
class RefProceduresSuite extends AnyFunSuite with CatalogTables {

  /**
   * pylance's view of a table: its tags (branch, version, manifest size), its branches
   * (parent, parent version) and, for each read `kind:name:version`, the version read and its
   * sorted ids (`tag:t:`, `branch:dev:` = latest, `branch:dev:2`, `main::3`, `main::`).
   */
  private val PylanceView =
    """import sys, json, lance
      |uri = sys.argv[1]
      |ds = lance.dataset(uri)
      |out = {"tags": {k: [v["branch"], v["version"], v["manifest_size"]] for k, v in ds.tags.list().items()},
      |       "branches": {k: [v["parent_branch"], v["parent_version"]] for k, v in ds.branches.list().items()}, "reads": {}}
      |for key in sys.argv[2:]:
      |    kind, name, ver = key.split(":")
      |    if kind == "tag":
      |        d = lance.dataset(uri, version=name)
      |    elif kind == "branch":
      |        d = ds.checkout_version((name, int(ver) if ver else None))
      |    else:
      |        d = lance.dataset(uri, version=int(ver)) if ver else lance.dataset(uri)
      |    out["reads"][key] = [d.version, sorted(d.to_table(columns=["id"])["id"].to_pylist())]
      |print(json.dumps(out))
      |""".stripMargin

  private case class View(tags: Map[String, (Option[String], Long, Long)], branches: Map[String, (Option[String], Long)],
      reads: Map[String, (Long, Seq[Long])])

  private def num(x: Any): Long = x.asInstanceOf[BigDecimal].toLongExact
  private def opt(x: Any): Option[String] = Option(x).map(_.asInstanceOf[String])

  private def pylance(uri: String, reads: String*): View = {
    val m = PylanceScript.run(PylanceView, (uri +: reads): _*)
    def obj(k: String) = m(k).asInstanceOf[Map[String, Vector[Any]]]
    View(
      obj("tags").map { case (k, v) => k -> (opt(v(0)), num(v(1)), num(v(2))) },
      obj("branches").map { case (k, v) => k -> (opt(v(0)), num(v(1))) },
      obj("reads").map { case (k, v) => k -> (num(v(0)), v(1).asInstanceOf[Vector[Any]].map(num)) })
  }

  private def py(script: String, args: String*): Map[String, Any] = PylanceScript.run(script, args: _*)

  private def newTable(): String = Files.createTempDirectory("refs").resolve("t").toString

  /** A table at a new path: ids 0..4 (version 1), then 5..9 appended (version 2). */
  private def twoVersions(): String = {
    val path = newTable()
    spark.range(5).write.format("lance").save(path)
    spark.range(5, 10).write.format("lance").mode("append").save(path)
    path
  }

  private def call(sql: String): Seq[Row] = spark.sql(s"CALL lance.system.$sql").collect().toSeq

  private def idsOf(path: String, opts: (String, String)*): Seq[Long] =
    spark.read.format("lance").options(opts.toMap).load(path).select("id").collect().map(_.getLong(0)).toSeq.sorted

  /** Every file below `dir` with a digest of its bytes: what "nothing changed" compares. */
  private def folder(dir: String): Map[String, Int] =
    Files.walk(new File(dir).toPath).iterator().asScala.filter(Files.isRegularFile(_))
      .map(p => p.toString -> java.util.Arrays.hashCode(Files.readAllBytes(p))).toMap

  private def manifestOf(root: String): Manifest = {
    val s = Snapshot.open(store, root, None)
    ManifestFile.read(store, s.manifestPath)
  }

  private def transactionOf(root: String, m: Manifest) = {
    val path = s"$root/_transactions/${m.transactionFile.get}"
    TransactionCodec.parse(Bytes.wrap(path, 0, store.readAll(path)))
  }

  /** A ref file's text with what differs between two writers of the same ref (times, uuids) masked. */
  private def masked(file: String): String =
    new String(Files.readAllBytes(new File(file).toPath), "UTF-8")
      .replaceAll("\"(createdAt|updatedAt)\": \"[^\"]*\"", "\"$1\": T")
      .replaceAll("\"createAt\": [0-9]+", "\"createAt\": S")
      .replaceAll("\"[0-9a-f]{32}\"", "U")

  private def jsonKeys(file: String): Seq[String] =
    "\n  \"([A-Za-z_]+)\":".r.findAllMatchIn(new String(Files.readAllBytes(new File(file).toPath), "UTF-8")).map(_.group(1)).toSeq

  // ---- tags ------------------------------------------------------------------------------

  test("tags created, moved and deleted by us are the tags pylance lists and reads") {
    val t = twoVersions()
    assert(call(s"create_tag(table => '$t', tag => 'first', version => 1)") == Seq(Row("first", 1L, null)))
    assert(call(s"create_tag(table => '$t', tag => 'head', branch => 'main')") == Seq(Row("head", 2L, null)), "'main' is the main line")
    val size1 = new File(Snapshot.open(store, t, Some(1L)).manifestPath).length()
    val size2 = new File(Snapshot.open(store, t, Some(2L)).manifestPath).length()
    var seen = pylance(t, "tag:first:", "tag:head:")
    assert(seen.tags == Map("first" -> (None, 1L, size1), "head" -> (None, 2L, size2)))
    assert(seen.reads == Map("tag:first:" -> (1L, 0L until 5L), "tag:head:" -> (2L, 0L until 10L)))
    // The file as pylance writes it: keys, order and layout.
    val file = s"$t/_refs/tags/first.json"
    assert(jsonKeys(file) == Seq("branch", "version", "createdAt", "updatedAt", "manifestSize", "metadata"))
    val text = new String(Files.readAllBytes(new File(file).toPath), "UTF-8")
    assert(text.startsWith("{\n  \"branch\": null,\n  \"version\": 1,\n  \"createdAt\": \"") && text.endsWith("\"metadata\": {}\n}"), text)
    py("""import sys, lance; lance.dataset(sys.argv[1]).tags.create("py", 1); print("{}")""", t)
    assert(masked(file) == masked(s"$t/_refs/tags/py.json"), "byte for byte as pylance writes it, but for the times")
    call(s"delete_tag(table => '$t', tag => 'py')")
    val created = Json.parse(text).asInstanceOf[Map[String, Any]]("createdAt")
    assert(created.toString.matches("""\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6}|\.\d{9})?Z"""), created)

    // Moved: replace => true; the creation time stays.
    assert(call(s"create_tag(table => '$t', tag => 'first', version => 2, replace => true)") == Seq(Row("first", 2L, null)))
    val moved = Json.parse(new String(Files.readAllBytes(new File(file).toPath), "UTF-8")).asInstanceOf[Map[String, Any]]
    assert(moved("createdAt") == created && moved("version") == BigDecimal(2))
    seen = pylance(t, "tag:first:")
    assert(seen.tags("first") == ((None, 2L, size2)) && seen.reads("tag:first:") == ((2L, 0L until 10L)))

    assert(call(s"delete_tag(table => '$t', tag => 'first')") == Seq(Row("first", 2L, null)))
    assert(pylance(t).tags.keySet == Set("head"))
    // Our reader reads the tags we wrote, as pylance does.
    assert(idsOf(t, "tag" -> "head") == (0L until 10L))
  }

  test("two writers creating one tag: exactly one wins, the other is told the name is taken") {
    val t = twoVersions()
    val pool = java.util.concurrent.Executors.newFixedThreadPool(6)
    try {
      val results = (1 to 6).map(i => pool.submit(() => scala.util.Try(RefWrites.createTag(store, t, "race", None, Some(1L + i % 2), replace = false))))
        .map(_.get())
      assert(results.count(_.isSuccess) == 1, results)
      results.filter(_.isFailure).foreach(f => assert(f.failed.get.asInstanceOf[io.sparklance.util.LanceException].errorClass == "LANCE_REF_ALREADY_EXISTS"))
      val winner = results.find(_.isSuccess).get.get
      assert(pylance(t).tags("race")._2 == winner.version)
    } finally pool.shutdown()
  }

  // ---- branches --------------------------------------------------------------------------

  /** The parts of two branches' first manifests that must agree (all but the branch name, times and transaction file). */
  private def sameClone(t: String, ours: String, theirs: String): Unit = {
    val (a, b) = (manifestOf(s"$t/tree/$ours"), manifestOf(s"$t/tree/$theirs"))
    assert(a.version == b.version)
    assert(a.branch.contains(ours) && b.branch.contains(theirs))
    assert(a.basePaths.sortBy(_.id) == b.basePaths.sortBy(_.id))
    assert(a.fragments.map(comparable) == b.fragments.map(comparable))
    assert(a.indices.map(i => (i.uuid, i.baseId, i.fragments, i.datasetVersion)) == b.indices.map(i => (i.uuid, i.baseId, i.fragments, i.datasetVersion)))
    assert((a.readerFeatureFlags, a.writerFeatureFlags) == ((b.readerFeatureFlags, b.writerFeatureFlags)))
    assert(a.schema == b.schema && a.config == b.config && a.maxFragmentId == b.maxFragmentId)
    assert(a.nextRowId == b.nextRowId && a.dataFormat == b.dataFormat)
    (transactionOf(s"$t/tree/$ours", a), transactionOf(s"$t/tree/$theirs", b)) match {
      case (x, y) =>
        assert(x.readVersion == y.readVersion && x.readVersion == a.version)
        (x.operation, y.operation) match {
          case (p: Operation.Clone, q: Operation.Clone) =>
            assert(p.copy(branch = None) == q.copy(branch = None) && p.branch.contains(ours) && q.branch.contains(theirs))
          case other => fail(s"expected two Clones, got $other")
        }
    }
    assert(jsonKeys(Refs.branchPath(t, ours)) == jsonKeys(Refs.branchPath(t, theirs)))
    assert(masked(Refs.branchPath(t, ours)) == masked(Refs.branchPath(t, theirs)), "byte for byte as pylance writes it, but for time and uuids")
    val (ja, jb) = (refJson(t, ours), refJson(t, theirs))
    assert(ja("parentBranch") == jb("parentBranch") && ja("parentVersion") == jb("parentVersion") && ja("manifestSize") == jb("manifestSize"))
    def lineage(j: Map[String, Any]) = j("identifier").asInstanceOf[Map[String, Any]]("version_mapping").asInstanceOf[Vector[Vector[Any]]]
    assert(lineage(ja).map(_.head) == lineage(jb).map(_.head) && lineage(ja).init == lineage(jb).init, "the parent's lineage, then the version")
  }

  /** A value with its byte arrays (inline row ids, version stamps) compared by content. */
  private def comparable(x: Any): Any = x match {
    case a: Array[_] => a.toSeq
    case p: Product => (p.productPrefix, p.productIterator.map(comparable).toList)
    case xs: Iterable[_] => xs.map(comparable).toList
    case other => other
  }

  private def refJson(t: String, branch: String): Map[String, Any] =
    Json.parse(new String(Files.readAllBytes(new File(Refs.branchPath(t, branch)).toPath), "UTF-8")).asInstanceOf[Map[String, Any]]

  test("a branch we create is the branch pylance would have created (deletions, an index, nested), and reads as pylance reads it") {
    val t = twoVersions()
    py("""import sys, lance
         |ds = lance.dataset(sys.argv[1])
         |ds.delete("id = 4")
         |ds.create_scalar_index("id", "BTREE")
         |print("{}")""".stripMargin, t) // version 3: a deletion file; version 4: an index
    assert(call(s"create_branch(table => '$t', branch => 'dev', version => 4)") == Seq(Row("dev", 4L, null)))
    py("""import sys, lance; lance.dataset(sys.argv[1]).create_branch("pdev", 4); print("{}")""", t)
    sameClone(t, "dev", "pdev")
    val ours = manifestOf(s"$t/tree/dev")
    assert(ours.fragments.flatMap(_.files).forall(_.baseId.contains(0)) && ours.fragments.exists(_.deletionFile.exists(_.baseId.contains(0))))
    assert(ours.indices.nonEmpty && ours.indices.forall(_.baseId.contains(0)))
    assert(ours.basePaths.map(b => (b.id, b.name, b.isDatasetRoot, b.path)) == Seq((0, None, true, t)))

    // Nested: both from version 5 of dev, which has files of its own.
    spark.range(100, 103).write.format("lance").option("branch", "dev").mode("append").save(t)
    assert(call(s"create_branch(table => '$t', branch => 'dev/feature', from_branch => 'dev')") == Seq(Row("dev/feature", 5L, "dev")))
    py("""import sys, lance; lance.dataset(sys.argv[1]).create_branch("dev/pfeature", ("dev", 5)); print("{}")""", t)
    sameClone(t, "dev/feature", "dev/pfeature")

    val seen = pylance(t, "branch:dev:", "branch:pdev:", "branch:dev/feature:", "branch:dev/pfeature:", "main::")
    assert(seen.branches == Map("dev" -> (None, 4L), "pdev" -> (None, 4L), "dev/feature" -> (Some("dev"), 5L),
      "dev/pfeature" -> (Some("dev"), 5L)))
    assert(seen.reads("branch:dev:") == ((5L, (0L until 10L).filterNot(_ == 4L) ++ (100L until 103L))))
    assert(seen.reads("branch:pdev:") == ((4L, (0L until 10L).filterNot(_ == 4L))))
    assert(seen.reads("branch:dev/feature:") == seen.reads("branch:dev:") && seen.reads("branch:dev/pfeature:") == seen.reads("branch:dev:"))
    assert(seen.reads("main::") == ((4L, (0L until 10L).filterNot(_ == 4L))))
    // pylance answers a filter on the branch through the index it inherited (base 0).
    val filtered = py("""import sys, json, lance
         |d = lance.dataset(sys.argv[1]).checkout_version(("dev/feature", None))
         |plan = d.scanner(filter="id = 7").explain_plan()
         |print(json.dumps({"ids": d.to_table(filter="id = 7 or id = 101")["id"].to_pylist(), "indexed": "ScalarIndexQuery" in plan}))""".stripMargin, t)
    assert(filtered("ids") == Vector(BigDecimal(7), BigDecimal(101)) && filtered("indexed") == true, filtered)
  }

  test("a branch of a table with stable row ids is pylance's branch too; its appends continue the row ids") {
    val t = newTable()
    spark.range(4).write.format("lance").option("enableStableRowIds", "true").save(t)
    call(s"create_branch(table => '$t', branch => 'dev')")
    py("""import sys, lance; lance.dataset(sys.argv[1]).create_branch("pdev", 1); print("{}")""", t)
    sameClone(t, "dev", "pdev")
    spark.range(10, 12).write.format("lance").option("branch", "dev").mode("append").save(t)
    val ids = py("""import sys, json, lance
         |d = lance.dataset(sys.argv[1]).checkout_version(("dev", None))
         |t = d.to_table(columns=["id"], with_row_id=True).sort_by("id")
         |print(json.dumps({"ids": t["id"].to_pylist(), "rowids": t["_rowid"].to_pylist()}))""".stripMargin, t)
    assert(ids("ids") == Vector(0, 1, 2, 3, 10, 11).map(BigDecimal(_)) && ids("rowids") == (0 until 6).map(BigDecimal(_)).toVector, ids)
  }

  test("appends and overwrites on a branch, by path: the branch's own files and versions, the main line untouched") {
    val t = twoVersions()
    call(s"create_branch(table => '$t', branch => 'dev', version => 1)")
    val mainFiles = new File(s"$t/data").list().toSet
    spark.range(100, 103).write.format("lance").option("branch", "dev").mode("append").save(t)
    assert(new File(s"$t/data").list().toSet == mainFiles, "the main line's data/ is untouched")
    val devFiles = new File(s"$t/tree/dev/data").list().toSet
    assert(manifestOf(s"$t/tree/dev").fragments.filter(_.id >= 2).flatMap(_.files).map(f => (f.path, f.baseId)).toSet ==
      devFiles.map(_ -> None), "new data files go to the branch's data/, with no base id")
    assert(idsOf(t, "branch" -> "dev") == ((0L until 5L) ++ (100L until 103L)))
    // A nested branch from it, and a tag on the branch.
    assert(call(s"create_branch(table => '$t', branch => 'dev/feature', from_branch => 'dev')") == Seq(Row("dev/feature", 2L, "dev")))
    assert(new File(s"$t/_refs/branches/dev%2Ffeature.json").isFile)
    val nested = manifestOf(s"$t/tree/dev/feature")
    assert(nested.basePaths.map(b => (b.id, b.name, b.isDatasetRoot, b.path)).toSet ==
      Set((0, None, true, t), (1, Some("dev"), true, s"$t/tree/dev")))
    // The main line's files keep base 0; dev's own files (no base id on dev) are base 1 on the nested branch.
    val dev = manifestOf(s"$t/tree/dev")
    assert(nested.fragments.map(_.files.head.baseId) == dev.fragments.map(_.files.head.baseId.orElse(Some(1))))
    assert(nested.fragments.map(_.files.head.baseId).distinct == Seq(Some(0), Some(1)))
    spark.range(200, 202).write.format("lance").option("branch", "dev/feature").mode("overwrite").save(t)
    spark.range(300, 301).write.format("lance").option("branch", "dev/feature").mode("append").save(t)
    assert(call(s"create_tag(table => '$t', tag => 'dev_head', branch => 'dev')") == Seq(Row("dev_head", 2L, "dev")))

    // A branch from a tag on a branch: the tag's branch and version.
    assert(call(s"create_branch(table => '$t', branch => 'from_tag', tag => 'dev_head')") == Seq(Row("from_tag", 2L, "dev")))
    assert(pylance(t, "branch:from_tag:").reads("branch:from_tag:") == ((2L, (0L until 5L) ++ (100L until 103L))))
    call(s"delete_branch(table => '$t', branch => 'from_tag')")
    val seen = pylance(t, "branch:dev:1", "branch:dev:", "branch:dev/feature:2", "branch:dev/feature:3", "branch:dev/feature:",
      "tag:dev_head:", "main::")
    assert(seen.branches == Map("dev" -> (None, 1L), "dev/feature" -> (Some("dev"), 2L)))
    assert(seen.tags("dev_head")._1.contains("dev") && seen.tags("dev_head")._2 == 2L)
    assert(seen.reads("branch:dev:1") == ((1L, 0L until 5L)))
    assert(seen.reads("branch:dev:") == ((2L, (0L until 5L) ++ (100L until 103L))))
    assert(seen.reads("branch:dev/feature:2") == seen.reads("branch:dev:"))
    assert(seen.reads("branch:dev/feature:3") == ((3L, 200L until 202L)))
    assert(seen.reads("branch:dev/feature:") == ((4L, Seq(200L, 201L, 300L))))
    assert(seen.reads("tag:dev_head:") == seen.reads("branch:dev:"))
    assert(seen.reads("main::") == ((2L, 0L until 10L)))
    assert(idsOf(t, "branch" -> "dev/feature") == Seq(200L, 201L, 300L))

    // Deleting: the nested branch first (dev is its base), then the tag on dev, then dev.
    assert(lanceError(call(s"delete_branch(table => '$t', branch => 'dev')")).errorClass == "LANCE_REF_IN_USE")
    assert(call(s"delete_branch(table => '$t', branch => 'dev/feature')") == Seq(Row("dev/feature", 2L, "dev")))
    assert(!new File(s"$t/tree/dev/feature").exists() && new File(s"$t/tree/dev/_versions").isDirectory)
    val tagged = lanceError(call(s"delete_branch(table => '$t', branch => 'dev')"))
    assert(tagged.errorClass == "LANCE_REF_IN_USE" && tagged.getMessage.contains("dev_head"), tagged)
    call(s"delete_tag(table => '$t', tag => 'dev_head')")
    call(s"delete_branch(table => '$t', branch => 'dev')")
    assert(!new File(s"$t/tree").listFiles().exists(_.getName == "dev"))
    assert(pylance(t).branches.isEmpty)
    // Writing to the deleted branch is refused, and writes nothing.
    val before = folder(t)
    val e = lanceError(spark.range(1).write.format("lance").option("branch", "dev").mode("append").save(t))
    assert(e.errorClass == "LANCE_REF_NOT_FOUND" && e.getMessage.contains("'dev'"), e)
    assert(folder(t) == before)
  }

  test("INSERT, DELETE, UPDATE and MERGE on t.branch_dev commit on the branch, as pylance reads it") {
    spark.sql("CREATE TABLE s (id BIGINT NOT NULL, name STRING) USING lance")
    spark.sql("INSERT INTO s VALUES (1, 'a'), (2, 'b'), (3, 'c'), (7, 'g')")
    val t = location("s")
    // A deletion file on the main line, which the branch inherits (base 0) and its DELETE extends.
    py("""import sys, lance; lance.dataset(sys.argv[1]).delete("id = 7"); print("{}")""", t)
    val mainV = snapshot("s").version
    assert(call(s"create_branch(table => 'default.s', branch => 'dev')") == Seq(Row("dev", mainV, null)))
    spark.sql("INSERT INTO s.`branch_dev` VALUES (4, 'd'), (5, 'e')")
    spark.sql("DELETE FROM s.`branch_dev` WHERE id = 1")
    spark.sql("UPDATE s.`branch_dev` SET name = 'B' WHERE id = 2")
    spark.sql("CREATE OR REPLACE TEMP VIEW src AS SELECT * FROM VALUES (3L, 'C'), (6L, 'f') AS v(id, name)")
    spark.sql("MERGE INTO s.`branch_dev` t USING src ON t.id = src.id WHEN MATCHED THEN UPDATE SET name = src.name " +
      "WHEN NOT MATCHED THEN INSERT *")
    assert(rows("SELECT id, name FROM s.`branch_dev` ORDER BY id") ==
      Seq(Row(2L, "B"), Row(3L, "C"), Row(4L, "d"), Row(5L, "e"), Row(6L, "f")))
    assert(rows("SELECT id FROM s ORDER BY id") == Seq(Row(1L), Row(2L), Row(3L)), "the main line is untouched")
    val v = mainV
    val seen = pylance(t, s"branch:dev:$v", s"branch:dev:${v + 1}", s"branch:dev:${v + 2}", s"branch:dev:${v + 3}",
      s"branch:dev:${v + 4}", "main::")
    assert(seen.reads(s"branch:dev:$v")._2 == Seq(1L, 2L, 3L))
    assert(seen.reads(s"branch:dev:${v + 1}")._2 == Seq(1L, 2L, 3L, 4L, 5L))
    assert(seen.reads(s"branch:dev:${v + 2}")._2 == Seq(2L, 3L, 4L, 5L))
    assert(seen.reads(s"branch:dev:${v + 3}")._2 == Seq(2L, 3L, 4L, 5L))
    assert(seen.reads(s"branch:dev:${v + 4}")._2 == Seq(2L, 3L, 4L, 5L, 6L))
    assert(seen.reads("main::") == ((mainV, Seq(1L, 2L, 3L))))
    val names = py(
      """import sys, json, lance
        |d = lance.dataset(sys.argv[1]).checkout_version(("dev", None))
        |t = d.to_table().sort_by("id")
        |print(json.dumps({"names": t["name"].to_pylist()}))""".stripMargin, t)
    assert(names("names") == Vector("B", "C", "d", "e", "f"))
    // Every new file of the branch is under tree/dev.
    assert(new File(s"$t/data").listFiles().length == snapshot("s").manifest.fragments.length)
    assert(new File(s"$t/_deletions").listFiles().length == 1)
    assert(new File(s"$t/tree/dev/_deletions").listFiles().nonEmpty)

    // A table named as its branch makes the branch the default one.
    assert(rows("CALL spark_catalog.system.create_tag(table => 'default.s.`branch_dev`', tag => 'dev_now')") ==
      Seq(Row("dev_now", v + 4, "dev")))
    assert(rows("CALL spark_catalog.system.create_branch(table => 'default.s.`branch_dev`', branch => 'dev2')") ==
      Seq(Row("dev2", v + 4, "dev")))
    val again = pylance(t, "tag:dev_now:", "branch:dev2:")
    assert(again.reads("tag:dev_now:") == ((v + 4, Seq(2L, 3L, 4L, 5L, 6L))) && again.reads("branch:dev2:") == again.reads("tag:dev_now:"))
    assert(again.branches("dev2") == ((Some("dev"), v + 4)))

    // SQL on a branch that does not exist, or was deleted: named, and nothing written.
    call(s"delete_branch(table => 'default.s', branch => 'dev2')")
    val before = folder(t)
    Seq("INSERT INTO s.`branch_dev2` VALUES (8, 'h')", "INSERT INTO s.`branch_nope` VALUES (8, 'h')",
      "DELETE FROM s.`branch_dev2` WHERE id = 2").foreach { sql =>
      val e = lanceError(spark.sql(sql))
      assert(e.errorClass == "LANCE_REF_NOT_FOUND", s"$sql: $e")
    }
    assert(folder(t) == before)
  }

  test("INSERT OVERWRITE and DataFrameWriterV2 on t.branch_dev replace and append on the branch only") {
    spark.sql("CREATE TABLE o (id BIGINT NOT NULL, name STRING) USING lance")
    spark.sql("INSERT INTO o VALUES (1, 'a'), (2, 'b')")
    val t = location("o")
    val v = snapshot("o").version
    call(s"create_branch(table => 'default.o', branch => 'dev')")
    spark.sql("INSERT OVERWRITE o.`branch_dev` SELECT 9L, 'z'")
    spark.range(3).selectExpr("id + 10 AS id", "'w' AS name").writeTo("o.`branch_dev`").append()
    val seen = pylance(t, s"branch:dev:$v", s"branch:dev:${v + 1}", "branch:dev:", "main::")
    assert(seen.reads(s"branch:dev:$v")._2 == Seq(1L, 2L))
    assert(seen.reads(s"branch:dev:${v + 1}")._2 == Seq(9L))
    assert(seen.reads("branch:dev:") == ((v + 2, Seq(9L, 10L, 11L, 12L))))
    assert(seen.reads("main::") == ((v, Seq(1L, 2L))))
    // The overwritten branch keeps its base path and its name (pylance 14 reads it as the branch).
    val m = manifestOf(s"$t/tree/dev")
    assert(m.branch.contains("dev") && m.basePaths.map(_.id) == Seq(0))
    // TRUNCATE empties the branch only.
    spark.sql("TRUNCATE TABLE o.`branch_dev`")
    val after = pylance(t, "branch:dev:", "main::")
    assert(after.reads("branch:dev:") == ((v + 3, Nil)) && after.reads("main::") == ((v, Seq(1L, 2L))))
  }

  test("two writers creating one branch: exactly one wins, the loser leaves no file behind") {
    val t = twoVersions()
    val pool = java.util.concurrent.Executors.newFixedThreadPool(4)
    try {
      val results = (1 to 4).map(_ => pool.submit(() => scala.util.Try(RefWrites.createBranch(store, t, "race", None, Some(1L), None))))
        .map(_.get())
      assert(results.count(_.isSuccess) == 1, results)
      results.filter(_.isFailure).foreach(f => assert(f.failed.get.asInstanceOf[io.sparklance.util.LanceException].errorClass == "LANCE_REF_ALREADY_EXISTS"))
      assert(new File(s"$t/tree/race/_transactions").list().length == 1)
      assert(new File(s"$t/tree/race/_versions").list().count(_.endsWith(".manifest")) == 1)
      assert(pylance(t, "branch:race:").reads("branch:race:") == ((1L, 0L until 5L)))
    } finally pool.shutdown()
  }

  // ---- made by pylance, continued by us --------------------------------------------------

  test("a branch and a tag pylance made: we append to the branch, move and delete the tag, delete the branch") {
    val t = twoVersions()
    py("""import sys, lance
         |ds = lance.dataset(sys.argv[1])
         |b = ds.create_branch("exp", 1)
         |ds.tags.create("pt", 2)
         |print("{}")""".stripMargin, t)
    spark.range(50, 52).write.format("lance").option("branch", "exp").mode("append").save(t)
    var seen = pylance(t, "branch:exp:", "tag:pt:")
    assert(seen.reads("branch:exp:") == ((2L, (0L until 5L) ++ Seq(50L, 51L))))
    assert(call(s"create_tag(table => '$t', tag => 'pt', branch => 'exp', replace => true)") == Seq(Row("pt", 2L, "exp")))
    seen = pylance(t, "tag:pt:")
    assert(seen.tags("pt")._1.contains("exp") && seen.reads("tag:pt:") == ((2L, (0L until 5L) ++ Seq(50L, 51L))))
    // pylance appends again to the branch we wrote; we read it.
    py("""import sys, lance, pyarrow as pa
         |lance.write_dataset(pa.table({"id": pa.array([60], pa.int64())}), sys.argv[1] + "/tree/exp", mode="append")
         |print("{}")""".stripMargin, t)
    assert(idsOf(t, "branch" -> "exp") == (0L until 5L) ++ Seq(50L, 51L, 60L))
    call(s"delete_tag(table => '$t', tag => 'pt')")
    assert(call(s"delete_branch(table => '$t', branch => 'exp')") == Seq(Row("exp", 1L, null)))
    seen = pylance(t)
    assert(seen.tags.isEmpty && seen.branches.isEmpty && !new File(s"$t/tree/exp").exists())
  }

  // ---- bad input -------------------------------------------------------------------------

  test("bad input: a clear error class and nothing changed") {
    val t = twoVersions()
    call(s"create_tag(table => '$t', tag => 'taken', version => 1)")
    call(s"create_branch(table => '$t', branch => 'dev', version => 1)")
    call(s"create_branch(table => '$t', branch => 'dev/child', from_branch => 'dev')")
    call(s"create_branch(table => '$t', branch => 'tagged', version => 2)")
    call(s"create_tag(table => '$t', tag => 'on_tagged', branch => 'tagged')")
    val cases = Seq(
      s"create_tag(table => '$t', tag => 'new', branch => 'dev', version => 2)" -> "LANCE_VERSION_NOT_FOUND",
      s"create_tag(table => '$t', tag => 'new', branch => 'bad//name')" -> "LANCE_INVALID_ARGUMENT",
      s"delete_branch(table => '$t', branch => 'dev')" -> "LANCE_REF_IN_USE",
      s"delete_branch(table => '$t', branch => 'tagged')" -> "LANCE_REF_IN_USE",
      s"delete_branch(table => '$t', branch => 'main')" -> "LANCE_INVALID_ARGUMENT",
      s"create_tag(table => '$t', tag => 'taken', version => 2)" -> "LANCE_REF_ALREADY_EXISTS",
      s"create_tag(table => '$t', tag => 'new', version => 9)" -> "LANCE_VERSION_NOT_FOUND",
      s"create_tag(table => '$t', tag => 'new', branch => 'nope')" -> "LANCE_REF_NOT_FOUND",
      s"create_tag(table => '$t', tag => 'bad/name')" -> "LANCE_INVALID_ARGUMENT",
      s"create_tag(table => '$t', tag => '..x')" -> "LANCE_INVALID_ARGUMENT",
      s"delete_tag(table => '$t', tag => 'nope')" -> "LANCE_REF_NOT_FOUND",
      s"create_branch(table => '$t', branch => 'dev')" -> "LANCE_REF_ALREADY_EXISTS",
      s"create_branch(table => '$t', branch => 'main')" -> "LANCE_INVALID_ARGUMENT",
      s"create_branch(table => '$t', branch => 'a//b')" -> "LANCE_INVALID_ARGUMENT",
      s"create_branch(table => '$t', branch => '../up')" -> "LANCE_INVALID_ARGUMENT",
      s"create_branch(table => '$t', branch => 'x', version => 7)" -> "LANCE_VERSION_NOT_FOUND",
      s"create_branch(table => '$t', branch => 'x', tag => 'nope')" -> "LANCE_REF_NOT_FOUND",
      s"create_branch(table => '$t', branch => 'x', tag => 'taken', version => 1)" -> "LANCE_INVALID_ARGUMENT",
      s"create_branch(table => '$t', branch => 'x', from_branch => 'nope')" -> "LANCE_REF_NOT_FOUND",
      s"delete_branch(table => '$t', branch => 'nope')" -> "LANCE_REF_NOT_FOUND")
    cases.foreach { case (sql, errorClass) =>
      val before = folder(t)
      val e = lanceError(call(sql))
      assert(e.errorClass == errorClass, s"$sql: $e")
      assert(folder(t) == before, sql)
    }
    // A write naming a branch that does not exist creates nothing.
    val before = folder(t)
    assert(lanceError(spark.range(1).write.format("lance").option("branch", "nope").mode("append").save(t)).errorClass == "LANCE_REF_NOT_FOUND")
    assert(lanceError(spark.range(1).write.format("lance").option("branch", "nope").mode("overwrite").save(t)).errorClass == "LANCE_REF_NOT_FOUND")
    assert(folder(t) == before)
    val seen = pylance(t)
    assert(seen.tags.keySet == Set("taken", "on_tagged") && seen.branches.keySet == Set("dev", "dev/child", "tagged"))
  }

  test("a branch nested by name but based elsewhere survives its namesake's deletion; the name can be used again") {
    val t = twoVersions()
    call(s"create_branch(table => '$t', branch => 'a', version => 1)")
    call(s"create_branch(table => '$t', branch => 'a/b', version => 2)") // based on the main line, folder inside a's
    spark.range(40, 41).write.format("lance").option("branch", "a").mode("append").save(t)
    assert(call(s"delete_branch(table => '$t', branch => 'a')") == Seq(Row("a", 1L, null)))
    assert(!new File(s"$t/tree/a/_versions").exists() && new File(s"$t/tree/a/b/_versions").isDirectory)
    assert(lanceError(idsOf(t, "branch" -> "a")).errorClass == "LANCE_REF_NOT_FOUND")
    call(s"create_branch(table => '$t', branch => 'a', version => 2)")
    val seen = pylance(t, "branch:a:", "branch:a/b:")
    assert(seen.branches == Map("a" -> (None, 2L), "a/b" -> (None, 2L)))
    assert(seen.reads("branch:a:") == ((2L, 0L until 10L)) && seen.reads("branch:a/b:") == ((2L, 0L until 10L)))
  }

  test("a branch whose creation stopped before its ref file: its name is refused until delete_branch removes the folder") {
    val t = twoVersions()
    // The first step of a creation alone, as a crash right after it leaves it.
    new io.sparklance.table.commit.TableCommitter(store, s"$t/tree/half").commitClone(Snapshot.open(store, t, Some(1L)),
      Operation.Clone(shallow = true, 1L, t, Some("half")))
    assert(pylance(t).branches.isEmpty, "no listing shows it")
    val before = folder(t)
    val e = lanceError(call(s"create_branch(table => '$t', branch => 'half')"))
    assert(e.errorClass == "LANCE_REF_ALREADY_EXISTS" && e.getMessage.contains("delete_branch"), e)
    assert(folder(t) == before)
    assert(call(s"delete_branch(table => '$t', branch => 'half')") == Seq(Row("half", 1L, null)))
    assert(!new File(s"$t/tree/half").exists())
    assert(call(s"create_branch(table => '$t', branch => 'half')") == Seq(Row("half", 2L, null)))
    assert(pylance(t, "branch:half:").reads("branch:half:") == ((2L, 0L until 10L)))
  }

  test("the folder a deleted branch leaves goes as Lance removes it") {
    assert(RefWrites.folderToRemove("dev", Nil).contains(Seq("dev")))
    assert(RefWrites.folderToRemove("a/b/c", Nil).contains(Seq("a")))
    assert(RefWrites.folderToRemove("a/b/c", Seq("a")).contains(Seq("a", "b")))
    assert(RefWrites.folderToRemove("a/b/c", Seq("a/b/d")).contains(Seq("a", "b", "c")))
    assert(RefWrites.folderToRemove("a/b", Seq("a/b/c")).isEmpty)
    assert(RefWrites.folderToRemove("x", Seq("a/b")).contains(Seq("x")))
    assert(Refs.branchNameProblem("dev/feature").isEmpty)
  }
}
