package io.sparklance.spark.procedures

import java.io.File
import java.nio.file.Files
import java.nio.file.attribute.FileTime

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.table.maintenance.{Cleanup, CleanupPolicy}
import io.sparklance.testutil.{CatalogTables, CountingStore, ForwardingStore, PylanceScript}

/**
 * `CALL system.cleanup` judged by pylance: every kept version and tag reads the same rows
 * before and after (by us and by pylance), every removed file was named by no kept version
 * (reachability computed by pylance, independently), a dry run removes nothing, bad input
 * changes nothing, pylance continues a table we cleaned and we clean a table pylance wrote.
 */
class CleanupSuite extends AnyFunSuite with CatalogTables {

  // pylance: for each version given, its sorted ids and the data/deletion files it names.
  private val PylanceView =
    """import sys, json, lance
      |uri = sys.argv[1]
      |out = {}
      |for v in sys.argv[2:]:
      |    d = lance.dataset(uri, version=int(v))
      |    files = []
      |    for f in d.get_fragments():
      |        files += ["data/" + df.path for df in f.data_files()]
      |        if f.deletion_file() is not None:
      |            files.append(f.deletion_file())
      |    out[v] = [sorted(d.to_table(columns=["id"])["id"].to_pylist()), files]
      |print(json.dumps({"versions": out, "all": [x["version"] for x in lance.dataset(uri).versions()]}))
      |""".stripMargin

  private def num(x: Any): Long = x.asInstanceOf[BigDecimal].toLongExact

  /** pylance's rows and files of each version, and the versions it lists. */
  private def pylance(uri: String, versions: Seq[Long]): (Map[Long, (Seq[Long], Seq[String])], Seq[Long]) = {
    val m = PylanceScript.run(PylanceView, (uri +: versions.map(_.toString)): _*)
    val vs = m("versions").asInstanceOf[Map[String, Vector[Any]]].map { case (k, v) =>
      k.toLong -> (v(0).asInstanceOf[Vector[Any]].map(num), v(1).asInstanceOf[Vector[Any]].map(_.toString))
    }
    (vs, m("all").asInstanceOf[Vector[Any]].map(num))
  }

  private def call(sql: String): Seq[Row] = spark.sql(s"CALL lance.system.$sql").collect().toSeq

  private def idsOf(path: String, version: Long): Seq[Long] =
    spark.read.format("lance").option("version", version.toString).load(path).select("id").collect().map(_.getLong(0)).toSeq.sorted

  private def folder(dir: String): Map[String, Int] =
    Files.walk(new File(dir).toPath).iterator().asScala.filter(Files.isRegularFile(_))
      .map(p => p.toString -> java.util.Arrays.hashCode(Files.readAllBytes(p))).toMap

  /** Versions 1..6: create, two appends, an overwrite, an append (ours), a delete (pylance's, a deletion file). */
  private def history(): String = {
    val path = Files.createTempDirectory("cleanup").resolve("t").toString
    spark.range(5).write.format("lance").save(path)
    spark.range(5, 10).write.format("lance").mode("append").save(path)
    spark.range(10, 15).write.format("lance").mode("append").save(path)
    spark.range(100, 104).write.format("lance").mode("overwrite").save(path)
    spark.range(104, 108).write.format("lance").mode("append").save(path)
    PylanceScript.run("import sys, json, lance\nlance.dataset(sys.argv[1]).delete('id = 101')\nprint(json.dumps({}))", path)
    path
  }

  test("cleanup keeps the latest and tagged versions, reads them identically, removes only unreachable files") {
    val t = history()
    call(s"create_tag(table => '$t', tag => 'keep', version => 2)")
    val versions = (1L to 6L)
    val before = versions.map(v => v -> idsOf(t, v)).toMap
    val (py, _) = pylance(t, versions)
    versions.foreach(v => assert(py(v)._1 == before(v), s"version $v"))
    val snapshot = folder(t)

    val dry = call(s"cleanup(table => '$t', older_than => '0 seconds', dry_run => true, override => true)").head
    assert(folder(t) == snapshot, "a dry run removes nothing")
    assert(dry.getLong(0) == 4L && dry.getBoolean(3))
    val listed = dry.getSeq[Row](4).map(r => (r.getString(0), r.getString(1), r.getLong(2)))
    assert(listed.length == dry.getLong(1) && listed.map(_._3).sum == dry.getLong(2))

    val r = call(s"cleanup(table => '$t', older_than => '0 seconds', override => true)").head
    assert((r.getLong(0), r.getLong(1), r.getLong(2)) == (dry.getLong(0), dry.getLong(1), dry.getLong(2)))
    assert(r.isNullAt(4))
    val removed = snapshot.keySet -- folder(t).keySet
    assert(removed.map(p => new File(p).getName) == listed.map(l => new File(l._1).getName).toSet)
    // Reachable (by pylance, before cleanup): the files versions 2 (tagged) and 6 (latest) name.
    val reachable = Seq(2L, 6L).flatMap(v => py(v)._2).map(p => new File(p).getName).toSet
    assert(removed.forall(p => !reachable(new File(p).getName)), removed)
    assert(removed.exists(_.endsWith(".lance")) && removed.exists(_.endsWith(".manifest")) && removed.exists(_.endsWith(".txn")))
    // Every file the removed versions named and the kept ones do not is gone.
    val unreachable = Seq(1L, 3L, 4L, 5L).flatMap(v => py(v)._2).map(p => new File(p).getName).toSet -- reachable
    assert(unreachable.nonEmpty && unreachable.forall(n => !folder(t).keySet.exists(_.endsWith("/" + n))))

    val (after, all) = pylance(t, Seq(2L, 6L))
    assert(all == Seq(2L, 6L))
    Seq(2L, 6L).foreach { v => assert(idsOf(t, v) == before(v)); assert(after(v)._1 == before(v)) }
    // Nothing more to remove.
    assert(call(s"cleanup(table => '$t', older_than => '0 seconds', override => true)").head.getLong(1) == 0L)
  }

  test("retain_versions keeps the newest N; the retention floor keeps recent versions without override") {
    val t = history()
    val r0 = call(s"cleanup(table => '$t', retain_versions => 2)").head
    assert(r0.getLong(0) == 0L && r0.getLong(1) == 0L, "every version is inside the floor")
    val r = call(s"cleanup(table => '$t', retain_versions => 2, override => true)").head
    assert(r.getLong(0) == 4L)
    assert(pylance(t, Seq(5L, 6L))._2 == Seq(5L, 6L))
    assert(idsOf(t, 6L) == Seq(100L, 102L, 103L, 104L, 105L, 106L, 107L))
  }

  test("bad input is an error naming the problem, and changes nothing") {
    val t = history()
    val snapshot = folder(t)
    def err(args: String) = withClue(args)(lanceError(call(s"cleanup(table => '$t'$args)")))
    assert(err(", older_than => '1 day'").getMessage.contains("retention floor"))
    assert(err(", older_than => '2999-01-01 00:00:00', override => true").getMessage.contains("in the future"))
    assert(err(", older_than => 'yesterday-ish'").getMessage.contains("neither a duration"))
    assert(err(", retain_versions => 0").getMessage.contains("at least 1"))
    call(s"create_tag(table => '$t', tag => 'old', version => 1)")
    assert(err(", older_than => '0 seconds', override => true, error_if_tagged_old_versions => true").getMessage.contains("old"))
    assert(folder(t).keySet == snapshot.keySet + s"$t/_refs/tags/old.json")
  }

  test("files of a killed write: kept while younger than the floor, removed once older") {
    val t = history()
    val orphan = new File(s"$t/data/orphan-0000.lance")
    Files.write(orphan.toPath, Array[Byte](1, 2, 3))
    val temp = new File(s"$t/_versions/.7.manifest.abc.tmp")
    Files.write(temp.toPath, Array[Byte](1))
    call(s"cleanup(table => '$t', older_than => '30 days')")
    assert(orphan.exists() && temp.exists())
    val old = FileTime.fromMillis(System.currentTimeMillis() - 8L * 24 * 3600 * 1000)
    Files.setLastModifiedTime(orphan.toPath, old)
    Files.setLastModifiedTime(temp.toPath, old)
    val r = call(s"cleanup(table => '$t', older_than => '30 days')").head
    assert(!orphan.exists() && !temp.exists() && r.getLong(0) == 0L && r.getLong(1) == 2L && r.getLong(2) == 4L)
    assert(idsOf(t, 1L) == (0L until 5L))
  }

  test("storage calls: each folder listed once, each manifest read once") {
    val t = history()
    val store = new CountingStore(this.store)
    val r = Cleanup.run(store, t, None, CleanupPolicy(Some(java.time.Instant.now()), None, deleteUnverified = true), dryRun = true)
    assert(r.versionsRemoved == 5L)
    // _versions, _refs/tags, _refs/branches, _transactions, data, _deletions, _indices
    assert(store.listings == 7, store.listings)
    assert(store.bytesRead(".manifest") == new File(s"$t/_versions").listFiles().filter(_.getName.endsWith(".manifest")).map(_.length).sum)
    // The plan's own counts (what the procedure logs and the benchmark reports) are those calls.
    store.reset()
    val plan = Cleanup.plan(store, t, None, CleanupPolicy(Some(java.time.Instant.now()), None, deleteUnverified = true))
    assert(plan.foldersListed == store.listings && plan.manifestsRead == 6 && plan.bytesRead == store.bytesRead(".manifest"))
  }

  test("pylance's cleanup on a table we wrote, and ours on a table pylance wrote") {
    val t = history()
    PylanceScript.run(
      """import sys, json, lance
        |from datetime import timedelta
        |ds = lance.dataset(sys.argv[1])
        |s = ds.cleanup_old_versions(older_than=timedelta(0), delete_unverified=True)
        |print(json.dumps({"removed": s.old_versions}))
        |""".stripMargin, t)
    assert(idsOf(t, 6L) == Seq(100L, 102L, 103L, 104L, 105L, 106L, 107L))
    spark.range(200, 201).write.format("lance").mode("append").save(t)

    val p = Files.createTempDirectory("cleanup").resolve("p").toString
    PylanceScript.run(
      """import sys, json, lance, pyarrow as pa
        |p = sys.argv[1]
        |lance.write_dataset(pa.table({"id": pa.array(range(5), pa.int64())}), p)
        |lance.write_dataset(pa.table({"id": pa.array(range(5, 10), pa.int64())}), p, mode="overwrite")
        |ds = lance.dataset(p)
        |ds.delete("id = 7")
        |print(json.dumps({"v": lance.dataset(p).version}))
        |""".stripMargin, p)
    val r = call(s"cleanup(table => '$p', older_than => '0 seconds', override => true)").head
    assert(r.getLong(0) == 2L && r.getLong(1) >= 3L)
    val (after, all) = pylance(p, Seq(3L))
    assert(all == Seq(3L) && after(3L)._1 == Seq(5L, 6L, 8L, 9L))
  }

  test("lance.auto_cleanup.* config runs after commits every interval versions") {
    val t = Files.createTempDirectory("cleanup").resolve("a").toString
    PylanceScript.run(
      """import sys, json, lance, pyarrow as pa
        |p = sys.argv[1]
        |lance.write_dataset(pa.table({"id": pa.array(range(3), pa.int64())}), p)
        |ds = lance.dataset(p)
        |ds.update_config({"lance.auto_cleanup.interval": "3", "lance.auto_cleanup.older_than": "0s"})
        |print(json.dumps({"v": lance.dataset(p).version}))
        |""".stripMargin, t)
    spark.range(3, 4).write.format("lance").mode("append").save(t) // version 3: due
    val versions = new File(s"$t/_versions").listFiles().count(_.getName.endsWith(".manifest"))
    assert(versions == 1, s"$versions manifests left")
    assert(idsOf(t, 3L) == (0L until 4L))
    spark.range(4, 5).write.format("lance").mode("append").save(t) // version 4: not due
    assert(new File(s"$t/_versions").listFiles().count(_.getName.endsWith(".manifest")) == 2)
  }
  test("a branch keeps the version it was created from; the branch reads the same after the main line's cleanup") {
    val t = history()
    call(s"create_branch(table => '$t', branch => 'dev', version => 2)")
    spark.range(50, 52).write.format("lance").option("branch", "dev").mode("append").save(t)
    def devIds = spark.read.format("lance").option("branch", "dev").load(t).select("id").collect().map(_.getLong(0)).toSeq.sorted
    val before = devIds
    assert(before == (0L until 10L) ++ Seq(50L, 51L))
    val r = call(s"cleanup(table => '$t', older_than => '0 seconds', override => true)").head
    assert(r.getLong(0) == 4L) // 1, 3, 4, 5; 2 is the branch's origin
    assert(devIds == before && idsOf(t, 2L) == (0L until 10L))
    val m = PylanceScript.run(
      """import sys, json, lance
        |ds = lance.dataset(sys.argv[1])
        |d = ds.checkout_version(("dev", None))
        |print(json.dumps({"ids": sorted(d.to_table(columns=["id"])["id"].to_pylist()), "main": [v["version"] for v in ds.versions()]}))
        |""".stripMargin, t)
    assert(m("ids").asInstanceOf[Vector[Any]].map(num) == before)
    assert(m("main").asInstanceOf[Vector[Any]].map(num) == Seq(2L, 6L))
  }

  test("a reader scanning a kept old version while cleanup runs finishes with every row") {
    val t = history()
    call(s"create_tag(table => '$t', tag => 'keep', version => 3)")
    val rows = spark.read.format("lance").option("version", "3").load(t).select("id").toLocalIterator()
    val first = rows.next().getLong(0)
    call(s"cleanup(table => '$t', older_than => '0 seconds', override => true)")
    val rest = Iterator.continually(()).takeWhile(_ => rows.hasNext).map(_ => rows.next().getLong(0)).toSeq
    assert((first +: rest).sorted == (0L until 15L))
  }

  test("the deletions are Spark jobs described with the table and the phase: manifests first, then files") {
    val t = history()
    val seen = new java.util.concurrent.ConcurrentLinkedQueue[String]()
    val listener = new org.apache.spark.scheduler.SparkListener {
      override def onJobStart(e: org.apache.spark.scheduler.SparkListenerJobStart): Unit =
        Option(e.properties).flatMap(p => Option(p.getProperty("spark.job.description"))).foreach(seen.add(_))
    }
    val dry = call(s"cleanup(table => '$t', older_than => '0 seconds', dry_run => true, override => true)").head
    val manifests = dry.getSeq[Row](4).count(_.getString(1) == "manifest")
    val others = dry.getLong(1) - manifests
    assert(manifests == 5 && others > 0)
    spark.sparkContext.addSparkListener(listener)
    val expected = Seq(s"delete $manifests manifests of removed versions", s"delete $others files")
    def described = seen.asScala.toSeq.filter(d => d.startsWith("Lance cleanup") && d.contains(t))
    try {
      val r = call(s"cleanup(table => '$t', older_than => '0 seconds', override => true)").head
      assert(r.getLong(1) == dry.getLong(1))
      val until = System.nanoTime() + 10000000000L // listeners hear of jobs asynchronously
      while (described.length < 2 && System.nanoTime() < until) Thread.sleep(20)
    } finally spark.sparkContext.removeSparkListener(listener)
    assert(described.map(d => d.substring(d.lastIndexOf(": ") + 2)) == expected, seen.asScala.mkString("; "))
    assert(pylance(t, Seq(6L))._2 == Seq(6L))
  }

  /** A store whose deletion of the paths `failing` picks fails, and which finds `gone` already deleted. */
  private def breaking(failing: String => Boolean, gone: String => Boolean = _ => false) = new ForwardingStore(this.store) {
    override def delete(path: String): Boolean =
      if (failing(path)) throw new java.io.IOException("permission denied (test)")
      else if (gone(path)) { super.delete(path); super.delete(path) }
      else super.delete(path)
  }

  private def everything = CleanupPolicy(Some(java.time.Instant.now()), None, deleteUnverified = true)

  test("a failed delete: every other file is attempted, then an error names the failures; a file already gone is no failure") {
    val t = history()
    val plan = Cleanup.plan(this.store, t, None, everything)
    val data = plan.files.filter(_.kind == "data").map(_.path)
    assert(data.length >= 3)
    val e = intercept[io.sparklance.util.LanceException](
      Cleanup.run(breaking(data.take(2).toSet, _ == data(2)), t, None, everything, dryRun = false))
    assert(e.errorClass == "LANCE_IO_ERROR")
    assert(e.getMessage.contains(s"2 of ${plan.all.length} files could not be deleted (${plan.all.length - 2} were)"), e.getMessage)
    assert(data.take(2).forall(p => e.getMessage.contains(p)) && e.getMessage.contains("run cleanup again"))
    // Everything else went, the manifests first; the two failures remain, and a second run removes them.
    val left = folder(t).keySet
    assert(plan.all.map(_.path).filterNot(data.take(2).contains).forall(p => !left.exists(l => p.endsWith(l))))
    assert(data.take(2).forall(p => left.exists(l => p.endsWith(l))))
    assert(pylance(t, Seq(6L))._2 == Seq(6L) && idsOf(t, 6L) == Seq(100L, 102L, 103L, 104L, 105L, 106L, 107L))
    val again = Cleanup.run(this.store, t, None, everything, dryRun = false)
    assert(again.versionsRemoved == 0L && again.filesRemoved == 2L)

    // Only a file already gone: no error, counted as removed (it is), its bytes not.
    val t2 = history()
    val plan2 = Cleanup.plan(this.store, t2, None, everything)
    val d2 = plan2.files.filter(_.kind == "data").head
    val r = Cleanup.run(breaking(_ => false, _ == d2.path), t2, None, everything, dryRun = false)
    assert(r.filesRemoved == plan2.all.length && r.bytesRemoved == plan2.bytes - d2.bytes)
  }

  test("a manifest that cannot be deleted keeps its version whole: no other file is deleted") {
    val t = history()
    val plan = Cleanup.plan(this.store, t, None, everything)
    val stuck = plan.manifests(1).path // version 2's
    val before = folder(t).keySet
    val e = intercept[io.sparklance.util.LanceException](Cleanup.run(breaking(_ == stuck), t, None, everything, dryRun = false))
    assert(e.getMessage.contains(s"1 of ${plan.all.length} files could not be deleted") && e.getMessage.contains("still there"), e.getMessage)
    val removed = before -- folder(t).keySet
    assert(removed.size == plan.manifests.length - 1 && removed.forall(_.endsWith(".manifest")))
    val (after, all) = pylance(t, Seq(2L, 6L))
    assert(all == Seq(2L, 6L) && after(2L)._1 == (0L until 10L))
    assert(Cleanup.run(this.store, t, None, everything, dryRun = false).versionsRemoved == 1L)
    assert(pylance(t, Seq(6L))._2 == Seq(6L))
  }
}
