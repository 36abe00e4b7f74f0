package io.sparklance.format

import java.io.File
import java.nio.file.Files
import java.util.concurrent.{Executors, TimeUnit, TimeoutException}

import scala.util.Random

import org.apache.arrow.memory.RootAllocator
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{ScanPlanner, Snapshot}
import io.sparklance.testutil.{Canonical, Golden}
import io.sparklance.util.LanceException

/**
 * Damaged data files never crash the reader: each read of a truncated or bit-flipped
 * golden file either returns rows or raises our LanceException, within a time bound, and
 * releases every Arrow buffer. (Lance files carry no checksums, so a flip inside raw
 * values can change values; flips are counted by outcome and reported.)
 */
class CorruptionSuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())
  private val pool = Executors.newSingleThreadExecutor()

  private sealed trait Outcome
  private case object Same extends Outcome
  private case object Different extends Outcome
  private case object Refused extends Outcome

  private def readAll(path: String, size: Long, fields: IndexedSeq[LanceField], columnOf: Int => Option[Int]): IndexedSeq[IndexedSeq[Any]] = {
    val allocator = new RootAllocator(1L << 30)
    try {
      val reader = DataFileReader.open(store, path, Some(size), FileVersion.V2_2)
      try {
        val scanners = fields.map(f => reader.scan(f, columnOf))
        var out = IndexedSeq.empty[IndexedSeq[Any]]
        var left = reader.numRows
        if (left > 100000) throw new IllegalStateException("too many rows")
        while (left > 0) {
          val n = math.min(left, 1000L).toInt
          val vectors = scala.collection.mutable.ArrayBuffer.empty[org.apache.arrow.vector.FieldVector]
          try {
            scanners.foreach(s => vectors += s.next(n, allocator))
            if (vectors.exists(_.getValueCount != n)) throw new IllegalStateException("short batch")
            out ++= (0 until n).map(i => vectors.toIndexedSeq.map(v => Canonical.cell(v, i)))
          } finally vectors.foreach(_.close())
          left -= n
        }
        out
      } finally reader.close()
    } finally allocator.close() // throws if a buffer leaked
  }

  private def fuzz(dataset: String, cases: Int, seed: Long): Map[Outcome, Int] = {
    val snapshot = Snapshot.open(store, Golden.dataset(dataset).uri, None)
    val task = ScanPlanner.plan(store, snapshot).head
    val file = task.files.head
    val fields = snapshot.manifest.schema.fields
    val original = Files.readAllBytes(new File(new java.net.URI(if (file.path.contains(":")) file.path else "file:" + file.path)).toPath)
    val good = readAll(file.path, original.length, fields, file.columnOf)
    val dir = Files.createTempDirectory("lance-corrupt").toFile
    val rnd = new Random(seed)
    val counts = scala.collection.mutable.Map.empty[Outcome, Int].withDefaultValue(0)
    (0 until cases).foreach { c =>
      val bytes = original.clone()
      val damaged: Array[Byte] = rnd.nextInt(4) match {
        case 0 => java.util.Arrays.copyOf(bytes, rnd.nextInt(bytes.length)) // truncated
        case 1 => // a flip in the metadata at the end of the file
          val i = bytes.length - 1 - rnd.nextInt(math.min(bytes.length, 4096)); bytes(i) = (bytes(i) ^ (1 << rnd.nextInt(8))).toByte; bytes
        case 2 => // a flip anywhere
          val i = rnd.nextInt(bytes.length); bytes(i) = (bytes(i) ^ (1 << rnd.nextInt(8))).toByte; bytes
        case _ => // a few random bytes in the metadata
          (0 until 4).foreach { _ => val i = bytes.length - 1 - rnd.nextInt(math.min(bytes.length, 2048)); bytes(i) = rnd.nextInt(256).toByte }; bytes
      }
      val f = new File(dir, s"case$c.lance")
      Files.write(f.toPath, damaged)
      val future = pool.submit(() => readAll(f.getPath, damaged.length, fields, file.columnOf))
      val outcome =
        try { if (future.get(20, TimeUnit.SECONDS) == good) Same else Different }
        catch {
          case e: java.util.concurrent.ExecutionException => e.getCause match {
            case _: LanceException => Refused
            case other => fail(s"case $c of $dataset: ${other.getClass.getName}: ${other.getMessage}", other)
          }
          case _: TimeoutException => future.cancel(true); fail(s"case $c of $dataset: no answer within 20 s")
        }
      counts(outcome) += 1
      f.delete()
    }
    dir.delete()
    counts.toMap
  }

  test("thousands of damaged copies of golden data files") {
    val results = Seq("basic_types" -> 1500, "basic_types_large" -> 300, "no_nulls" -> 700).map { case (name, n) =>
      name -> fuzz(name, n, seed = name.hashCode.toLong)
    }
    results.foreach { case (name, counts) => info(s"$name: $counts") }
    assert(results.forall(_._2.getOrElse(Refused, 0) > 0))
  }
}
