package io.sparklance.format.legacy

import java.nio.file.Files

import org.apache.arrow.memory.RootAllocator
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.Canonical

/**
 * Rows spread over several batches (row groups) read the same as in one batch: the golden
 * files (one batch each, as pylance wrote them) are re-split into batches of uneven sizes
 * whose pages point into pylance's own bytes, and read with slices that cross the batch
 * boundaries.
 */
class LegacyBatchesSuite extends AnyFunSuite {
  private lazy val dir = Files.createTempDirectory("legacy-batches")
  private lazy val golden = LegacyFiles.dataFiles("types_legacy", 1).head._1

  private def withAllocator[T](f: RootAllocator => T): T = {
    val a = new RootAllocator(Long.MaxValue)
    try f(a) finally a.close()
  }

  test("a file split into uneven batches reads the same rows, whatever the slice size") {
    val split = LegacyFiles.write(dir, "split.lance", LegacyFiles.rebatch(golden, Seq(0, 8, 16, 200, 208, 512)))
    withAllocator { allocator =>
      val original = LegacyFiles.open(golden)
      val rebatched = LegacyFiles.open(split)
      try {
        assert(rebatched.numBatches == 6)
        assert(rebatched.numRows == original.numRows)
        val want = LegacyFiles.readAll(original, 8192, allocator)
        Seq(3, 64, 333, 8192).foreach { slice =>
          val reopened = LegacyFiles.open(split)
          try assert(LegacyFiles.readAll(reopened, slice, allocator) == want, s"slice $slice")
          finally reopened.close()
        }
      } finally { original.close(); rebatched.close() }
    }
  }

  test("skip and take cross batch boundaries") {
    val split = LegacyFiles.write(dir, "split-take.lance", LegacyFiles.rebatch(golden, Seq(0, 40, 48, 400)))
    withAllocator { allocator =>
      val original = LegacyFiles.open(golden)
      val file = LegacyFiles.open(split)
      try {
        val want = LegacyFiles.readAll(original, 8192, allocator)
        val fields = file.fileSchema.schema.fields
        val rows = Array[Long](3, 39, 40, 41, 47, 48, 49, 50, 399, 400, 599)
        fields.indices.foreach { c =>
          val scanner = file.scan(fields(c), _ => None)
          scanner.skip(2)
          val v = scanner.take(rows, allocator)
          try assert(rows.indices.map(i => Canonical.cell(v, i)) == rows.toSeq.map(r => want(r.toInt)(c)), fields(c).name)
          finally v.close()
          // after take, next continues behind the last row taken
          val rest = scanner.next(1000, allocator)
          try assert(rest.getValueCount == 0)
          finally rest.close()
        }
        val scanner = file.scan(fields.head, _ => None)
        scanner.skip(45)
        val v = scanner.next(10, allocator)
        try assert((0 until 10).map(i => Canonical.cell(v, i)) == (45 until 55).map(r => want(r)(0)))
        finally v.close()
        intercept[io.sparklance.util.InvalidArgumentException](scanner.take(Array(50L), allocator))
      } finally { original.close(); file.close() }
    }
  }

  test("reading past the end returns an empty vector") {
    withAllocator { allocator =>
      val file = LegacyFiles.open(golden)
      try {
        val s = file.scan(file.fileSchema.schema.fields.head, _ => None)
        s.skip(Long.MaxValue / 2)
        val v = s.next(10, allocator)
        try assert(v.getValueCount == 0) finally v.close()
      } finally file.close()
    }
  }
}
