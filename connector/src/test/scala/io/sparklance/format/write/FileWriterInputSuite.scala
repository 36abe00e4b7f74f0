package io.sparklance.format.write

import java.io.{ByteArrayOutputStream, File}
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.{FileVersion, LanceSchema}
import io.sparklance.testutil.{ArrowData, FileRoundTrip}
import io.sparklance.testutil.ArrowData.{field, required}
import io.sparklance.util.{InvalidArgumentException, UnsupportedFeatureException}
import io.sparklance.storage.FileSink

/** What the file writer refuses, and that it says what and why before writing anything wrong. */
class FileWriterInputSuite extends AnyFunSuite {
  private val allocator = new RootAllocator()
  private val dir = Files.createTempDirectory("file-writer-input").toFile

  private def writer(schema: Schema, version: FileVersion = FileVersion.V2_2) =
    new LanceFileWriter(FileSink.of(new ByteArrayOutputStream()), LanceSchema.fromArrow(schema, "test"), FileWriterOptions(version))

  private def batch(schema: Schema, columns: IndexedSeq[Any]*) =
    FileRoundTrip.root(schema, schema.getFields.asScala.toSeq.zip(columns).map { case (f, vs) => ArrowData.vector(f, vs, allocator) })

  private val ints = new Schema(java.util.Arrays.asList(field("a", new ArrowType.Int(32, true))))

  test("a batch whose schema differs from the file's is refused, naming both") {
    val other = new Schema(java.util.Arrays.asList(field("a", new ArrowType.Int(64, true))))
    val w = writer(ints)
    val b = batch(other, IndexedSeq(1L, 2L))
    try {
      val e = intercept[InvalidArgumentException](w.write(b))
      assert(e.getMessage.contains("a: Int(64, true)") && e.getMessage.contains("a: Int(32, true)"))
    } finally b.close()
    val renamed = new Schema(java.util.Arrays.asList(field("b", new ArrowType.Int(32, true))))
    val b2 = batch(renamed, IndexedSeq(1))
    try intercept[InvalidArgumentException](w.write(b2)) finally b2.close()
  }

  test("a null in a non-nullable field is refused, naming the field and row; under a null parent it is no value") {
    val s = new Schema(java.util.Arrays.asList(required("a", new ArrowType.Int(32, true))))
    val w = writer(s)
    val b = batch(s, IndexedSeq(1, null, 3))
    try {
      val e = intercept[InvalidArgumentException](w.write(b))
      assert(e.getMessage.contains("'a'") && e.getMessage.contains("row 1"))
    } finally b.close()
    val nested = new Schema(java.util.Arrays.asList(field("st", ArrowType.Struct.INSTANCE, required("x", new ArrowType.Int(32, true)))))
    val w2 = writer(nested)
    val ok = batch(nested, IndexedSeq(Seq(1), null, Seq(3)))
    try w2.write(ok) finally ok.close()
    val bad = batch(nested, IndexedSeq(Seq(1), Seq(null)))
    try assert(intercept[InvalidArgumentException](w2.write(bad)).getMessage.contains("'st.x'")) finally bad.close()
  }

  test("versions and types pylance cannot write are refused by name") {
    intercept[UnsupportedFeatureException](FileWriterOptions(FileVersion.Legacy))
    val map = new Schema(java.util.Arrays.asList(new Field("m", FieldType.nullable(new ArrowType.Map(false)), java.util.Arrays.asList(
      new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), java.util.Arrays.asList(
        required("key", ArrowType.Utf8.INSTANCE), field("value", new ArrowType.Int(32, true))))))))
    assert(intercept[UnsupportedFeatureException](writer(map, FileVersion.V2_1)).getMessage.contains("maps need file format 2.2"))
    val binaryBlob = new Schema(java.util.Arrays.asList(new Field("b", new FieldType(true, ArrowType.Binary.INSTANCE, null,
      java.util.Map.of("lance-encoding:blob", "true")), java.util.Arrays.asList())))
    assert(intercept[UnsupportedFeatureException](writer(binaryBlob)).getMessage.contains("must be large_binary"))
    val packedVar = new Schema(java.util.Arrays.asList(new Field("p", new FieldType(true, ArrowType.Struct.INSTANCE, null,
      java.util.Map.of("lance-encoding:packed", "true")), java.util.Arrays.asList(required("s", ArrowType.Utf8.INSTANCE)))))
    assert(intercept[UnsupportedFeatureException](writer(packedVar, FileVersion.V2_1)).getMessage.contains("file format 2.2"))
    val compression = new Schema(java.util.Arrays.asList(new Field("c", new FieldType(true, ArrowType.Utf8.INSTANCE, null,
      java.util.Map.of("lance-encoding:compression", "brotli")), java.util.Arrays.asList())))
    assert(intercept[InvalidArgumentException](writer(compression)).getMessage.contains("brotli"))
  }

  test("a null member of a packed struct is refused; a null packed struct is fine") {
    val s = new Schema(java.util.Arrays.asList(new Field("p", new FieldType(true, ArrowType.Struct.INSTANCE, null,
      java.util.Map.of("lance-encoding:packed", "true")), java.util.Arrays.asList(field("a", new ArrowType.Int(32, true))))))
    val w = writer(s)
    val ok = batch(s, IndexedSeq(Seq(1), null))
    try w.write(ok) finally ok.close()
    val bad = batch(s, IndexedSeq(Seq(null)))
    try assert(intercept[InvalidArgumentException](w.write(bad)).getMessage.contains("cannot be null")) finally bad.close()
  }

  test("a large batch is written in pages of about the budget: a column never buffers the batch") {
    val vec = new Schema(java.util.Arrays.asList(field("v", new ArrowType.FixedSizeList(128), field("item",
      new ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE)))))
    val rows = 40000 // 20 MB of vectors in one batch
    val b = batch(vec, IndexedSeq.tabulate(rows)(i => IndexedSeq.fill(128)(i.toFloat)))
    val file = new File(dir, "large-batch.lance")
    try {
      val budget = 1L << 20
      val (_, w) = FileRoundTrip.write(file, vec, Seq(b), FileWriterOptions(FileVersion.V2_2, budget))
      val r = io.sparklance.format.LanceFileReader.open(new io.sparklance.storage.hadoop.HadoopObjectStore(new org.apache.hadoop.conf.Configuration()), file.getPath)
      try {
        val pages = r.columns.head.pages
        assert(pages.map(_.numRows).sum == rows)
        assert(pages.length >= 10, s"${pages.length} pages for 20 MB at a 1 MiB budget")
        assert(pages.forall(_.bufferSizes.sum <= 2 * budget), pages.map(_.bufferSizes.sum))
      } finally r.close()
    } finally b.close()
  }

  test("an empty file (no rows) is a valid file") {
    val file = new File(dir, "empty.lance")
    val empty = batch(ints, IndexedSeq.empty)
    try {
      val (lance, w) = FileRoundTrip.write(file, ints, Seq(empty), FileWriterOptions())
      assert(w.numRows == 0 && w.columnIndices == IndexedSeq(0))
      val back = FileRoundTrip.read(file, lance, w, allocator)
      try assert(back.head.getValueCount == 0) finally back.foreach(_.close())
    } finally empty.close()
  }
}
