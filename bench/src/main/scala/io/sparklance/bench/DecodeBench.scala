package io.sparklance.bench

import java.io.File

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.FieldVector
import org.apache.hadoop.conf.Configuration

import io.sparklance.format.LanceFileReader
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{ScanPlanner, Snapshot}

/**
 * Single-threaded decode throughput of the format layer: reads every column of each
 * dataset under the given folder (one column kind per dataset, written by
 * bench/decode_bench.py) into Arrow, several times after a warm-up, and prints one JSON
 * line per dataset with the best time, rows and decoded Arrow bytes.
 *
 * Usage: DecodeBench <folder> [repetitions]
 */
object DecodeBench {
  def main(args: Array[String]): Unit = {
    val root = new File(args(0))
    val reps = if (args.length > 1) args(1).toInt else 5
    val store = new HadoopObjectStore(new Configuration())
    root.listFiles().filter(_.isDirectory).sortBy(_.getName).foreach { dir =>
      val snapshot = Snapshot.open(store, dir.getAbsolutePath, None)
      val fields = snapshot.manifest.schema.fields
      val tasks = ScanPlanner.plan(store, snapshot)
      def once(): (Long, Long) = {
        val allocator = new RootAllocator(Long.MaxValue)
        var rows = 0L
        var bytes = 0L
        try tasks.foreach { t =>
          val f = t.files.head
          val reader = LanceFileReader.open(store, f.path, Some(f.sizeBytes))
          try {
            val scanners = fields.map(fd => reader.scan(fd, f.columnOf))
            var left = reader.numRows
            while (left > 0) {
              val n = math.min(left, 8192L).toInt
              scanners.foreach { s =>
                val v: FieldVector = s.next(n, allocator)
                bytes += v.getBufferSize
                v.close()
              }
              rows += n
              left -= n
            }
          } finally reader.close()
        } finally allocator.close()
        (rows, bytes)
      }
      // Warm-up (JIT compilation and the page cache): at least 3 s and 5 rounds.
      val warmStart = System.nanoTime()
      var warm = 0
      while (warm < 5 || System.nanoTime() - warmStart < 3000000000L) { once(); warm += 1 }
      var best = Long.MaxValue
      var result = (0L, 0L)
      (0 until reps).foreach { _ =>
        val t0 = System.nanoTime()
        result = once()
        best = math.min(best, System.nanoTime() - t0)
      }
      println(s"""{"dataset": "${dir.getName}", "engine": "spark-lance", "seconds": ${best / 1e9}, "rows": ${result._1}, "arrow_bytes": ${result._2}}""")
    }
  }
}
