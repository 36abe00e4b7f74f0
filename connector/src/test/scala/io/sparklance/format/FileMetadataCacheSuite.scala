package io.sparklance.format

import java.io.File
import java.nio.file.{Files, StandardCopyOption}
import java.nio.file.attribute.FileTime

import org.apache.arrow.memory.RootAllocator
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{ScanPlanner, Snapshot}
import io.sparklance.testutil.{Canonical, CountingStore, Golden, HostileCopies}
import io.sparklance.util.LanceException

/**
 * A data file's metadata is parsed once per JVM and shared by every reader of it, and
 * another file written at the same path is never answered from what was kept.
 */
class FileMetadataCacheSuite extends AnyFunSuite {
  private val hadoop = new HadoopObjectStore(new Configuration())

  private def firstFile(dataset: String): File = {
    val snapshot = Snapshot.open(hadoop, Golden.dataset(dataset).uri, None)
    new File(ScanPlanner.plan(hadoop, snapshot).head.files.head.path.stripPrefix("file:"))
  }

  /** `from` copied to `to`, its modification time set to `at` seconds. */
  private def place(from: File, to: File, at: Long): Unit = {
    Files.copy(from.toPath, to.toPath, StandardCopyOption.REPLACE_EXISTING)
    Files.setLastModifiedTime(to.toPath, FileTime.fromMillis(at * 1000))
  }

  /** The file's column metadata and row count, and the bytes the open fetched. */
  private def open(store: CountingStore, path: File): (Long, IndexedSeq[ColumnInfo], Long) = {
    store.reset()
    val r = LanceFileReader.open(store, path.getPath)
    try { (r.numRows, r.columns, store.bytesRead("")) } finally r.close()
  }

  test("a second open of the same file reads nothing; the same parsed metadata serves both") {
    val dir = HostileCopies.tempDir("lance-metadata-cache")
    val path = new File(dir, "a.lance")
    place(firstFile("basic_types"), path, 1000)
    val store = new CountingStore(hadoop)
    val (rows, columns, fetched) = open(store, path)
    assert(fetched > 0 && rows > 0)
    val (rows2, columns2, fetched2) = open(store, path)
    assert(fetched2 == 0 && rows2 == rows && (columns2 eq columns))
  }

  test("another file at the same path is parsed afresh: another size, or the same size written later") {
    val dir = HostileCopies.tempDir("lance-metadata-cache")
    val path = new File(dir, "a.lance")
    val (a, b) = (firstFile("basic_types"), firstFile("many_pages_v2_2"))
    assert(a.length != b.length)
    val store = new CountingStore(hadoop)
    place(a, path, 1000)
    val (_, columnsA, _) = open(store, path)
    place(b, path, 1000)
    val (rowsB, columnsB, fetchedB) = open(store, path)
    val expected = { val r = LanceFileReader.open(hadoop, b.getPath); try { (r.numRows, r.columns) } finally r.close() }
    // Encodings hold arrays, which compare by reference: compare where the pages lie.
    def layout(rows: Long, columns: IndexedSeq[ColumnInfo]) = (rows, columns.map(_.pages.map(p => (p.bufferOffsets, p.bufferSizes, p.numRows))))
    val (differs, isB) = (layout(0, columnsB) != layout(0, columnsA), layout(rowsB, columnsB) == layout(expected._1, expected._2))
    assert(fetchedB > 0 && differs && isB)

    // The same size and other bytes (a damaged footer), written later: refused, not served the good metadata.
    place(b, path, 2000)
    assert(open(store, path)._3 > 0)
    val damaged = Files.readAllBytes(b.toPath)
    java.util.Arrays.fill(damaged, damaged.length - 40, damaged.length - 8, 0xff.toByte)
    Files.write(path.toPath, damaged)
    Files.setLastModifiedTime(path.toPath, FileTime.fromMillis(3000 * 1000))
    val e = intercept[LanceException](open(store, path))
    assert(e.errorClass == "LANCE_CORRUPT_FILE")
  }

  test("readers of one cached file in several threads at once read the same rows") {
    val snapshot = Snapshot.open(hadoop, Golden.dataset("basic_types_large").uri, None)
    val task = ScanPlanner.plan(hadoop, snapshot).head
    val fields = snapshot.manifest.schema.fields
    def readAll(): IndexedSeq[IndexedSeq[Any]] = {
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val scanner = new io.sparklance.table.FragmentScanner(hadoop, task, fields, 1000, allocator)
        try scanner.flatMap(r => try Canonical.rows(r) finally r.close()).toIndexedSeq finally scanner.close()
      } finally allocator.close()
    }
    val expected = readAll()
    val pool = java.util.concurrent.Executors.newFixedThreadPool(4)
    try {
      val futures = (0 until 8).map(_ => pool.submit(() => readAll()))
      futures.foreach(f => assert(f.get() == expected))
    } finally pool.shutdown()
  }
}
