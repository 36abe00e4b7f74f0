package io.sparklance.spark.write

import java.io.{File, InterruptedIOException}
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{PhysicalWriteInfo, WriterCommitMessage}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.concurrent.Eventually
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.time.SpanSugar._

import io.sparklance.format.write.FileWriterOptions
import io.sparklance.spark.{LanceOptions, LanceTable, WriteSchema}
import io.sparklance.storage.{ObjectStore, ObjectStoreFactory}
import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.table.Snapshot
import io.sparklance.table.write.FragmentWriterOptions
import io.sparklance.testutil.{CommitFixtures, ForwardingStore, LocalSpark, TaskRows}
import io.sparklance.util.Errors

/**
 * Failed, retried and duplicate task attempts of a write (issue #19): only the messages Spark
 * hands to BatchWrite.commit reach the table, an aborted attempt removes its files, an aborted
 * job removes every file it wrote. Rows are (id, "r<id>"), read back by pylance
 * (dev/golden/table_ops.py); the folder `data/` is listed to find files no version references.
 */
class TaskAttemptsSuite extends AnyFunSuite with LocalSpark with Eventually {

  // Two task threads, a task tried up to 4 times (local[2] never retries).
  override protected def master: String = "local[2,4]"

  private val Partitions = 4
  private val RowsPerPartition = 1000
  private val FailAt = 700

  private def newPath(): String = new File(Files.createTempDirectory("lance-attempts").toFile, "t.lance").getPath

  /**
   * Rows `from` until `from + 4000` in 4 partitions, (id, "r<id>"). A partition for which
   * `fails(partition, attempt)` holds throws after its first 700 rows: with batches of 100 rows
   * and 200 rows per file the attempt has finished 3 data files by then.
   */
  private def rows(from: Long, fails: (Int, Int) => Boolean): DataFrame = {
    val s = spark
    import s.implicits._
    val failAt = FailAt // not the suite: the closure runs in tasks
    s.range(from, from + Partitions.toLong * RowsPerPartition, 1, Partitions).as[Long].mapPartitions { it =>
      val ctx = TaskContext.get()
      val failing = fails(ctx.partitionId(), ctx.attemptNumber())
      it.zipWithIndex.map { case (id, i) =>
        if (failing && i == failAt) throw new IllegalStateException(s"injected failure, attempt ${ctx.attemptNumber()}")
        (id, CommitFixtures.value(id))
      }
    }.toDF("id", "s")
  }

  private def append(df: DataFrame, path: String): Unit =
    df.write.format("lance").mode("append").option("batchSize", "100").option("maxRowsPerFile", "200").save(path)

  private def store = new HadoopObjectStoreFactory(spark.sessionState.newHadoopConf()).create()
  private def dataFiles(path: String): Set[String] =
    Option(new File(path, "data").listFiles()).map(_.map(_.getName).toSet).getOrElse(Set.empty)
  private def referenced(path: String): Set[String] =
    Snapshot.open(store, path, None).manifest.fragments.flatMap(_.files.map(_.path)).toSet
  private def versions(path: String): Seq[Long] = Snapshot.listVersions(store, path).map(_._1)

  test("tasks that fail on their first attempt after finishing files: every row once, no unreferenced file") {
    val path = newPath()
    append(rows(0, (_, attempt) => attempt == 0), path)
    val read = CommitFixtures.pylanceRead(path)
    assert(read.version == 1L)
    assert(read.rows == CommitFixtures.expected(0L until 4000L))
    // 5 files of 200 rows per partition, from the second attempts only.
    assert(referenced(path).size == Partitions * 5)
    assert(dataFiles(path) == referenced(path), "every file in data/ is referenced by the manifest")
  }

  test("a job whose task fails on every attempt: no new version, no new file, the table reads as before") {
    val path = newPath()
    append(rows(0, (_, _) => false), path)
    val before = dataFiles(path)
    assert(before.size == Partitions * 5)
    val e = intercept[Exception](append(rows(10000, (partition, _) => partition == 2), path))
    assert(Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).exists(_.getMessage.contains("injected failure")), e)
    assert(versions(path) == Seq(1L))
    // Tasks still running when the job failed are killed; their abort may come after the job's.
    eventually(timeout(30.seconds), interval(200.millis)) {
      assert(dataFiles(path) == before, "the failed job's files are removed")
    }
    val read = CommitFixtures.pylanceRead(path)
    assert(read.version == 1L)
    assert(read.rows == CommitFixtures.expected(0L until 4000L))
  }

  // A speculative copy of a task cannot be started by Spark on a single host:
  // TaskSetManager.dequeueTaskFromList (core/src/main/scala/org/apache/spark/scheduler/
  // TaskSetManager.scala, Spark 4.2) skips a speculative task wherever hasAttemptOnHost(index,
  // host) holds, and local and local-cluster executors all run on one host. (Local mode does not
  // even start the speculation check: TaskSchedulerImpl.start runs it only when !isLocal.) So
  // this test plays Spark's part for one partition, as DataWritingSparkTask does
  // (sql/core/src/main/scala/org/apache/spark/sql/execution/datasources/v2/
  // WriteToDataSourceV2Exec.scala): two attempts of the partition write the same rows; the
  // commit coordinator lets one commit, the other gets CommitDeniedException, and Spark calls
  // that attempt's DataWriter.abort (as it does for an attempt killed because another one won);
  // BatchWrite.commit gets the winner's message only.
  test("two attempts of one partition, as speculation runs them: the winner's rows once, the loser's files removed") {
    val path = newPath()
    val schema = StructType(Seq(StructField("id", LongType, nullable = false), StructField("s", StringType)))
    val params = Map("path" -> path, "maxRowsPerFile" -> "100", "batchSize" -> "50")
    val options = new CaseInsensitiveStringMap(params.asJava)
    val stores = new HadoopObjectStoreFactory(spark.sessionState.newHadoopConf())
    val table = new LanceTable(Left(Errors.notADataset(path, "no table yet: this write creates it")), LanceOptions.parse(options),
      stores, Some(WriteTarget(WriteMode.Append, None, LanceWriteOptions.parse(options))))
    val batch = LanceWrite.plan(table, table.target.get, overwrite = false, schema).toBatch
    val factory = batch.createBatchWriterFactory(new PhysicalWriteInfo { def numPartitions: Int = 2 })

    def attempt(partition: Int, ids: Range, taskId: Long) = {
      val w = factory.createWriter(partition, taskId)
      TaskRows.write(w, ids.iterator.map(i => InternalRow(i.toLong, UTF8String.fromString(CommitFixtures.value(i.toLong)))))
      w
    }
    val other = attempt(1, 300 until 400, 1)
    val first = attempt(0, 0 until 300, 2)
    val speculative = attempt(0, 0 until 300, 3)
    assert(dataFiles(path).size == 3 + 3 + 1, "both attempts of partition 0 finished their files")
    val messages: Array[WriterCommitMessage] = Array(speculative.commit(), other.commit())
    first.abort()
    Seq(first, speculative, other).foreach(_.close())
    batch.commit(messages)

    val read = CommitFixtures.pylanceRead(path)
    assert(read.version == 1L)
    assert(read.rows == CommitFixtures.expected(0L until 400L))
    assert(referenced(path).size == 4)
    assert(dataFiles(path) == referenced(path), "the losing attempt's files are removed")
  }

  // Spark kills an attempt by interrupting its thread (the copy that lost to a speculative one,
  // interruptThread = true in TaskSetManager.handleSuccessfulTask; a cancelled job) and then calls
  // DataWriter.abort in that same thread. S3A's calls fail on an interrupted thread (the AWS SDK's
  // AbortedException "Thread was interrupted"), so abort must not run its deletes interrupted.
  test("an attempt aborted on an interrupted thread removes its files through a store that refuses interrupted calls") {
    val path = newPath()
    val schema = StructType(Seq(StructField("id", LongType, nullable = false), StructField("s", StringType)))
    val local = new HadoopObjectStoreFactory(spark.sessionState.newHadoopConf())
    val stores = new ObjectStoreFactory {
      def create(): ObjectStore = new ForwardingStore(local.create()) {
        override def delete(p: String): Boolean =
          if (Thread.currentThread().isInterrupted) throw new InterruptedIOException(s"$p: interrupted") else super.delete(p)
      }
    }
    val factory = LanceDataWriterFactory(stores, path, WriteSchema.lance(schema, path), schema, schema.indices,
      FragmentWriterOptions(FileWriterOptions(), maxRowsPerFile = 100), batchRows = 50, batchBytes = 1L << 20, taskMemoryBytes = 64L << 20)
    val writer = factory.createWriter(0, 1)
    TaskRows.write(writer, (0 until 300).iterator.map(i => InternalRow(i.toLong, UTF8String.fromString(CommitFixtures.value(i.toLong)))))
    assert(dataFiles(path).size == 3)
    Thread.currentThread().interrupt()
    try writer.abort() finally assert(Thread.interrupted(), "the thread is still interrupted after abort")
    writer.close()
    assert(dataFiles(path).isEmpty, "the aborted attempt's files are removed")
  }
}
