package io.sparklance.format.legacy

import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.Files

import org.apache.arrow.memory.RootAllocator
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.{DataFileReader, FileVersion}
import io.sparklance.util.{CorruptFileException, LanceException}

/**
 * Damaged legacy files fail with a CorruptFile error naming the file (never an NPE, an
 * IndexOutOfBounds or an out-of-memory), whether the damage is in the footer, the metadata,
 * the page table or a page.
 */
class LegacyCorruptionSuite extends AnyFunSuite {
  private lazy val dir = Files.createTempDirectory("legacy-corrupt")
  private lazy val golden = LegacyFiles.dataFiles("types_legacy", 1).head._1
  private lazy val original = LegacyFiles.bytes(golden)

  /** Opens the file and reads every field and statistic of it, in slices of `slice` rows. */
  private def readEverything(path: String, slice: Int = 100): Unit = {
    // Bounded: a length taken from damaged bytes must never turn into a huge allocation.
    val allocator = new RootAllocator(1L << 30)
    try {
      val file = DataFileReader.open(LegacyFiles.store, path, None, FileVersion.Legacy).asInstanceOf[LegacyFileReader]
      try {
        LegacyFiles.readAll(file, slice, allocator)
        file.fileSchema.schema.fields.flatMap(_.preOrder).foreach(f => file.pageStatistics(f.id))
      } finally file.close()
    } finally allocator.close()
  }

  private var counter = 0
  private def corrupt(bytes: Array[Byte]): String = {
    counter += 1
    LegacyFiles.write(dir, s"c$counter.lance", bytes)
  }

  private def expectCorrupt(bytes: Array[Byte]): CorruptFileException = {
    val path = corrupt(bytes)
    val e = intercept[CorruptFileException](readEverything(path))
    assert(e.errorClass == "LANCE_CORRUPT_FILE")
    assert(e.getMessage.contains(path), e.getMessage)
    e
  }

  private def patchLong(bytes: Array[Byte], at: Long, v: Long): Array[Byte] = {
    val out = bytes.clone()
    ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).putLong(at.toInt, v)
    out
  }

  private def withFile[T](f: LegacyFileReader => T): T = {
    val file = LegacyFiles.open(golden)
    try f(file) finally file.close()
  }

  /** Byte offset of the page table entry (position; +8 length) of `fieldId` in batch 0. */
  private def entry(file: LegacyFileReader, fieldId: Int): Long =
    file.metadata.pageTablePosition + 16L * (fieldId - file.pageTable.minFieldId) * file.numBatches

  private def fieldId(name: String): Int = withFile(_.fileSchema.schema.byId.values.find(_.name == name).get.id)

  test("the unchanged golden file reads") {
    readEverything(corrupt(original))
  }

  test("truncated files") {
    val n = original.length
    Seq(0, 1, 15, 16, 17, n / 3, n / 2, n - 17, n - 16, n - 1).distinct.foreach { len =>
      expectCorrupt(java.util.Arrays.copyOf(original, len))
    }
  }

  test("bad magic and a footer version that is not legacy") {
    val noMagic = original.clone(); noMagic(noMagic.length - 1) = 'X'.toByte
    assert(expectCorrupt(noMagic).getMessage.contains("LANC"))
    val v2 = original.clone()
    ByteBuffer.wrap(v2).order(ByteOrder.LITTLE_ENDIAN).putShort(v2.length - 8, 2.toShort).putShort(v2.length - 6, 1.toShort)
    assert(expectCorrupt(v2).getMessage.contains("2.1"))
  }

  test("metadata position outside the file or overlapping the footer") {
    Seq(-1L, original.length.toLong, original.length - 16L, Long.MaxValue).foreach { pos =>
      expectCorrupt(patchLong(original, original.length - 16L, pos))
    }
  }

  test("page table entries pointing outside the file") {
    val (posAt, lenAt) = withFile { f => val e = entry(f, fieldId("int64_col")); (e, e + 8) }
    expectCorrupt(patchLong(original, posAt, original.length + 100L))
    expectCorrupt(patchLong(original, posAt, -8L))
    expectCorrupt(patchLong(original, lenAt, 1L << 40))
    expectCorrupt(patchLong(original, lenAt, -1L))
    // A position inside the file whose page runs past its end.
    val e = expectCorrupt(patchLong(original, posAt, original.length - 40L))
    assert(e.getMessage.contains("outside"), e.getMessage)
    // A page shorter than its batch.
    expectCorrupt(patchLong(original, lenAt, 10L))
  }

  test("var-binary positions that go backwards, are negative or leave the file") {
    val positionsAt = withFile(f => f.pageTable.page(fieldId("string_col"), 0).position)
    expectCorrupt(patchLong(original, positionsAt + 8, -5L))
    expectCorrupt(patchLong(original, positionsAt + 16, 1L))
    expectCorrupt(patchLong(original, positionsAt + 8 * 600, Long.MaxValue / 2))
  }

  test("list offsets that go backwards or past the child page") {
    val offsetsAt = withFile(f => f.pageTable.page(fieldId("list_int32_col"), 0).position)
    val back = original.clone()
    ByteBuffer.wrap(back).order(ByteOrder.LITTLE_ENDIAN).putInt(offsetsAt.toInt + 8, 0).putInt(offsetsAt.toInt + 4, 1000)
    expectCorrupt(back)
    val far = original.clone()
    ByteBuffer.wrap(far).order(ByteOrder.LITTLE_ENDIAN).putInt(offsetsAt.toInt + 4 * 600, Int.MaxValue)
    expectCorrupt(far)
  }

  test("a dictionary key outside the dictionary") {
    val keysAt = withFile(f => f.pageTable.page(fieldId("dictionary_col"), 0).position)
    val bad = original.clone()
    ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putInt(keysAt.toInt, 99)
    assert(expectCorrupt(bad).getMessage.contains("dictionary key 99"))
    ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putInt(keysAt.toInt, -1)
    expectCorrupt(bad)
  }

  test("flipped bytes in the metadata, schema, page tables and statistics never escape as other errors") {
    val (from, to) = withFile(f => (f.metadata.pageTablePosition, original.length.toLong))
    var failures = 0
    var reads = 0
    // About 150 bytes spread over the region, plus every byte of the footer.
    val targets = ((from until to by math.max(1L, (to - from) / 150)) ++ (to - 16 until to)).distinct
    targets.foreach { at =>
      val flipped = original.clone()
      flipped(at.toInt) = (flipped(at.toInt) ^ 0x5a).toByte
      val path = LegacyFiles.write(dir, "flip.lance", flipped)
      try { readEverything(path, slice = 8192); reads += 1 }
      catch {
        case _: LanceException => failures += 1
        case t: Throwable => fail(s"byte $at flipped: ${t.getClass.getName}: ${t.getMessage}", t)
      }
    }
    assert(failures > 0 && reads > 0, s"$failures failures, $reads clean reads")
  }
}
