package io.sparklance.format.v20

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.{BufferAllocator, RootAllocator}
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}
import org.apache.arrow.vector.dictionary.DictionaryEncoder
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{FragmentScanner, ScanPlanner, Snapshot}
import io.sparklance.testutil.{ArrowIpc, Canonical, Golden, TableRows}

/**
 * Every golden dataset written in file format 2.0 reads, through the table layer, into the
 * rows pylance 14.0.2 returned (floats by bits), in batches of any size and by `take`.
 */
class V20GoldenSuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())

  /** Datasets whose info.json says data_storage_version 2.0. */
  private lazy val datasets: Seq[String] =
    Option(Golden.root.listFiles()).toSeq.flatten.filter(_.isDirectory).sortBy(_.getName).flatMap { d =>
      val info = new File(d, "info.json")
      if (!info.isFile) None
      else {
        val text = new String(Files.readAllBytes(info.toPath), "UTF-8")
        if ("\"data_storage_version\"\\s*:\\s*\"2\\.0\"".r.findFirstIn(text).isDefined) Some(d.getName) else None
      }
    }

  /** pylance's rows, with dictionary-typed columns expanded to their values (as we read them). */
  private def expected(file: File, allocator: BufferAllocator): (Seq[Field], IndexedSeq[IndexedSeq[Any]]) = {
    val reader = ArrowIpc.reader(Files.newByteChannel(file.toPath), allocator)
    try {
      val rows = reader.getRecordBlocks.asScala.toIndexedSeq.flatMap { block =>
        reader.loadRecordBatch(block)
        val root = reader.getVectorSchemaRoot
        val vectors = root.getFieldVectors.asScala.toIndexedSeq.map { v =>
          val enc = v.getField.getDictionary
          if (enc == null) (v, false)
          else (DictionaryEncoder.decode(v, reader.getDictionaryVectors.get(enc.getId)).asInstanceOf[FieldVector], true)
        }
        try Range(0, root.getRowCount).map(i => vectors.map { case (v, _) => Canonical.cell(v, i) })
        finally vectors.foreach { case (v, decoded) => if (decoded) v.close() }
      }
      (reader.getVectorSchemaRoot.getSchema.getFields.asScala.toSeq, rows)
    } finally reader.close()
  }

  /** A field's type tree, dictionaries replaced by their value type, names and nullability dropped. */
  private def shape(f: Field, dictionaryValues: Map[Long, ArrowType]): String = {
    val t = Option(f.getDictionary).map(d => dictionaryValues(d.getId)).getOrElse(f.getType)
    val kids = f.getChildren.asScala.map(shape(_, dictionaryValues))
    if (kids.isEmpty) t.toString else s"$t<${kids.mkString(",")}>"
  }

  private def readAll(uri: String, version: Long, allocator: BufferAllocator, batchRows: Int): (Seq[Field], IndexedSeq[IndexedSeq[Any]]) = {
    var schema: Seq[Field] = Nil
    val rows = TableRows.read(store, Snapshot.open(store, uri, Some(version)), allocator, batchRows,
      onBatch = root => schema = root.getSchema.getFields.asScala.toSeq)
    (schema, rows)
  }

  /** Every third row of each fragment (offsets 1, 4, 7, ...), taken, not scanned. */
  private def takeEveryThird(uri: String, version: Long, allocator: BufferAllocator): IndexedSeq[IndexedSeq[Any]] = {
    val snapshot = Snapshot.open(store, uri, Some(version))
    val fields = snapshot.manifest.schema.fields
    ScanPlanner.plan(store, snapshot).flatMap { task =>
      val scanner = new FragmentScanner(store, task, fields, 1000, allocator)
      try {
        val offsets = (task.rowStart + 1 until task.rowEnd by 3).toArray
        val root: VectorSchemaRoot = scanner.take(offsets)
        try Canonical.rows(root) finally root.close()
      } finally scanner.close()
    }
  }

  private def check(name: String, batchRows: Int): Unit = {
    val ds = Golden.dataset(name)
    assert(ds.versions.nonEmpty, s"$name has no versions")
    ds.versions.foreach { v =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val file = ds.expectedFile(v)
        val (expSchema, exp) = expected(file, allocator)
        val dictionaryValues = {
          val r = ArrowIpc.reader(Files.newByteChannel(file.toPath), allocator)
          try r.getDictionaryVectors.asScala.map { case (id, d) => id.longValue -> d.getVector.getField.getType }.toMap
          finally r.close()
        }
        val (schema, actual) = readAll(ds.uri, v, allocator, batchRows)
        assert(actual.length == exp.length, s"$name v$v: row count")
        if (actual.nonEmpty)
          assert(schema.map(shape(_, Map.empty)) == expSchema.map(shape(_, dictionaryValues)), s"$name v$v: Arrow types")
        actual.indices.foreach { i =>
          if (actual(i) != exp(i)) {
            val cols = actual(i).indices.filter(c => actual(i)(c) != exp(i)(c)).map(c => expSchema(c).getName)
            fail(s"$name v$v row $i differs in ${cols.mkString(", ")}:\n ours:    ${actual(i)}\n pylance: ${exp(i)}")
          }
        }
      } finally allocator.close() // fails if any buffer leaked
    }
  }

  private def checkTake(name: String): Unit = {
    val ds = Golden.dataset(name)
    ds.versions.foreach { v =>
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val (_, all) = expected(ds.expectedFile(v), allocator)
        val snapshot = Snapshot.open(store, ds.uri, Some(v))
        val wanted = ScanPlanner.plan(store, snapshot).flatMap { task =>
          val before = ScanPlanner.plan(store, snapshot).takeWhile(_ != task).map(t => t.rowEnd - t.rowStart).sum
          (task.rowStart + 1 until task.rowEnd by 3).map(o => (before + o - task.rowStart).toInt)
        }
        val actual = takeEveryThird(ds.uri, v, allocator)
        assert(actual == wanted.map(all), s"$name v$v: taken rows differ")
      } finally allocator.close()
    }
  }

  test("golden 2.0 datasets exist") {
    assert(datasets.contains("format_v2_0"), s"found ${datasets.mkString(", ")}")
  }

  datasetsNow.foreach { name =>
    test(s"$name equals pylance, every version")(check(name, 8192))
    test(s"$name equals pylance in batches of 7 and 333")({ check(name, 7); check(name, 333) })
    test(s"$name: take of every third row equals pylance")(checkTake(name))
  }

  /** Test names must be known when the suite is built; a missing golden folder yields none. */
  private def datasetsNow: Seq[String] = try datasets catch { case _: IllegalArgumentException => Nil }
}
