package io.sparklance.spark

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.AnalysisException
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.ErrorConditions._
import io.sparklance.testutil.{Golden, LocalSpark, TaskFailures}

/**
 * A damaged deletion file, of either kind, read through Spark: each read returns rows or
 * fails with our corrupt-file error naming the deletion file, never with Arrow's "Memory
 * was leaked" (which hid the real error) or anything else.
 */
class DeletionFileCorruptionSuite extends AnyFunSuite with LocalSpark {

  /** Byte positions to flip: both ends (headers, footers) and an even spread between. */
  private def positions(n: Int): Seq[Int] =
    ((0 until 24) ++ (0 until n by math.max(1, n / 24)) ++ (n - 24 until n)).filter(i => i >= 0 && i < n).distinct

  private def check(suffix: String): Unit = {
    val dir = Files.createTempDirectory("lance-deletions").toFile
    try {
      FileUtils.copyDirectory(new File(Golden.dataset("deletions").uri), dir)
      // Deletion files are named <fragment>-<read version>-<id>: the commit that wrote one made
      // version <read version> + 1, which reads it (rust/lance-table/src/io/deletion.rs).
      val used = new File(dir, "_deletions").listFiles().filter(_.getName.endsWith(suffix)).sortBy(_.getName).takeRight(2)
      assert(used.length == 2, s"the golden deletions dataset has two $suffix deletion files")
      var (returned, refused) = (0, 0)
      used.foreach { f =>
        val version = f.getName.split('-')(1).toLong + 1
        def read() = spark.read.format("lance").option("version", version).load(dir.getPath).select("id").collect()
        val original = Files.readAllBytes(f.toPath)
        val expectedRows = read().length
        for (i <- positions(original.length)) {
          val bit = i % 8
          val bytes = original.clone()
          bytes(i) = (bytes(i) ^ (1 << bit)).toByte
          Files.write(f.toPath, bytes)
          try { read(); returned += 1 }
          catch {
            case thrown: Exception => TaskFailures.unwrap(thrown) match {
              case e: AnalysisException =>
                assert(e.condition == "LANCE_CORRUPT_FILE", s"${f.getName} byte $i bit $bit: $e")
                assert(e.getMessage.contains(f.getName), s"${f.getName} byte $i bit $bit: $e")
                refused += 1
              case other => throw other
            }
          }
        }
        Files.write(f.toPath, original)
        assert(read().length == expectedRows)
      }
      info(s"$suffix: ${used.map(_.getName).mkString(", ")}: $returned reads returned rows, $refused refused")
      assert(refused > 0)
    } finally FileUtils.deleteDirectory(dir)
  }

  test("flipped bytes in .arrow (Arrow IPC) deletion files") { check(".arrow") }
  test("flipped bytes in .bin (roaring) deletion files") { check(".bin") }
}
