package io.sparklance.format.legacy

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.{BufferAllocator, RootAllocator}
import org.apache.arrow.vector.types.pojo.{Field, FieldType, Schema}
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.{DataFileReader, FileVersion, LanceField}
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{ScanPlanner, ScanTask, Snapshot}
import io.sparklance.testutil.{ArrowIpc, Canonical, Golden}

/**
 * Every version of every legacy (0.1) golden dataset, read through [[LegacyFileReader]], equals
 * row by row what pylance 14.0.2 read from it (expected/v<N>.arrow).
 */
class LegacyGoldenSuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())

  /** Every golden dataset written in the legacy format (info.json says data_storage_version 0.1). */
  private lazy val datasets: Seq[String] =
    Option(Golden.root.listFiles()).toSeq.flatten.filter { d =>
      val info = new File(d, "info.json")
      info.isFile && "\"data_storage_version\"\\s*:\\s*\"0\\.1\"".r.findFirstIn(new String(Files.readAllBytes(info.toPath), "UTF-8")).isDefined
    }.map(_.getName).sorted

  /** Reads the rows of one scan task, `batchRows` at a time, straight from the data files. */
  private def readTask(task: ScanTask, fields: IndexedSeq[LanceField], batchRows: Int, allocator: BufferAllocator): IndexedSeq[IndexedSeq[Any]] = {
    assert(task.files.forall(_.version == FileVersion.Legacy))
    val readers = task.files.map(f => f.path -> DataFileReader.open(store, f.path, Some(f.sizeBytes), f.version)).toMap
    try {
      val scanners = fields.map { field =>
        // Legacy DataFiles list field ids but no column indices.
        val file = task.files.find(_.fieldIds.contains(field.id)).getOrElse(fail(s"no file holds field ${field.name}"))
        assert(readers(file.path).numRows == task.physicalRows)
        val s = readers(file.path).scan(field, file.columnOf)
        s.skip(task.rowStart)
        s
      }
      val out = IndexedSeq.newBuilder[IndexedSeq[Any]]
      var at = task.rowStart
      while (at < task.rowEnd) {
        val n = math.min(batchRows.toLong, task.rowEnd - at).toInt
        val vectors = scanners.map(_.next(n, allocator))
        try {
          vectors.foreach(v => assert(v.getValueCount == n))
          (0 until n).foreach(i => out += vectors.map(v => Canonical.cell(v, i)))
        } finally vectors.foreach(_.close())
        at += n
      }
      out.result()
    } finally readers.values.foreach(_.close())
  }

  /** pylance's schema and rows, with dictionary columns decoded to their values (as we read them). */
  private def expected(file: File, allocator: BufferAllocator): (Schema, IndexedSeq[IndexedSeq[Any]]) = {
    val reader = ArrowIpc.reader(Files.newByteChannel(file.toPath), allocator)
    try {
      val schema = reader.getVectorSchemaRoot.getSchema
      val rows = reader.getRecordBlocks.asScala.toIndexedSeq.flatMap { block =>
        reader.loadRecordBatch(block)
        Canonical.rows(reader.getVectorSchemaRoot, reader)
      }
      // Arrow Java gives a dictionary field its index type; the value type is on the dictionary.
      val valueFields = schema.getFields.asScala.map { f =>
        Option(f.getDictionary).fold(f) { enc =>
          val values = reader.getDictionaryVectors.get(enc.getId).getVector.getField
          new Field(f.getName, new FieldType(f.isNullable, values.getType, null, f.getMetadata), values.getChildren)
        }
      }
      (new Schema(valueFields.asJava), rows)
    } finally reader.close()
  }

  private def check(name: String, batchRows: Int): Unit = {
    val ds = Golden.dataset(name)
    assert(ds.versions.nonEmpty, s"$name has no versions")
    ds.versions.foreach { v =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val (schema, want) = expected(ds.expectedFile(v), allocator)
        val snapshot = Snapshot.open(store, ds.uri, Some(v))
        val fields = snapshot.manifest.schema.fields
        assert(snapshot.manifest.schema.toArrow("test").getFields.toString == schema.getFields.toString, s"$name v$v schema")
        val got = ScanPlanner.plan(store, snapshot).flatMap(t => readTask(t, fields, batchRows, allocator))
        assert(got.length == want.length, s"$name v$v row count")
        got.indices.foreach { i =>
          (0 until fields.length).foreach { c =>
            if (got(i)(c) != want(i)(c))
              fail(s"$name v$v row $i column '${fields(c).name}' differs:\n ours:    ${got(i)(c)}\n pylance: ${want(i)(c)}")
          }
        }
      } finally allocator.close() // fails if a buffer leaked
    }
  }

  test("the legacy golden datasets are there") {
    assert(datasets.contains("types_legacy") && datasets.contains("wide_vectors_legacy"), datasets)
  }

  test("a legacy file opens whatever size the manifest records for it") {
    // pylance 0.39 to 4.0 record a legacy file's size before its metadata and footer are
    // written; Lance asks storage instead, and so must we. Sizes too small, too large, 0, none.
    // (TableHistorySuite compares every version of those datasets with pylance 14's rows.)
    val files = Seq("old/0.39.0/legacy", "old/1.0.4/legacy", "old/4.0.2/legacy", "types_legacy").map { name =>
      val snapshot = Snapshot.open(store, Golden.dataset(name).uri, Some(1))
      ScanPlanner.plan(store, snapshot).head.files.head
    }
    files.foreach { f =>
      val actual = new File(f.path).length
      assert(f.sizeBytes == 0 || f.sizeBytes == actual || f.sizeBytes < actual - 16, s"${f.path}: recorded ${f.sizeBytes}, actual $actual")
      Seq(Some(f.sizeBytes), Some(actual - 600), Some(actual + 4096), Some(0L), None).foreach { recorded =>
        val reader = DataFileReader.open(store, f.path, recorded, FileVersion.Legacy)
        try assert(reader.numRows > 0 && reader.asInstanceOf[LegacyFileReader].fileSize == actual, s"${f.path} recorded as $recorded")
        finally reader.close()
      }
    }
    assert(files.take(3).forall(f => f.sizeBytes > 0 && f.sizeBytes < new File(f.path).length), "the newer releases' sizes are short")
  }

  test("every legacy golden dataset equals pylance, every version") {
    datasets.foreach(check(_, 8192))
  }

  test("every legacy golden dataset equals pylance when read in odd slices") {
    datasets.foreach(check(_, 37))
  }

  test("a zero-length value of a nullable string field reads as null, as in pylance") {
    // The golden data has no empty strings (pylance would read them back as null), so make one:
    // moving position 2 down to position 1 empties value 1 and widens value 2 over both.
    val (path, _) = LegacyFiles.dataFiles("types_legacy", 1).head
    val original = LegacyFiles.open(path)
    val allocator = new RootAllocator(Long.MaxValue)
    try {
      val field = original.fileSchema.schema.field("string_col").get
      assert(field.nullable)
      val at = original.pageTable.page(field.id, 0).position
      val bytes = LegacyFiles.bytes(path)
      val buf = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN)
      buf.putLong((at + 16).toInt, buf.getLong((at + 8).toInt))
      val patched = LegacyFiles.open(LegacyFiles.write(Files.createTempDirectory("legacy-empty"), "empty.lance", bytes))
      try {
        def firstThree(f: LegacyFileReader) = {
          val v = f.scan(field, _ => None).next(3, allocator)
          try Range(0, 3).map(i => Canonical.cell(v, i)) finally v.close()
        }
        val before = firstThree(original)
        assert(before.forall(v => v != null && v.toString.nonEmpty))
        assert(firstThree(patched) == Seq(before(0), null, before(1).toString + before(2).toString))
      } finally patched.close()
    } finally { original.close(); allocator.close() }
  }
}
