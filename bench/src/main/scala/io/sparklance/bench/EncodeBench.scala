package io.sparklance.bench

import java.io.{BufferedOutputStream, ByteArrayOutputStream, File, FileInputStream, FileOutputStream}
import java.lang.management.ManagementFactory

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.{BufferAllocator, RootAllocator}
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}
import org.apache.arrow.vector.ipc.ArrowFileReader
import org.apache.hadoop.conf.Configuration

import io.sparklance.format.{LanceField, LanceFileReader, LanceSchema}
import io.sparklance.storage.FileSink
import io.sparklance.format.write.{FileWriterOptions, LanceFileWriter}
import io.sparklance.storage.hadoop.HadoopObjectStore

/**
 * Single-threaded encode throughput of our file writer, and decode throughput of our reader on
 * our file and on pylance's, for each column kind written by bench/encode_bench.py: `<kind>.arrow`
 * (Arrow IPC, the batches pylance wrote) and `<kind>/pylance.lance` in the given folder. Writes
 * `<kind>/ours.lance` (file format 2.2) and prints one JSON line per kind: best encode wall time
 * with that run's GC, JIT and allocation figures, the least CPU seconds of the writing thread and
 * of the process in one run (each side's "per core" figure takes its least CPU, so that another
 * thread's burst in one run, such as G1 returning memory after the `System.gc()` before it, does
 * not decide the ratio), our file's size, and the best decode time of each file.
 *
 * With a profile folder, as many runs again as were timed are recorded with Java Flight Recorder
 * after the timed runs, into `<kind>-encode.jfr`, `<kind>-decode-ours.jfr` and
 * `<kind>-decode-theirs.jfr` there.
 *
 * Usage: EncodeBench <folder> [repetitions] [kind,kind,...] [profile folder]
 */
object EncodeBench {
  private val store = new HadoopObjectStore(new Configuration())
  private val threads = ManagementFactory.getThreadMXBean.asInstanceOf[com.sun.management.ThreadMXBean]
  private val gcs = ManagementFactory.getGarbageCollectorMXBeans.asScala
  private val jit = ManagementFactory.getCompilationMXBean
  private val os = ManagementFactory.getOperatingSystemMXBean.asInstanceOf[com.sun.management.OperatingSystemMXBean]

  def main(args: Array[String]): Unit = {
    val folder = new File(args(0))
    val reps = if (args.length > 1) args(1).toInt else 5
    val kinds = if (args.length > 2) args(2).split(',').toSeq
      else folder.listFiles().map(_.getName).filter(_.endsWith(".arrow")).map(_.stripSuffix(".arrow")).sorted.toSeq
    val profile = if (args.length > 3) Some(new File(args(3))) else None
    profile.foreach(_.mkdirs())
    kinds.foreach { kind =>
      val allocator = new RootAllocator(Long.MaxValue)
      val batches = readIpc(new File(folder, s"$kind.arrow"), allocator)
      val ours = new File(folder, s"$kind/ours.lance")
      val theirs = new File(folder, s"$kind/pylance.lance")
      val fields = Seq.newBuilder[String]
      try {
        fields += s""""kind": "$kind""""
        try {
          val e = encode(batches, ours, reps, profile.map(new File(_, s"$kind-encode.jfr")))
          fields += s""""seconds": ${e.wall}, "cpu_seconds": ${e.threadCpu}, "process_cpu_seconds": ${e.processCpu}, """ +
            s""""gc_seconds": ${e.gc}, "jit_seconds": ${e.jit}, "allocated_bytes": ${e.allocated}, "bytes": ${ours.length}"""
        } catch {
          case t: Throwable =>
            ours.delete()
            fields += s""""error": "${firstLine(t)}""""
        }
        val files = Seq("ours" -> ours, "theirs" -> theirs).filter(_._2.exists)
        def jfrOf(who: String) = profile.map(new File(_, s"$kind-decode-$who.jfr"))
        decode(files.map { case (who, f) => (f, jfrOf(who)) }, reps).zip(files).foreach { case (sec, (who, _)) => fields += s""""decode_${who}_seconds": $sec""" }
      } finally {
        batches.foreach(_.close())
        allocator.close()
      }
      println(fields.result().mkString("{", ", ", "}"))
    }
  }

  private def firstLine(t: Throwable): String =
    s"${t.getClass.getSimpleName}: ${String.valueOf(t.getMessage).linesIterator.nextOption().getOrElse("")}".replace("\"", "'")

  /** Every batch of an Arrow IPC file, each in its own root (owned by the caller). */
  private def readIpc(file: File, allocator: BufferAllocator): IndexedSeq[VectorSchemaRoot] = {
    val in = new FileInputStream(file)
    val reader = new ArrowFileReader(in.getChannel, allocator)
    try {
      val root = reader.getVectorSchemaRoot
      val out = IndexedSeq.newBuilder[VectorSchemaRoot]
      while (reader.loadNextBatch()) {
        val moved = root.getFieldVectors.asScala.map { v =>
          val tp = v.getTransferPair(allocator)
          tp.transfer()
          tp.getTo.asInstanceOf[FieldVector]
        }
        out += new VectorSchemaRoot(root.getSchema.getFields, moved.asJava, root.getRowCount)
      }
      out.result()
    } finally reader.close()
  }

  /** One timed write: wall, this thread's and the process's CPU, and GC seconds; bytes this thread allocated on the heap. */
  private final case class Encoded(wall: Double, threadCpu: Double, processCpu: Double, gc: Double, jit: Double, allocated: Long)

  private def gcMillis: Long = gcs.map(_.getCollectionTime).sum

  /** The fastest of `reps` writes after a warm-up. */
  private def encode(batches: IndexedSeq[VectorSchemaRoot], dest: File, reps: Int, jfr: Option[File]): Encoded = {
    val schema = LanceSchema.fromArrow(batches.head.getSchema, dest.getPath)
    def once(): Unit = {
      val w = new LanceFileWriter(FileSink.of(new BufferedOutputStream(new FileOutputStream(dest), 1 << 16)), schema,
        FileWriterOptions())
      try { batches.foreach(w.write); w.finish() }
      catch { case t: Throwable => w.abort(); throw t }
    }
    warmUp(once())
    var best = Encoded(Double.MaxValue, Double.MaxValue, Double.MaxValue, 0, 0, 0)
    val me = Thread.currentThread().getId
    (0 until reps).foreach { _ =>
      System.gc()
      val (a0, g0) = (threads.getThreadAllocatedBytes(me), gcMillis)
      val j0 = jit.getTotalCompilationTime
      val (c0, p0, t0) = (threads.getCurrentThreadCpuTime, os.getProcessCpuTime, System.nanoTime())
      once()
      val (t1, c1, p1) = (System.nanoTime(), threads.getCurrentThreadCpuTime, os.getProcessCpuTime)
      val run = Encoded((t1 - t0) / 1e9, (c1 - c0) / 1e9, (p1 - p0) / 1e9, (gcMillis - g0) / 1e3,
        (jit.getTotalCompilationTime - j0) / 1e3, threads.getThreadAllocatedBytes(me) - a0)
      if (run.wall < best.wall) best = run.copy(threadCpu = best.threadCpu, processCpu = best.processCpu)
      best = best.copy(threadCpu = math.min(best.threadCpu, run.threadCpu), processCpu = math.min(best.processCpu, run.processCpu))
    }
    recording(jfr)((0 until reps).foreach(_ => once()))
    best
  }

  /**
   * Best seconds of each file read whole into 8192-row Arrow batches by our reader, the files taking
   * turns; then each file's profile, if asked for.
   */
  private def decode(filesAndProfiles: Seq[(File, Option[File])], reps: Int): Seq[Double] = {
    val files = filesAndProfiles.map(_._1)
    def once(file: File): Unit = {
      val allocator = new RootAllocator(Long.MaxValue)
      val reader = LanceFileReader.open(store, file.getPath)
      try {
        val schema = LanceSchema(LanceField.buildTree(reader.descriptor.fields, file.getPath), Map.empty)
        val columnOf = columnsOf(schema)
        val scanners = schema.fields.map(f => reader.scan(f, columnOf.get))
        var left = reader.numRows
        while (left > 0) {
          val n = math.min(left, 8192L).toInt
          scanners.foreach(_.next(n, allocator).close())
          left -= n
        }
      } finally { reader.close(); allocator.close() }
    }
    warmUp(files.foreach(once))
    val best = Array.fill(files.length)(Double.MaxValue)
    (0 until reps).foreach { _ =>
      files.indices.foreach { i =>
        val t0 = System.nanoTime()
        once(files(i))
        best(i) = math.min(best(i), (System.nanoTime() - t0) / 1e9)
      }
    }
    filesAndProfiles.foreach { case (f, jfr) => recording(jfr)((0 until reps).foreach(_ => once(f))) }
    best.toSeq
  }

  /**
   * Which column holds each field, as our writer lays the columns out in file format 2.2 (pylance
   * lays them out the same way): what an empty file of the schema records.
   */
  private def columnsOf(schema: LanceSchema): Map[Int, Int] = {
    val empty = new LanceFileWriter(FileSink.of(new ByteArrayOutputStream()), schema, FileWriterOptions()).finish()
    empty.fieldIds.zip(empty.columnIndices).toMap
  }

  /** Runs `body` under a Java Flight Recorder recording (the JDK's "profile" settings) dumped to `file`, if given. */
  private def recording(file: Option[File])(body: => Unit): Unit = file match {
    case None => body
    case Some(f) =>
      val r = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"))
      // A sample every millisecond (the settings' 10 ms give too few in a short run).
      r.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(1))
      r.start()
      try body finally { r.stop(); r.dump(f.toPath); r.close() }
  }

  /**
   * JIT warm-up (and the page cache): at least 2 rounds and 3 s, then on until a round in which
   * the JIT compiled for under 2 % of the round's time (at most 30 s in all), so that the timed
   * rounds measure the compiled code, not the compiler still at work beside it.
   */
  private def warmUp(round: => Unit): Unit = {
    val start = System.nanoTime()
    var n = 0
    var settled = false
    while (n < 2 || System.nanoTime() - start < 3000000000L || (!settled && System.nanoTime() - start < 30000000000L)) {
      val (j0, t0) = (jit.getTotalCompilationTime, System.nanoTime())
      round
      settled = (jit.getTotalCompilationTime - j0) * 1000000L < (System.nanoTime() - t0) / 50
      n += 1
    }
  }
}
