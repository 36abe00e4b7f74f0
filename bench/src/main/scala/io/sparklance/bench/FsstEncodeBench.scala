package io.sparklance.bench

import java.io.File
import java.nio.file.Files

import io.sparklance.format.encoding.{FsstCompressors, FsstEncoder, VariableData}

/**
 * Single-threaded FSST mini-block encoding: for each `<kind>.txt` (one value a line) and
 * `<kind>.pages` (rows per page of pylance's file) written by bench/fsst_bench.py, compresses the
 * same pages as pylance did with `FsstCompressors.miniBlock(32)`, best of several rounds after a
 * warm-up, and prints the speed and the bytes the pages take: per chunk a 4-byte header (level
 * count, value buffer size) and the value buffer padded to 8 bytes, plus a 2-byte chunk metadata
 * word, as pylance's page buffers hold them; plus one 2312-byte table per page.
 *
 * Usage: FsstEncodeBench <folder> [repetitions]
 */
object FsstEncodeBench {
  def main(args: Array[String]): Unit = {
    val root = new File(args(0))
    val reps = if (args.length > 1) args(1).toInt else 5
    root.listFiles().filter(_.getName.endsWith(".txt")).sortBy(_.getName).foreach { file =>
      val kind = file.getName.stripSuffix(".txt")
      val text = Files.readAllBytes(file.toPath)
      val lineEnds = text.indices.filter(text(_) == '\n').toArray
      val pageRows = Files.readAllLines(new File(root, s"$kind.pages").toPath).toArray.map(_.toString.trim.toInt)
      // Each page as its own VariableData, as the page writer will hand them over.
      var row = 0
      val pages = pageRows.map { n =>
        val offsets = new Array[Int](n + 1)
        val start = if (row == 0) 0 else lineEnds(row - 1) + 1
        var i = 0
        var at = 0
        val bytes = new Array[Byte](lineEnds(row + n - 1) - start - (n - 1))
        while (i < n) {
          val from = if (row + i == 0) 0 else lineEnds(row + i - 1) + 1
          val len = lineEnds(row + i) - from
          System.arraycopy(text, from, bytes, at, len)
          at += len
          i += 1
          offsets(i) = at
        }
        row += n
        new VariableData(offsets, bytes)
      }
      val raw = pages.map(_.dataLength.toLong).sum
      val compressor = FsstCompressors.miniBlock(32)
      def once(): Long = pages.map { p =>
        val (c, _) = compressor.compress(p)
        c.chunks.map(ch => ((4 + ch.bufferSizes.head + 7) / 8 * 8 + 2).toLong).sum + 2312
      }.sum
      val warmStart = System.nanoTime()
      var warm = 0
      while (warm < 3 || System.nanoTime() - warmStart < 5000000000L) { once(); warm += 1 }
      var best = Long.MaxValue
      var size = 0L
      (0 until reps).foreach { _ =>
        val start = System.nanoTime()
        size = once()
        best = math.min(best, System.nanoTime() - start)
      }
      // The FSST part alone (training and compressing), without the chunking.
      var bestFsst = Long.MaxValue
      (0 until reps).foreach { _ =>
        val start = System.nanoTime()
        pages.foreach(FsstEncoder.compress)
        bestFsst = math.min(bestFsst, System.nanoTime() - start)
      }
      val seconds = best / 1e9
      println(f"$kind: ${pages.map(_.count).sum} values, $raw bytes in ${pages.length} pages; best of $reps " +
        f"$seconds%.3f s = ${raw / seconds / 1e6}%.1f MB/s (FSST alone ${raw / (bestFsst / 1e9) / 1e6}%.1f MB/s); $size bytes = ratio ${raw.toDouble / size}%.3f")
    }
  }
}
