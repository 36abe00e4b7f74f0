package io.sparklance.storage.hadoop

import java.io.File
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.{CyclicBarrier, TimeUnit}

import scala.concurrent.duration._
import scala.concurrent.{Await, ExecutionContext, Future}
import scala.jdk.CollectionConverters._

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.FileVersion
import io.sparklance.storage.{ObjectStore, PutResult}
import io.sparklance.table.Snapshot
import io.sparklance.table.commit.{CommitRequest, NewTable, Operation, TableCommitter}
import io.sparklance.testutil.{CommitFixtures, ForwardingStore, PutRace, PylanceScript, S3FaultProxy, S3Server}
import io.sparklance.util.{BuildInfo, LanceException}

/**
 * Writes through [[HadoopObjectStore]] on S3 (s3a against a local SeaweedFS, started once for
 * the suite): streaming creates become visible only at close and not at all after an abort,
 * create-if-absent is one conditional PUT with one winner per race (which also shows that the
 * server honours `If-None-Match: *`), and s3a without conditional create is refused for commits.
 * On every Spark line: through S3A's conditional create where its Hadoop has it (4.1+), through
 * our own conditional PUT on S3A's client before (3.5, 4.0: S3aPutIfAbsent).
 */
class S3WriteSuite extends AnyFunSuite with BeforeAndAfterAll {

  private var server: S3Server = _
  private var store: ObjectStore = _
  private def root = s"s3://${server.bucket}/${getClass.getSimpleName}"

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    server = S3Server.start()
    store = new HadoopObjectStore(server.configuration())
  }

  override protected def afterAll(): Unit = try if (server != null) server.stop() finally super.afterAll()

  private def bytes(n: Int, seed: Int): Array[Byte] = Array.tabulate(n)(i => (i * 31 + seed).toByte)

  /** Whether this line's S3A lacks conditional create (Hadoop before 3.4.2), so that commits use our own conditional PUT. */
  private lazy val ownPut: Boolean = {
    val Array(major, minor, patch) = BuildInfo.hadoop.split('.').map(_.takeWhile(_.isDigit).toInt)
    Ordering[(Int, Int, Int)].lt((major, minor, patch), (3, 4, 2))
  }

  private def newTable(store: ObjectStore, table: String): Unit =
    new TableCommitter(store, table).commit(CommitRequest(None, Operation.Append(IndexedSeq(CommitFixtures.fragment(store, table, Seq(0L)))),
      newTable = Some(NewTable(CommitFixtures.schema, FileVersion.V2_2, stableRowIds = false))))

  /** The ids pylance reads at each of `versions` of the table at `table` on the server, sorted. */
  private def pylanceIds(table: String, versions: Int*): Map[Int, Seq[Long]] = {
    val read = PylanceScript.run(
      """import sys, json, lance
        |opts = json.loads(sys.argv[2])
        |print(json.dumps({v: sorted(lance.dataset(sys.argv[1], version=int(v), storage_options=opts).to_table().column("id").to_pylist())
        |                  for v in sys.argv[3:]}))""".stripMargin,
      Seq(table, server.pylanceOptionsJson) ++ versions.map(_.toString): _*)
    versions.map(v => v -> read(v.toString).asInstanceOf[Seq[Any]].map(_.asInstanceOf[BigDecimal].toLongExact)).toMap
  }

  test("a created object appears only at close, with the bytes written") {
    val path = s"$root/create/data/part-0.lance"
    val sink = store.create(path)
    val data = bytes(200000, 1)
    data.grouped(65536).foreach(sink.write)
    assert(sink.position == data.length)
    assert(!store.exists(path) && store.listRecursive(s"$root/create").isEmpty)
    sink.close()
    assert(store.readAll(path).sameElements(data))
    assert(store.readAll(path.replace("s3://", "s3a://")).sameElements(data))
  }

  test("an aborted upload leaves nothing behind") {
    val path = s"$root/abort/part-1.lance"
    val sink = store.create(path)
    sink.write(bytes(100000, 2))
    sink.abort()
    assert(!store.exists(path))
    assert(store.listRecursive(s"$root/abort").isEmpty)
  }

  test("putIfAbsent: Created once, then AlreadyExists with the object untouched") {
    val path = s"$root/put/_versions/1.manifest"
    assert(store.putIfAbsent(path, bytes(100, 1)) == PutResult.Created)
    assert(store.putIfAbsent(path, bytes(60, 2)) == PutResult.AlreadyExists)
    assert(store.putIfAbsent(path.replace("s3://", "s3a://"), bytes(60, 3)) == PutResult.AlreadyExists)
    assert(store.readAll(path).sameElements(bytes(100, 1)))
  }

  test("delete and listRecursive") {
    Seq("a" -> 1, "x/b" -> 2, "x/y/c" -> 3).foreach { case (rel, n) =>
      assert(store.putIfAbsent(s"$root/list/$rel", bytes(n, n)) == PutResult.Created)
    }
    assert(store.listRecursive(s"$root/list").map(e => e.name -> e.size).sorted == Seq("a" -> 1L, "b" -> 2L, "c" -> 3L))
    assert(store.listRecursive(s"$root/list/x/y").map(_.name) == Seq("c"))
    assert(store.listRecursive(s"$root/nothing-here").isEmpty)
    assert(store.delete(s"$root/list/x/b"))
    assert(!store.delete(s"$root/list/x/b"))
    assert(store.listRecursive(s"$root/list").map(_.name).sorted == Seq("a", "c"))
  }

  test("s3a commits where conditional create is on (the default), and is refused where it is off") {
    store.requireAtomicCreate(s"$root/table")
    store.requireAtomicCreate(s"s3a://${server.bucket}/table")
    // Through S3A's own conditional create from Hadoop 3.4.2 (Spark 4.1+), through ours before.
    val target = new org.apache.hadoop.fs.Path(s"s3a://${server.bucket}/table/_versions/1.manifest")
    val conf0 = server.configuration()
    val used = WriteProtocol.of(target.getFileSystem(conf0), target, conf0)
    assert(used.getClass.getSimpleName == (if (ownPut) "S3aPutIfAbsentWrites" else "ConditionalWrites"), s"${BuildInfo.hadoop}: $used")
    val conf = server.configuration()
    conf.set("fs.s3a.create.conditional.enabled", "false")
    conf.set("fs.s3a.impl.disable.cache", "true")
    val off = new HadoopObjectStore(conf)
    val e = intercept[LanceException](off.requireAtomicCreate(s"$root/off"))
    assert(e.errorClass == "LANCE_NO_ATOMIC_COMMIT" && e.getMessage.contains("fs.s3a.create.conditional.enabled"), e.getMessage)
    assert(intercept[LanceException](off.putIfAbsent(s"$root/off/_versions/1.manifest", bytes(3, 3))).errorClass == "LANCE_NO_ATOMIC_COMMIT")
    assert(!store.exists(s"$root/off/_versions/1.manifest"))
    // The same switch for one bucket.
    val bucketConf = server.configuration()
    bucketConf.set(s"fs.s3a.bucket.${server.bucket}.create.conditional.enabled", "false")
    bucketConf.set("fs.s3a.impl.disable.cache", "true")
    val offHere = new HadoopObjectStore(bucketConf)
    assert(intercept[LanceException](offHere.requireAtomicCreate(s"$root/off")).errorClass == "LANCE_NO_ATOMIC_COMMIT")
  }

  test("race: 8 threads x 20 rounds of putIfAbsent on one key, exactly one winner whose bytes the object holds") {
    val rounds = PutRace.run(store, threads = 8, rounds = 20,
      pathOf = r => s"$root/race/_versions/$r.manifest", bytesOf = t => bytes(2048 + t, t))
    rounds.foreach { r =>
      assert(r.created.size == 1 && r.alreadyExists == 7, s"${r.path}: winners ${r.created}")
      assert(r.content.sameElements(bytes(2048 + r.created.head, r.created.head)), r.path)
    }
  }

  test("two commits racing for version 2 on S3: one wins it, the other finds it taken, retries and lands at 3; pylance reads both") {
    val table = s"$root/commit-race"
    newTable(store, table)
    // Both writers have read version 1 and hold their first manifest PUT (version 2) until the
    // other has reached its own, so that the two conditional PUTs go out together.
    val barrier = new CyclicBarrier(2)
    def writer(first: Long): Future[(Long, Int)] = {
      val racing = new ForwardingStore(store) {
        @volatile private var held = false
        override def putIfAbsent(path: String, bytes: Array[Byte]): PutResult = {
          if (!held && path.endsWith(".manifest")) { held = true; barrier.await(60, TimeUnit.SECONDS) }
          super.putIfAbsent(path, bytes)
        }
      }
      val fragment = CommitFixtures.fragment(store, table, first until first + 3)
      Future {
        val out = new TableCommitter(racing, table).commit(CommitRequest(Some(1L), Operation.Append(IndexedSeq(fragment))))
        (out.version, out.attempts)
      }(ExecutionContext.global)
    }
    val (a, b) = (writer(100L), writer(200L))
    val outcomes = Seq(Await.result(a, 3.minutes), Await.result(b, 3.minutes))
    assert(outcomes.sorted == Seq((2L, 1), (3L, 2)), outcomes)
    assert(Snapshot.listVersions(store, table).map(_._1) == Seq(1L, 2L, 3L))
    val winner = if (outcomes.head._1 == 2L) 100L else 200L
    val loser = 300L - winner
    val ids = pylanceIds(table, 1, 2, 3)
    assert(ids(1) == Seq(0L))
    assert(ids(2) == Seq(0L) ++ (winner until winner + 3))
    assert(ids(3) == Seq(0L) ++ (100L until 103L) ++ (200L until 203L))
    assert(ids(3).count(i => i >= loser && i < loser + 3) == 3)
  }

  test("without hadoop-aws and the AWS SDK on the classpath, a local table still commits (S3 classes load only for s3a paths)") {
    val dir = Files.createTempDirectory("no-s3a").toFile
    try {
      val table = new File(dir, "t").getAbsolutePath
      val local = new HadoopObjectStore(new org.apache.hadoop.conf.Configuration())
      new TableCommitter(local, table).commit(CommitRequest(None, Operation.Append(IndexedSeq(CommitFixtures.fragment(local, table, Seq(0L)))),
        newTable = Some(NewTable(CommitFixtures.schema, FileVersion.V2_2, stableRowIds = false))))
      val classpath = System.getProperty("java.class.path").split(File.pathSeparator).toSeq
      val withoutS3 = classpath.filterNot(j => Seq("hadoop-aws", "software/amazon/awssdk", "com/amazonaws").exists(j.contains))
      assert(classpath.exists(_.contains("hadoop-aws")) && withoutS3.size < classpath.size)
      val jvm = ManagementFactory.getRuntimeMXBean.getInputArguments.asScala.filter(_.startsWith("--add-opens"))
      val p = new ProcessBuilder((Seq(new File(System.getProperty("java.home"), "bin/java").getPath) ++ jvm ++
        Seq("-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", withoutS3.mkString(File.pathSeparator),
          "io.sparklance.table.commit.CommitWorker", "append", table, "1", "1")): _*).redirectErrorStream(true).start()
      val out = new String(p.getInputStream.readAllBytes(), UTF_8)
      assert(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, out)
      assert(out.linesIterator.contains("committed 2 1000"), out)
      assert(CommitFixtures.pylanceRead(table).rows == CommitFixtures.expected(Seq(0L) ++ (1000L until 1010L)))
    } finally org.apache.commons.io.FileUtils.deleteQuietly(dir)
  }

  test("a manifest PUT whose answer is lost: sent again by the SDK, answered 412, settled by reading back: committed once") {
    val table = s"$root/lost-answer"
    newTable(store, table)
    val proxy = S3FaultProxy.start(server, S3FaultProxy.Rule("lose", """/_versions/[^/]+\.manifest$"""))
    try {
      val via = new HadoopObjectStore(proxy.configuration(server))
      val out = new TableCommitter(via, table).commit(CommitRequest(Some(1L), Operation.Append(IndexedSeq(CommitFixtures.fragment(via, table, 10L until 13L)))))
      assert(out.version == 2L && out.attempts == 1, out)
    } catch { case e: Throwable => proxy.stop(); throw e }
    val fired = proxy.stop()
    assert(fired.getOrElse("lose", 0) == 1, fired)
    assert(Snapshot.listVersions(store, table).map(_._1) == Seq(1L, 2L))
    assert(pylanceIds(table, 2)(2) == Seq(0L, 10L, 11L, 12L))
  }

  test("409 ConditionalRequestConflict: the conditional PUT is sent again; conflicts without end leave the outcome open and store nothing") {
    assume(ownPut, s"S3A ${BuildInfo.hadoop} sends the conditional PUT itself")
    val proxy = S3FaultProxy.start(server,
      S3FaultProxy.Rule("conflict", """/conflict/twice$""", times = Some(2)), S3FaultProxy.Rule("conflict", """/conflict/always$""", times = None))
    try {
      val via = new HadoopObjectStore(proxy.configuration(server))
      assert(via.putIfAbsent(s"$root/conflict/twice", bytes(10, 1)) == PutResult.Created)
      val e = intercept[LanceException](via.putIfAbsent(s"$root/conflict/always", bytes(10, 2)))
      assert(e.errorClass == "LANCE_IO_ERROR" && e.getMessage.contains("409"), e.getMessage)
    } catch { case e: Throwable => proxy.stop(); throw e }
    val fired = proxy.stop()
    assert(fired.getOrElse("conflict", 0) >= 2 + 5, fired)
    assert(store.readAll(s"$root/conflict/twice").sameElements(bytes(10, 1)))
    assert(!store.exists(s"$root/conflict/always"))
  }
}
