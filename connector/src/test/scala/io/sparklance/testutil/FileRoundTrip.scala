package io.sparklance.testutil

import java.io.{File, FileOutputStream}

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}
import org.apache.arrow.vector.types.pojo.Schema
import org.apache.hadoop.conf.Configuration

import io.sparklance.format.{LanceFileReader, LanceSchema}
import io.sparklance.storage.FileSink
import io.sparklance.format.write.{FileWriterOptions, LanceFileWriter, WrittenFile}
import io.sparklance.storage.hadoop.HadoopObjectStore

/** Writes Arrow batches with our file writer and reads the file back with our reader. */
object FileRoundTrip {
  private lazy val store = new HadoopObjectStore(new Configuration())

  def write(file: File, schema: Schema, batches: Seq[VectorSchemaRoot], options: FileWriterOptions): (LanceSchema, WrittenFile) = {
    val lance = LanceSchema.fromArrow(schema, file.getPath)
    val w = new LanceFileWriter(FileSink.of(new FileOutputStream(file)), lance, options)
    try {
      batches.foreach(w.write)
      (lance, w.finish())
    } catch { case t: Throwable => w.abort(); throw t }
  }

  /** Every top-level field of the file, all rows, as vectors owned by the caller. */
  def read(file: File, schema: LanceSchema, written: WrittenFile, allocator: BufferAllocator): IndexedSeq[FieldVector] = {
    val columnOf = written.fieldIds.zip(written.columnIndices).toMap
    val r = LanceFileReader.open(store, file.getPath)
    try schema.fields.map { f =>
      val s = r.scan(f, columnOf.get)
      s.next(math.max(written.numRows, 0L).toInt, allocator)
    } finally r.close()
  }

  /** Asserts that our reader returns, field by field, the values `cols` of `schema` that were written. */
  def assertReadsBack(file: File, schema: Schema, lance: LanceSchema, written: WrittenFile, cols: Seq[IndexedSeq[Any]], allocator: BufferAllocator): Unit = {
    val back = read(file, lance, written, allocator)
    try schema.getFields.asScala.zip(back).zip(cols).foreach { case ((f, v), want) =>
      val input = ArrowData.vector(f, want, allocator)
      try org.scalatest.Assertions.assert(values(v) == values(input), s"column ${f.getName}")
      finally input.close()
    }
    finally back.foreach(_.close())
  }

  /** Rows `[from, until)` of `v` as Scala values (lists as Seq, structs as Map), for comparisons. */
  def values(v: FieldVector): IndexedSeq[Any] = (0 until v.getValueCount).map(i => normalize(v.getObject(i)))

  private def normalize(x: Any): Any = x match {
    case null => null
    case b: Array[Byte] => b.toSeq
    case t: org.apache.arrow.vector.util.Text => t.toString
    case l: java.util.List[_] => l.asScala.map(normalize).toSeq
    case m: java.util.Map[_, _] => m.asScala.map { case (k, v) => k -> normalize(v) }.toMap
    case f: java.lang.Float if f.isNaN => "NaN"
    case d: java.lang.Double if d.isNaN => "NaN"
    case other => other
  }

  /** The bytes blob descriptors (struct<position, size>, as our reader returns them) point at in `file`. */
  def blobBytes(file: File, descriptors: FieldVector): IndexedSeq[Any] = {
    val s = descriptors.asInstanceOf[org.apache.arrow.vector.complex.StructVector]
    val pos = s.getChild("position").asInstanceOf[org.apache.arrow.vector.UInt8Vector]
    val size = s.getChild("size").asInstanceOf[org.apache.arrow.vector.UInt8Vector]
    val raf = new java.io.RandomAccessFile(file, "r")
    try Range(0, s.getValueCount).map { i =>
      if (s.isNull(i)) null
      else {
        val b = new Array[Byte](size.get(i).toInt)
        raf.seek(pos.get(i)); raf.readFully(b)
        b.toSeq
      }
    } finally raf.close()
  }

  /** A root over `vectors` of `schema` (the vectors stay owned by the caller). */
  def root(schema: Schema, vectors: Seq[FieldVector]): VectorSchemaRoot =
    new VectorSchemaRoot(schema.getFields, vectors.asJava, if (vectors.isEmpty) 0 else vectors.head.getValueCount)
}
