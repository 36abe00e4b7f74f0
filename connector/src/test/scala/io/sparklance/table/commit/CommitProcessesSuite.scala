package io.sparklance.table.commit

import java.io.{BufferedReader, File, InputStreamReader}
import java.lang.management.ManagementFactory
import java.nio.file.Files
import java.util.concurrent.{LinkedBlockingQueue, TimeUnit}

import scala.jdk.CollectionConverters._

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.FileVersion
import io.sparklance.table.Snapshot
import io.sparklance.testutil.CommitFixtures._
import io.sparklance.testutil.LocalFolderStore

/** Writers in separate JVMs: many committing at once, and writers killed mid-commit. */
class CommitProcessesSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val store = new LocalFolderStore
  private val tmp = Files.createTempDirectory("processes").toFile
  override def afterAll(): Unit = org.apache.commons.io.FileUtils.deleteQuietly(tmp)

  /** A JVM running CommitWorker with the test classpath and this JVM's options; stdout lines go to `lines`. */
  private def worker(args: String*): (Process, LinkedBlockingQueue[String]) = {
    val jvmOptions = ManagementFactory.getRuntimeMXBean.getInputArguments.asScala.filterNot(a => a.startsWith("-agentlib") || a.startsWith("-Xmx"))
    val cmd = Seq(new File(System.getProperty("java.home"), "bin/java").getPath) ++ jvmOptions ++
      Seq("-Xmx256m", "-cp", System.getProperty("java.class.path"), "io.sparklance.table.commit.CommitWorker") ++ args
    val p = new ProcessBuilder(cmd: _*).redirectError(ProcessBuilder.Redirect.INHERIT).start()
    val lines = new LinkedBlockingQueue[String]()
    val t = new Thread(() => {
      val r = new BufferedReader(new InputStreamReader(p.getInputStream))
      Iterator.continually(r.readLine()).takeWhile(_ != null).foreach(l => lines.put(l))
    })
    t.setDaemon(true); t.start()
    (p, lines)
  }

  private def createTable(name: String): String = {
    val root = new File(tmp, name).getAbsolutePath
    new TableCommitter(store, root).commit(CommitRequest(None, Operation.Append(IndexedSeq(fragment(store, root, Seq(0L)))),
      newTable = Some(NewTable(schema, FileVersion.V2_2, stableRowIds = false))))
    root
  }

  test("8 processes committing 10 appends each at once: 80 new versions, no row lost or doubled") {
    val root = createTable("concurrent")
    val started = System.nanoTime()
    val workers = (1 to 8).map(w => worker("append", root, w.toString, "10"))
    workers.foreach { case (p, _) => assert(p.waitFor(240, TimeUnit.SECONDS)); assert(p.exitValue() == 0) }
    val committed = workers.flatMap(_._2.asScala.filter(_.startsWith("committed")).map(_.split(' ')(1).toLong))
    info(s"80 commits from 8 JVMs in ${(System.nanoTime() - started) / 1000000} ms")
    assert(committed.sorted == (2L to 81L))
    assert(Snapshot.listVersions(store, root).map(_._1) == (1L to 81L))
    val ids = Seq(0L) ++ (for (w <- 1 to 8; i <- 0 until 10; k <- 0 until 10) yield w * 1000L + i * 10 + k)
    assert(pylanceRead(root).rows == expected(ids))
  }

  test("writers killed with SIGKILL at random points, 20 times: the table always opens at the previous or next version") {
    val root = createTable("killed")
    val rnd = new scala.util.Random(19)
    var checkedVersions = Seq(1L)
    var committedBatches = Set.empty[Long]
    (1 to 20).foreach { run =>
      val (p, lines) = worker("loop", root, run.toString)
      assert(lines.poll(60, TimeUnit.SECONDS) == "ready")
      Thread.sleep(rnd.nextInt(400).toLong)
      p.destroyForcibly()
      assert(p.waitFor(30, TimeUnit.SECONDS))
      Thread.sleep(50) // the reader thread drains what the worker printed
      val printed = lines.asScala.toSeq.filter(_.startsWith("committed")).map(_.split(' '))
      val before = checkedVersions.last
      val lastPrinted = printed.lastOption.fold(before)(_(1).toLong)
      committedBatches ++= printed.map(_(2).toLong)
      val latest = Snapshot.open(store, root, None).version
      // The commit in flight at the kill either landed whole or not at all.
      assert(latest == lastPrinted || latest == lastPrinted + 1, s"run $run: latest $latest, last printed $lastPrinted")
      assert(Snapshot.listVersions(store, root).map(_._1) == (1L to latest))
      checkedVersions :+= latest
    }
    val reads = pylanceIds(root, checkedVersions.distinct)
    reads.values.foreach { ids =>
      assert(ids.distinct.length == ids.length)
      // Whole batches of 10 only (and the first row).
      assert(ids.filter(_ != 0).groupBy(_ / 10).values.forall(_.length == 10))
    }
    val last = reads(checkedVersions.last)
    assert(committedBatches.forall(b => last.contains(b)))
    info(s"${checkedVersions.last - 1} commits across 20 killed writers; ${committedBatches.size} acknowledged")
  }
}
