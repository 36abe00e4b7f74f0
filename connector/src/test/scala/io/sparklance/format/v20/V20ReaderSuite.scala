package io.sparklance.format.v20

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import org.apache.arrow.memory.RootAllocator
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.{FileVersion, LanceField, LanceFileReader}
import io.sparklance.format.proto.V20TestFile
import io.sparklance.format.proto.V20TestFile.{Column, Page, SchemaField}
import io.sparklance.format.v20.{ArrayEncoding => AE}
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.testutil.Canonical
import io.sparklance.util.CorruptFileException

/**
 * The 2.0 readers over hand-made files whose pages are shaped as pylance rarely shapes them:
 * short pages, an empty page, list item pages that do not line up with the offsets pages,
 * a struct whose children page differently from its header. Batches of every size, skips
 * and takes from every position must give the same rows; whole pages are skipped unread.
 */
class V20ReaderSuite extends AnyFunSuite {
  import PageBytes._

  private val store = new HadoopObjectStore(new Configuration())

  private def i32Page(values: Seq[Option[Int]]): Page =
    if (values.forall(_.isDefined)) Page(AE.NoNulls(flat(32, 0)), Seq(le(4, values.map(_.get.toLong): _*)), values.length)
    else Page(AE.SomeNulls(flat(1, 0), flat(32, 1)), Seq(bitmap(values.map(_.isDefined): _*), le(4, values.map(_.getOrElse(0).toLong): _*)), values.length)

  private def stringPage(values: Seq[Option[String]]): Page = {
    val bytes = values.flatten.mkString.getBytes(UTF_8)
    var end = 0L
    val adj = bytes.length + 1L
    val idx = values.map { v => end += v.map(_.getBytes(UTF_8).length).getOrElse(0); if (v.isDefined) end else end + adj }
    Page(AE.Binary(AE.NoNulls(flat(64, 0)), flat(8, 1), adj), Seq(le(8, idx: _*), bytes), values.length)
  }

  /** Offsets page of lists given by their lengths (None = null list). */
  private def listPage(lengths: Seq[Option[Int]]): Page = {
    val total = lengths.flatten.sum.toLong
    var end = 0L
    val raw = lengths.map { l => end += l.getOrElse(0); if (l.isDefined) end else end + total + 1 }
    Page(AE.ListOffsets(AE.NoNulls(flat(64, 0)), total + 1, total), Seq(le(8, raw: _*)), lengths.length)
  }

  // Ten rows.
  private val n: Seq[Option[Int]] = (0 until 10).map(i => if (i == 5) None else Some(i * 11))
  private val s: Seq[Option[String]] = Seq(Some("a"), None, Some(""), Some("héllo"), Some("x"), Some("yy"), None, Some("z"), Some(""), Some("end"))
  private val lists: Seq[Option[Seq[Int]]] =
    Seq(Some(Seq(0, 1)), None, Some(Seq(2)), Some(Nil), Some(Seq(3, 4, 5)), Some(Seq(6)), None, Some(Seq(7)), Some(Seq(8, 9, 10)), Some(Seq(11)))
  private val a: Seq[Long] = (0 until 10).map(i => 1000L * i - 3)
  private val b: Seq[Boolean] = (0 until 10).map(i => i % 3 == 0)
  private val blobs: Seq[(Long, Long)] = (0 until 10).map(i => if (i == 4) (1L, 0L) else (64L * i, i.toLong))
  private val packed: Seq[(Int, Int)] = (0 until 10).map(i => (i - 5, 200 + i))
  private val dictValues = Seq("red", "green", null)
  private val dictKeys: Seq[Int] = (0 until 10).map(i => i % 3)

  private val fields = Seq(
    SchemaField(0, -1, "n", "int32"),
    SchemaField(1, -1, "s", "string"),
    SchemaField(2, -1, "l", "list"), SchemaField(3, 2, "item", "int16"),
    SchemaField(4, -1, "st", "struct"), SchemaField(5, 4, "a", "int64"), SchemaField(6, 4, "b", "bool"),
    SchemaField(7, -1, "blob", "large_binary", metadata = Map("lance-encoding:blob" -> "true")),
    SchemaField(8, -1, "p", "struct", metadata = Map("lance-encoding:packed" -> "true")),
    SchemaField(9, 8, "x", "int32"), SchemaField(10, 8, "y", "uint8"),
    SchemaField(11, -1, "d", "dict:string:int32:false"))

  /** Field id -> column (packed struct children own none). */
  private val columnOf: Map[Int, Int] = Map(0 -> 0, 1 -> 1, 2 -> 2, 3 -> 3, 4 -> 4, 5 -> 5, 6 -> 6, 7 -> 7, 8 -> 8, 11 -> 9)

  private def columns: Seq[Column] = {
    val items = lists.flatten.flatten
    val packedRows = packed.flatMap { case (x, y) => le(4, x.toLong).toSeq ++ le(1, y.toLong).toSeq }.toArray
    val blobRows = blobs.flatMap { case (p, z) => le(8, p, z).toSeq }.toArray
    val dictItems = stringPage(dictValues.map(Option(_)))
    Seq(
      Column(Seq(i32Page(n.take(4)), i32Page(Nil), i32Page(n.slice(4, 7)), i32Page(n.drop(7)))),
      Column(Seq(stringPage(s.take(6)), stringPage(s.drop(6)))),
      Column(Seq(listPage(lists.take(3).map(_.map(_.length))), listPage(lists.slice(3, 8).map(_.map(_.length))),
        listPage(lists.drop(8).map(_.map(_.length))))),
      Column(Seq(Page(AE.NoNulls(flat(16, 0)), Seq(le(2, items.take(5).map(_.toLong): _*)), 5),
        Page(AE.NoNulls(flat(16, 0)), Seq(le(2, items.drop(5).map(_.toLong): _*)), 7))),
      Column(Seq(Page(AE.SimpleStruct, Nil, 10))),
      Column(Seq(Page(AE.NoNulls(flat(64, 0)), Seq(le(8, a.take(3): _*)), 3), Page(AE.NoNulls(flat(64, 0)), Seq(le(8, a.drop(3): _*)), 7))),
      Column(Seq(Page(AE.NoNulls(flat(1, 0)), Seq(bitmap(b: _*)), 10))),
      Column(Seq(Page(AE.PackedStruct(IndexedSeq(AE.NoNulls(flat(64, 0)), AE.NoNulls(flat(64, 0))), buf(0)), Seq(blobRows), 10)), blob = true),
      Column(Seq(Page(AE.PackedStruct(IndexedSeq(AE.NoNulls(flat(32, 0)), AE.NoNulls(flat(8, 0))), buf(0)), Seq(packedRows), 10))),
      Column(Seq(Page(AE.Dictionary(AE.NoNulls(flat(32, 0)), dictItems.encoding match {
        case AE.Binary(_, _, adj) => AE.Binary(AE.NoNulls(flat(64, 1)), flat(8, 2), adj)
        case other => other
      }, 3), Seq(le(4, dictKeys.map(_.toLong): _*)) ++ dictItems.buffers, 10))))
  }

  /** What each field reads as, in Canonical form. */
  private val expected: Map[String, IndexedSeq[Any]] = Map(
    "n" -> n.map(v => v.map(x => x: Any).orNull).toIndexedSeq,
    "s" -> s.map(_.orNull).toIndexedSeq,
    "l" -> lists.map(_.map(_.map(_.toShort).toIndexedSeq).orNull).toIndexedSeq,
    "st" -> (0 until 10).map(i => Map[String, Any]("a" -> a(i), "b" -> b(i))),
    "blob" -> blobs.map { case (p, z) => Map("position" -> p, "size" -> z) }.toIndexedSeq,
    "p" -> packed.map { case (x, y) => Map[String, Any]("x" -> x, "y" -> y.toByte) }.toIndexedSeq,
    "d" -> dictKeys.map(dictValues(_)).toIndexedSeq)

  private def withFile[A](cols: Seq[Column] = columns, rows: Long = 10, schema: Seq[SchemaField] = fields)(body: LanceFileReader => A): A = {
    val dir = Files.createTempDirectory("v20-reader")
    val path = dir.resolve("f.lance")
    try {
      V20TestFile.write(path, schema, rows, cols)
      val r = LanceFileReader.open(store, path.toString)
      try {
        assert(r.version == FileVersion.V2_0)
        body(r)
      } finally r.close()
    } finally { Files.deleteIfExists(path); Files.delete(dir) }
  }

  private def lanceField(r: LanceFileReader, name: String) =
    LanceField.buildTree(r.descriptor.fields, r.path).find(_.name == name).get

  /** Cells of `name` read after skipping `skip` rows, in batches of `batch`. */
  private def read(r: LanceFileReader, name: String, skip: Int, batch: Int): IndexedSeq[Any] = {
    val allocator = new RootAllocator(Long.MaxValue)
    try {
      val scanner = V20FieldScanners.open(r, lanceField(r, name), columnOf.get)
      scanner.skip(skip.toLong)
      val out = scala.collection.mutable.ArrayBuffer.empty[Any]
      var done = false
      while (!done) {
        val v = scanner.next(batch, allocator)
        try {
          (0 until v.getValueCount).foreach(i => out += Canonical.cell(v, i))
          done = v.getValueCount < batch || out.length + skip == 10
        } finally v.close()
      }
      out.toIndexedSeq
    } finally allocator.close()
  }

  test("every batch size and every start position reads the same rows") {
    withFile() { r =>
      expected.foreach { case (name, rows) =>
        for (batch <- Seq(1, 2, 3, 4, 7, 10, 64); skip <- 0 to 10) {
          val got = read(r, name, skip, batch)
          assert(got == rows.drop(skip), s"$name, skip $skip, batches of $batch")
        }
      }
    }
  }

  test("take returns the given rows, across pages, after a skip") {
    withFile() { r =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        expected.foreach { case (name, rows) =>
          val scanner = V20FieldScanners.open(r, lanceField(r, name), columnOf.get)
          scanner.skip(1)
          val picks = Array(1L, 2L, 3L, 6L, 9L)
          val v = scanner.take(picks, allocator)
          try assert((0 until v.getValueCount).map(Canonical.cell(v, _)) == picks.map(i => rows(i.toInt)).toSeq, name)
          finally v.close()
          intercept[io.sparklance.util.InvalidArgumentException](scanner.take(Array(5L), allocator).close())
        }
      } finally allocator.close()
    }
  }

  test("skipping whole pages reads no page, lists included") {
    withFile() { r =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val nScan = V20FieldScanners.open(r, lanceField(r, "n"), columnOf.get)
        val lScan = V20FieldScanners.open(r, lanceField(r, "l"), columnOf.get)
        val before = r.bytesRead
        nScan.skip(7) // pages of 4, 0 and 3 rows
        lScan.skip(8) // offsets pages of 3 and 5 lists (8 items: the first item page and 3 of the second)
        assert(r.bytesRead == before)
        val v = lScan.next(2, allocator)
        try assert((0 until 2).map(Canonical.cell(v, _)) == expected("l").drop(8))
        finally v.close()
        assert(r.bytesRead > before)
      } finally allocator.close()
    }
  }

  test("the readers' Arrow types: blob descriptors, packed structs and dictionaries as values") {
    withFile() { r =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        def typeOf(name: String): String = {
          val v = V20FieldScanners.open(r, lanceField(r, name), columnOf.get).next(1, allocator)
          try v.getField.toString finally v.close()
        }
        assert(typeOf("blob").contains("Struct<position: Int(64, false), size: Int(64, false)>"))
        assert(typeOf("p").contains("Struct<x: Int(32, true), y: Int(8, false)>"))
        assert(typeOf("d") == "d: Utf8")
      } finally allocator.close()
    }
  }

  test("an empty file reads as empty vectors") {
    val empty = Seq(Column(Nil), Column(Nil), Column(Nil), Column(Nil), Column(Nil), Column(Nil), Column(Nil), Column(Nil, blob = true), Column(Nil), Column(Nil))
    withFile(cols = empty, rows = 0) { r =>
      val allocator = new RootAllocator(Long.MaxValue)
      try expected.keys.foreach { name =>
        val v = V20FieldScanners.open(r, lanceField(r, name), columnOf.get).next(5, allocator)
        try assert(v.getValueCount == 0, name) finally v.close()
      } finally allocator.close()
    }
  }

  private def corruptOpen(cols: Seq[Column], name: String, rows: Long = 10): Unit =
    withFile(cols = cols, rows = rows) { r =>
      val e = intercept[CorruptFileException](V20FieldScanners.open(r, lanceField(r, name), columnOf.get))
      assert(e.errorClass == "LANCE_CORRUPT_FILE")
    }

  test("row counts that disagree are corrupt") {
    corruptOpen(columns, "n", rows = 11)
    // A struct child with fewer rows than its header.
    corruptOpen(columns.updated(6, Column(Seq(Page(AE.NoNulls(flat(1, 0)), Seq(bitmap(b: _*)), 9)))), "st")
    // List pages covering 12 items over an item column of 11.
    corruptOpen(columns.updated(3, Column(Seq(Page(AE.NoNulls(flat(16, 0)), Seq(le(2, 0L to 10L: _*)), 11)))), "l")
  }

  test("a list column page that is not a list, or a page length above 2^63, is corrupt") {
    val notList = columns.updated(2, Column(Seq(i32Page(n))))
    withFile(cols = notList) { r =>
      intercept[CorruptFileException](V20FieldScanners.open(r, lanceField(r, "l"), columnOf.get))
    }
    corruptOpen(columns.updated(0, Column(Seq(i32Page(n).copy(rows = -1L)))), "n")
  }

  test("a column the file does not have, or a missing column, is corrupt") {
    withFile() { r =>
      intercept[CorruptFileException](V20FieldScanners.open(r, lanceField(r, "n"), _ => Some(99)))
      intercept[CorruptFileException](V20FieldScanners.open(r, lanceField(r, "st"), id => if (id == 6) None else columnOf.get(id)))
    }
  }
}
