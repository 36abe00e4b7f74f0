package io.sparklance.format.v20

import java.io.RandomAccessFile
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.{Files, Path, StandardCopyOption}

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.LanceFileReader
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{FragmentScanner, ScanFile, ScanPlanner, Snapshot}
import io.sparklance.testutil.Golden
import io.sparklance.util.{CorruptFileException, LanceException}

/**
 * Damaged copies of a pylance 2.0 data file: offsets, indices and dictionary keys that point
 * outside their pages fail with CorruptFile, and no single flipped byte anywhere in the file
 * makes the reader fail with anything but a LanceException (or leak a buffer).
 */
class V20CorruptionSuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())

  private def withCopy(name: String)(body: String => Unit): Unit = {
    val src = Path.of(Golden.dataset(name).uri)
    val dst = Files.createTempDirectory("v20-corrupt")
    try {
      Files.walk(src).iterator.asScala.foreach { p =>
        val t = dst.resolve(src.relativize(p).toString)
        if (Files.isDirectory(p)) Files.createDirectories(t) else Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING)
      }
      body(dst.toString)
    } finally Files.walk(dst).iterator.asScala.toSeq.reverse.foreach(Files.delete)
  }

  /** Reads every row of every field of the dataset's latest version. */
  private def readAll(uri: String): Unit = {
    val allocator = new RootAllocator(Long.MaxValue)
    try {
      val snapshot = Snapshot.open(store, uri, None)
      ScanPlanner.plan(store, snapshot).foreach { task =>
        val scanner = new FragmentScanner(store, task, snapshot.manifest.schema.fields, 256, allocator)
        try scanner.foreach(_.close()) finally scanner.close()
      }
    } finally allocator.close() // fails if a failed read leaked a buffer
  }

  /** The first data file and where page 0 of `field`'s column (or its `depth`-th descendant's) keeps buffer `buffer`. */
  private def pageBuffer(uri: String, field: String, buffer: Int, childDepth: Int = 0): (ScanFile, Long, Long) = {
    val snapshot = Snapshot.open(store, uri, None)
    val f = snapshot.manifest.schema.field(field).get
    val target = Iterator.iterate(f)(_.children.head).drop(childDepth).next()
    val file = ScanPlanner.plan(store, snapshot).head.files.head
    val reader = LanceFileReader.open(store, file.path)
    try {
      val page = reader.columns(file.columnOf(target.id).get).pages(0)
      (file, page.bufferOffsets(buffer), page.bufferSizes(buffer))
    } finally reader.close()
  }

  private def patch(path: String, offset: Long, bytes: Array[Byte]): Unit = {
    val f = new RandomAccessFile(path, "rw")
    try { f.seek(offset); f.write(bytes) } finally f.close()
  }

  private def u64(v: Long): Array[Byte] = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array()

  private def expectCorrupt(uri: String): Unit = {
    val e = intercept[CorruptFileException](readAll(uri))
    assert(e.errorClass == "LANCE_CORRUPT_FILE")
  }

  test("a list offset beyond the page's items is corrupt") {
    withCopy("types_v2_0") { uri =>
      val (file, off, _) = pageBuffer(uri, "list_int32_col", 0)
      patch(file.path, off, u64(0x00ffffffL))
      expectCorrupt(uri)
    }
  }

  test("list offsets that decrease are corrupt") {
    withCopy("types_v2_0") { uri =>
      val (file, off, _) = pageBuffer(uri, "list_int32_col", 0)
      patch(file.path, off, u64(50) ++ u64(3))
      expectCorrupt(uri)
    }
  }

  test("a binary end offset beyond the bytes buffer is corrupt") {
    withCopy("types_v2_0") { uri =>
      val (file, off, _) = pageBuffer(uri, "string_col", 0)
      patch(file.path, off, u64(0x7ffffff0L))
      expectCorrupt(uri)
    }
  }

  test("a dictionary index beyond the dictionary is corrupt") {
    withCopy("types_v2_0") { uri =>
      // large_list<string> of 8 words: the item column is dictionary-encoded (u8 keys in buffer 0).
      val (file, off, _) = pageBuffer(uri, "large_list_string_col", 0, childDepth = 1)
      patch(file.path, off, Array(250.toByte))
      expectCorrupt(uri)
    }
  }

  test("a flipped byte anywhere in a data file is read or refused with a LanceException") {
    withCopy("types_v2_0") { uri =>
      readAll(uri)
      val path = ScanPlanner.plan(store, Snapshot.open(store, uri, None)).head.files.head.path
      val original = Files.readAllBytes(Path.of(path))
      val rnd = new scala.util.Random(2020)
      (0 until 300).foreach { k =>
        // Half the flips hit the metadata at the end, where one bit changes a count or an encoding.
        val pos = if (k % 2 == 0) rnd.nextInt(original.length) else original.length - 1 - rnd.nextInt(math.min(original.length, 8192))
        val damaged = original.clone()
        damaged(pos) = (damaged(pos) ^ (1 << rnd.nextInt(8))).toByte
        Files.write(Path.of(path), damaged)
        try readAll(uri)
        catch {
          case _: LanceException =>
          case e: Throwable => fail(s"flip at byte $pos of ${original.length}: ${e.getClass.getName}: ${e.getMessage}", e)
        }
      }
      Files.write(Path.of(path), original)
    }
  }
}
