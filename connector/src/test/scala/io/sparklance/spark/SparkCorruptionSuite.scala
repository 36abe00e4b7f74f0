package io.sparklance.spark

import java.io.File
import java.nio.file.Files
import java.util.concurrent.{Executors, TimeUnit, TimeoutException}

import scala.util.Random

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.AnalysisException
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.ErrorConditions._
import io.sparklance.testutil.{Golden, LocalSpark, TaskFailures}

/**
 * The corruption fuzzing of the format layer (format.CorruptionSuite), through Spark: damaged
 * copies of golden data files (truncated, bit-flipped anywhere or in the metadata at the end)
 * read with a SparkSession, so that the Spark columns and the task's allocator are in the
 * path too. Each read returns rows or fails with a Lance error class (Spark keeps it: an
 * AnalysisException whose condition is LANCE_...), within a time bound; never a JVM crash,
 * a hang, a NullPointerException or an IndexOutOfBoundsException. Bounded to about a
 * minute on two cores.
 */
class SparkCorruptionSuite extends AnyFunSuite with LocalSpark {
  private val pool = Executors.newSingleThreadExecutor()

  private def fuzz(dataset: String, cases: Int): Map[String, Int] = {
    val dir = Files.createTempDirectory("lance-spark-corrupt").toFile
    try {
      FileUtils.copyDirectory(new File(Golden.dataset(dataset).uri), dir)
      val file = new File(dir, "data").listFiles().filter(_.getName.endsWith(".lance")).maxBy(_.length())
      val original = Files.readAllBytes(file.toPath)
      val rnd = new Random(dataset.hashCode.toLong)
      val counts = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
      (0 until cases).foreach { c =>
        val bytes = original.clone()
        val (kind, damaged) = rnd.nextInt(4) match {
          case 0 => "truncated" -> java.util.Arrays.copyOf(bytes, rnd.nextInt(bytes.length))
          case 1 =>
            val i = bytes.length - 1 - rnd.nextInt(math.min(bytes.length, 4096)); bytes(i) = (bytes(i) ^ (1 << rnd.nextInt(8))).toByte
            "flip in the metadata" -> bytes
          case 2 =>
            val i = rnd.nextInt(bytes.length); bytes(i) = (bytes(i) ^ (1 << rnd.nextInt(8))).toByte
            "flip anywhere" -> bytes
          case _ =>
            (0 until 4).foreach { _ => val i = bytes.length - 1 - rnd.nextInt(math.min(bytes.length, 2048)); bytes(i) = rnd.nextInt(256).toByte }
            "random metadata bytes" -> bytes
        }
        Files.write(file.toPath, damaged)
        val read = pool.submit(() => spark.read.format("lance").load(dir.getPath).collect().length)
        val outcome =
          try { read.get(30, TimeUnit.SECONDS); "rows" }
          catch {
            case e: java.util.concurrent.ExecutionException => TaskFailures.unwrap(e.getCause) match {
              case a: AnalysisException if a.condition != null && a.condition.startsWith("LANCE_") => a.condition
              case other => fail(s"case $c of $dataset ($kind): ${other.getClass.getName}: ${other.getMessage}", other)
            }
            case _: TimeoutException =>
              spark.sparkContext.cancelAllJobs(); read.cancel(true)
              fail(s"case $c of $dataset ($kind): no answer within 30 s")
          }
        counts(outcome) += 1
      }
      Files.write(file.toPath, original)
      assert(spark.read.format("lance").load(dir.getPath).count() == spark.read.format("lance").load(Golden.dataset(dataset).uri).count())
      counts.toMap
    } finally FileUtils.deleteDirectory(dir)
  }

  test("damaged golden data files read through Spark: rows or a Lance error, never a crash or a hang") {
    val results = Seq("basic_types" -> 60, "types_v2_2" -> 50, "types_legacy" -> 30, "types_v2_0" -> 30).map { case (name, n) =>
      val started = System.nanoTime()
      val counts = fuzz(name, n)
      info(s"$name: $counts in ${(System.nanoTime() - started) / 1000000} ms")
      counts
    }
    assert(results.forall(_.keys.exists(_.startsWith("LANCE_"))))
  }
}
