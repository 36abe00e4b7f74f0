package io.sparklance.format

import java.io.File
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{ScanPlanner, Snapshot}
import io.sparklance.testutil.{CountingStore, Golden}
import io.sparklance.util.LanceException

/**
 * Opening a data file reads only what its metadata needs: a damaged position or length in
 * the footer, the global buffer table or the column metadata offset table (zero above all)
 * never makes the reader fetch the file from there to its end.
 */
class MetadataReadBoundsSuite extends AnyFunSuite {
  private val hadoop = new HadoopObjectStore(new Configuration())

  /** Bytes fetched to open `bytes` as a data file, and whether it opened (or failed with our error). */
  private def open(bytes: Array[Byte]): (Long, Boolean) = {
    val f = File.createTempFile("bounds", ".lance")
    try {
      Files.write(f.toPath, bytes)
      val store = new CountingStore(hadoop)
      val opened =
        try { LanceFileReader.open(store, f.getPath).close(); true }
        catch { case _: LanceException => false }
      (store.bytesRead(""), opened)
    } finally f.delete()
  }

  private lazy val original: Array[Byte] = {
    val snapshot = Snapshot.open(hadoop, Golden.dataset("many_pages_v2_2").uri, None)
    val file = ScanPlanner.plan(hadoop, snapshot).head.files.head.path
    Files.readAllBytes(new File(file.stripPrefix("file:")).toPath)
  }

  private def le(bytes: Array[Byte]) = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)

  /** A copy of the file with the u64 at `at(copy)` set to `value`. */
  private def patched(at: ByteBuffer => Int, values: (Int, Long)*): Array[Byte] = {
    val copy = original.clone()
    val b = le(copy)
    val base = at(b)
    values.foreach { case (rel, v) => b.putLong(base + rel, v) }
    copy
  }

  private def footer(b: ByteBuffer, field: Int): Long = b.getLong(b.limit() - 40 + 8 * field)

  test("a damaged position or length of zero reads no more than the metadata needs") {
    val n = original.length
    assert(n > 4 * 1024 * 1024)
    val (intact, ok) = open(original)
    assert(ok)
    assert(intact < n / 8, s"an intact open fetched $intact of $n bytes")
    val cases = Seq(
      "global buffer 0 at 0, length 0" -> patched(b => footer(b, 2).toInt, 0 -> 0L, 8 -> 0L),
      "global buffer 0 at 0, its length kept" -> patched(b => footer(b, 2).toInt, 0 -> 0L),
      "column_meta_start 0" -> patched(b => b.limit() - 40, 0 -> 0L),
      "column_meta_start 0, column 0 metadata at 0, length 0" ->
        patched(b => b.limit() - 40, 0 -> 0L).pipe { c => le(c).putLong(footer(le(c), 1).toInt, 0L).putLong(footer(le(c), 1).toInt + 8, 0L); c },
      "column_meta_start 0, last column metadata at 0, length 0" ->
        patched(b => b.limit() - 40, 0 -> 0L).pipe { c =>
          val b = le(c); val last = footer(b, 2).toInt - 16; b.putLong(last, 0L).putLong(last + 8, 0L); c
        })
    cases.foreach { case (what, bytes) =>
      val (fetched, _) = open(bytes)
      assert(fetched <= intact + 64 * 1024, s"$what: fetched $fetched bytes of $n (an intact open fetches $intact)")
    }
  }

  private implicit class Pipe[A](a: A) { def pipe[B](f: A => B): B = f(a) }
}
