package io.sparklance.table.write

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.{BigIntVector, VarCharVector, VectorSchemaRoot}
import org.apache.arrow.vector.types.pojo.{ArrowType, Schema}
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.format.{FileVersion, LanceSchema}
import io.sparklance.format.write.FileWriterOptions
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.Fragment
import io.sparklance.testutil.{ArrowData, Golden, PylanceFiles}
import io.sparklance.util.LanceException
import io.sparklance.util.ScalaCompat._

/** Data files as a write lays them out: names, rolling by rows and by bytes, fragment metadata, abort. */
class FragmentWriterSuite extends AnyFunSuite {

  private val allocator = new RootAllocator(Long.MaxValue)
  private val arrow = new Schema(java.util.Arrays.asList(
    ArrowData.required("id", new ArrowType.Int(64, true)), ArrowData.field("s", ArrowType.Utf8.INSTANCE)))
  private val lance = LanceSchema.fromArrow(arrow, "test")
  private val NamePattern = "[01]{24}[0-9a-f]{26}\\.lance".r

  private def tempRoot(): File = Files.createTempDirectory("fragment-writer").toFile

  /** Rows `[from, from + n)`: id, and a string of 20 to 59 characters (null every 7th row). */
  private def batch(from: Long, n: Int): VectorSchemaRoot = {
    val root = ArrowVectors.root(arrow, allocator)
    val id = root.getVector(0).asInstanceOf[BigIntVector]
    val s = root.getVector(1).asInstanceOf[VarCharVector]
    (0 until n).foreach { i =>
      val r = from + i
      id.setSafe(i, r)
      if (r % 7 == 3) s.setNull(i) else s.setSafe(i, (s"row-$r-" + "x" * (20 + (r % 40).toInt)).getBytes("UTF-8"))
    }
    root.setRowCount(n)
    root
  }

  /** The data files under `root`, and the temporary files of the store's open sinks (names starting with '.'). */
  private def dataFiles(root: File): Seq[String] =
    Option(new File(root, "data").list()).map(_.toSeq.sorted).getOrElse(Nil)
  private def finishedFiles(root: File): Seq[String] = dataFiles(root).filterNot(_.startsWith("."))

  /** pylance reads each fragment's file as the rows the fragments say it holds, in order. */
  private def assertPylanceReads(root: File, fragments: Seq[Fragment], work: File): Unit = {
    var first = 0L
    val pairs = fragments.zipWithIndex.map { case (f, k) =>
      val expected = new File(work, s"expected-$k.arrow")
      val b = batch(first, f.physicalRows.toInt)
      try PylanceFiles.writeExpected(Seq(b), expected) finally b.close()
      first += f.physicalRows
      expected -> new File(new File(root, "data"), f.files.head.path)
    }
    PylanceFiles.assertAllEqual(pairs)
  }

  test("rolls to a new file, a new fragment, at maxRowsPerFile, splitting a batch between files") {
    val work = tempRoot()
    for (version <- Seq(FileVersion.V2_0, FileVersion.V2_1, FileVersion.V2_2)) {
      val root = new File(work, s"t-$version")
      val store = new HadoopObjectStore(new Configuration())
      val w = new FragmentWriter(store, root.getPath, lance, FragmentWriterOptions(FileWriterOptions(version), maxRowsPerFile = 2500))
      (0 until 10).foreach { k => val b = batch(k * 700L, 700); try w.write(b) finally b.close() }
      val fragments = w.finish()
      assert(fragments.map(_.physicalRows) == Seq(2500L, 2500L, 2000L))
      assert(w.rowsWritten == 7000 && w.filesWritten == 3)
      val expectedVersion = version match { case FileVersion.V2_0 => (2, 0); case FileVersion.V2_1 => (2, 1); case _ => (2, 2) }
      fragments.foreach { f =>
        assert(f.id == 0 && f.deletionFile.isEmpty && f.rowIds.isEmpty && f.files.length == 1)
        val d = f.files.head
        assert(NamePattern.matches(d.path), d.path)
        assert(d.fields == IndexedSeq(0, 1) && d.columnIndices == IndexedSeq(0, 1))
        assert((d.majorVersion, d.minorVersion) == expectedVersion)
        assert(d.baseId.isEmpty)
        assert(d.fileSizeBytes == new File(new File(root, "data"), d.path).length)
      }
      assert(w.bytesWritten == fragments.map(_.files.head.fileSizeBytes).sum)
      assert(dataFiles(root) == fragments.map(_.files.head.path).sorted, "no other file (no temporary) is left")
      assertPylanceReads(root, fragments, work)
    }
  }

  test("rolls at maxBytesPerFile once a file's written bytes reach it, as Rust checks tell() after each batch") {
    val work = tempRoot()
    val root = new File(work, "t")
    val limit = 48L * 1024
    val w = new FragmentWriter(new HadoopObjectStore(new Configuration()), root.getPath, lance,
      FragmentWriterOptions(FileWriterOptions(pageBytes = 1024), maxBytesPerFile = limit))
    val batchRows = 200
    (0 until 40).foreach { k => val b = batch(k * batchRows.toLong, batchRows); try w.write(b) finally b.close() }
    val fragments = w.finish()
    assert(fragments.length > 2)
    assert(fragments.map(_.physicalRows).sum == 8000)
    // Files end at a batch boundary, at least `limit` bytes except the last, and not a whole batch past it
    // (a batch of 200 rows is about 12 KiB of values; the file's metadata adds a little).
    assert(fragments.forall(_.physicalRows % batchRows == 0))
    fragments.init.foreach(f => assert(f.files.head.fileSizeBytes >= limit, f))
    fragments.foreach(f => assert(f.files.head.fileSizeBytes < limit + 16 * 1024, f))
    assertPylanceReads(root, fragments, work)
  }

  test("abort removes the finished files and the open one; discard removes the files of uncommitted fragments") {
    val work = tempRoot()
    val root = new File(work, "t")
    val store = new HadoopObjectStore(new Configuration())
    val w = new FragmentWriter(store, root.getPath, lance, FragmentWriterOptions(maxRowsPerFile = 1000))
    (0 until 5).foreach { k => val b = batch(k * 450L, 450); try w.write(b) finally b.close() }
    assert(w.filesWritten == 2)
    assert(finishedFiles(root).length == 2 && dataFiles(root).length == 3, "two files finished, a third (hidden, temporary) open")
    w.abort()
    assert(dataFiles(root).isEmpty, "no file, finished or temporary, is left")
    assert(intercept[IllegalStateException](w.write(batch(0, 1))).getMessage.contains("aborted"))

    val w2 = new FragmentWriter(store, root.getPath, lance, FragmentWriterOptions(maxRowsPerFile = 1000))
    val b = batch(0, 2500)
    try w2.write(b) finally b.close()
    val fragments = w2.finish()
    assert(dataFiles(root).length == 3)
    FragmentWriter.discard(store, root.getPath, fragments.take(2))
    assert(dataFiles(root) == Seq(fragments(2).files.head.path))
    FragmentWriter.discard(store, root.getPath, fragments) // a file already gone is no error
    assert(dataFiles(root).isEmpty)
  }

  test("a failed write aborts: a refused batch leaves no file") {
    val root = new File(tempRoot(), "t")
    val w = new FragmentWriter(new HadoopObjectStore(new Configuration()), root.getPath, lance, FragmentWriterOptions(maxRowsPerFile = 100))
    val good = batch(0, 150)
    try w.write(good) finally good.close()
    val bad = ArrowVectors.root(new Schema(java.util.Arrays.asList(ArrowData.field("id", new ArrowType.Int(32, true)))), allocator)
    bad.getVector(0).asInstanceOf[org.apache.arrow.vector.IntVector].setSafe(0, 1)
    bad.setRowCount(1)
    try intercept[LanceException](w.write(bad)) finally bad.close()
    assert(dataFiles(root).isEmpty)
  }

  test("file names are pylance's: 24 binary digits then 26 hex digits of a version-4 UUID") {
    val names = Seq.fill(2000)(FragmentWriter.newFileName())
    assert(names.distinct.length == names.length)
    names.foreach(n => assert(NamePattern.matches(n), n))
    // The UUID's version nibble is the high half of its byte 6, the 4th byte of the hex part.
    assert(names.forall(_.charAt(24 + 6) == '4'))
    val golden = new File(Golden.root, "types_v2_2/dataset/data").list()
    assert(golden.nonEmpty)
    golden.foreach(n => assert(NamePattern.matches(n), n))
  }

  test("a write of no rows (or of empty batches) makes no file and no fragment, as Rust's") {
    val root = new File(tempRoot(), "t")
    val w = new FragmentWriter(new HadoopObjectStore(new Configuration()), root.getPath, lance, FragmentWriterOptions())
    val empty = batch(0, 0)
    try w.write(empty) finally empty.close()
    assert(w.finish().isEmpty && w.filesWritten == 0 && w.bytesWritten == 0)
    assert(dataFiles(root).isEmpty)
  }

  test("options are checked") {
    assert(intercept[LanceException](FragmentWriterOptions(maxRowsPerFile = 0)).errorClass == "LANCE_INVALID_OPTION")
    assert(intercept[LanceException](FragmentWriterOptions(maxRowsPerFile = 1L << 32)).errorClass == "LANCE_INVALID_OPTION")
    assert(intercept[LanceException](FragmentWriterOptions(maxBytesPerFile = 0)).errorClass == "LANCE_INVALID_OPTION")
    assert(FragmentWriterOptions().maxBytesPerFile == 90L * 1024 * 1024 * 1024)
  }
}
