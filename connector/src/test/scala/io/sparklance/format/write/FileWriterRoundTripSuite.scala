package io.sparklance.format.write

import java.io.File
import java.nio.file.Files

import scala.util.Random

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.types.FloatingPointPrecision
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.FileVersion
import io.sparklance.testutil.{ArrowData, FileRoundTrip, PylanceFiles, RandomValues, WriterFields}
import io.sparklance.testutil.ArrowData.field
import io.sparklance.testutil.RandomValues.Nulls

/**
 * Every type the reader supports, written by our file writer in file formats 2.1 and 2.2 with
 * no, some and all nulls, in one page and in many: our reader and pylance's file reader must both
 * return exactly what was written.
 */
class FileWriterRoundTripSuite extends AnyFunSuite {
  import scala.jdk.CollectionConverters._
  import FileWriterRoundTripSuite.Case

  private val allocator = new RootAllocator()
  private val dir = Files.createTempDirectory("file-writer").toFile

  private def list(name: String, item: Field) = field(name, ArrowType.List.INSTANCE, item)
  private def struct(name: String, children: Field*) = field(name, ArrowType.Struct.INSTANCE, children: _*)
  private def fsl(name: String, n: Int, item: ArrowType) = field(name, new ArrowType.FixedSizeList(n), field("item", item))

  private val primitives: Seq[Field] = WriterFields.primitives

  private val nested: Seq[Field] = Seq(
    list("li", field("item", new ArrowType.Int(32, true))),
    field("lls", ArrowType.LargeList.INSTANCE, field("item", ArrowType.Utf8.INSTANCE)),
    list("lli", list("item", field("item", new ArrowType.Int(64, true)))),
    struct("st", field("a", new ArrowType.Int(32, true)), field("s", ArrowType.Utf8.INSTANCE)),
    list("lst", struct("item", field("k", new ArrowType.Int(32, true)), field("v", ArrowType.Utf8.INSTANCE))),
    struct("stl", list("tags", field("item", ArrowType.Utf8.INSTANCE)), field("n", new ArrowType.Int(64, true))),
    struct("deep", struct("inner", field("x", new ArrowType.Int(64, true)), list("y", field("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))))),
    fsl("emb8", 8, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
    fsl("emb128", 128, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
    fsl("emb_u8", 64, new ArrowType.Int(8, false)),
    list("lemb", fsl("item", 4, new ArrowType.FloatingPoint(FloatingPointPrecision.HALF))),
    field("nul", ArrowType.Null.INSTANCE))

  private def mapField = new Field("mp", FieldType.nullable(new ArrowType.Map(false)), java.util.Arrays.asList(
    new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), java.util.Arrays.asList(
      new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), java.util.Arrays.asList()),
      field("value", new ArrowType.Int(32, true))))))

  private def blob(name: String, t: ArrowType) =
    new Field(name, new FieldType(true, t, null, java.util.Map.of("lance-encoding:blob", "true")), java.util.Arrays.asList())

  private def packed(name: String, children: Field*) =
    new Field(name, new FieldType(true, ArrowType.Struct.INSTANCE, null, java.util.Map.of("lance-encoding:packed", "true")), children.asJava)

  // Strings of 256 bytes and more are written full-zip.
  private def longStrings = field("long_s", ArrowType.Utf8.INSTANCE)

  private val cases = for {
    version <- Seq(FileVersion.V2_1, FileVersion.V2_2)
    (nulls, tag) <- Seq(Nulls.NoNulls -> "no_nulls", Nulls.Some(4) -> "some_nulls", Nulls.AllNull -> "all_null")
    (pageBytes, rows, pages) <- Seq((FileWriterOptions.DefaultPageBytes, 2500, "one_page"), (16L * 1024, 6000, "many_pages"))
  } yield Case(s"${version}_${tag}_$pages", version, nulls, pageBytes, rows)

  private def schemaFor(c: Case): Schema =
    new Schema((primitives ++ nested ++ Seq(longStrings, blob("blob", ArrowType.LargeBinary.INSTANCE),
      packed("packed", ArrowData.required("a", new ArrowType.Int(32, true)), ArrowData.required("b", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)))) ++
      (if (c.version >= FileVersion.V2_2) Seq(mapField,
        packed("packed_var", ArrowData.required("a", new ArrowType.Int(32, true)), ArrowData.required("s", ArrowType.Utf8.INSTANCE)))
      else Nil)).asJava)

  private def data(schema: Schema, c: Case, rnd: Random): Seq[IndexedSeq[Any]] = schema.getFields.asScala.toSeq.map { f =>
    if (f.getName.startsWith("blob")) IndexedSeq.tabulate(c.rows)(i =>
      if (c.nulls == Nulls.AllNull || (c.nulls != Nulls.NoNulls && i % 5 == 2)) null
      else Array.fill(if (i % 7 == 0) 0 else rnd.nextInt(3000))(rnd.nextInt(256).toByte))
    else if (f.getName == "long_s") IndexedSeq.tabulate(c.rows)(i => if (c.nulls == Nulls.AllNull || (c.nulls != Nulls.NoNulls && i % 4 == 1)) null else s"$i:" + ("lance " * (40 + rnd.nextInt(60))))
    else RandomValues.column(f, c.rows, c.nulls, rnd)
  }

  private val written = scala.collection.mutable.ArrayBuffer.empty[(String, File, File)]

  cases.foreach { c =>
    test(s"${c.name}: our reader returns every value written") {
      val schema = schemaFor(c)
      val rnd = new Random(c.name.hashCode)
      val cols = data(schema, c, rnd)
      // Two batches of uneven size, so that pages and batches do not line up.
      val cut = c.rows / 3
      val batches = Seq(0 -> cut, cut -> c.rows).map { case (lo, hi) =>
        FileRoundTrip.root(schema, schema.getFields.asScala.toSeq.zip(cols).map { case (f, vs) => ArrowData.vector(f, vs.slice(lo, hi), allocator) })
      }
      val file = new File(dir, s"${c.name}.lance")
      val expected = new File(dir, s"${c.name}.arrow")
      try {
        val (lance, w) = FileRoundTrip.write(file, schema, batches, FileWriterOptions(c.version, c.pageBytes))
        assert(w.numRows == c.rows)
        assert(w.size == file.length())
        PylanceFiles.writeExpected(batches, expected)
        val back = FileRoundTrip.read(file, lance, w, allocator)
        try {
          schema.getFields.asScala.zip(back).zip(cols).foreach { case ((f, v), want) =>
            val input = ArrowData.vector(f, want, allocator)
            try {
              val got = if (f.getName.startsWith("blob")) FileRoundTrip.blobBytes(file, v) else FileRoundTrip.values(v)
              val exp = FileRoundTrip.values(input)
              val bad = got.indices.find(i => i >= exp.length || got(i) != exp(i))
              assert(got.length == exp.length && bad.isEmpty,
                s"column ${f.getName}: ${got.length} rows read, ${exp.length} written; first difference at row ${bad.getOrElse(-1)}: " +
                  bad.map(i => s"read ${got(i)}, wrote ${exp.lift(i).orNull}").getOrElse(""))
            } finally input.close()
          }
        } finally back.foreach(_.close())
        written += ((c.name, expected, file))
      } finally batches.foreach(_.close())
    }
  }

  test("pylance's file reader returns every value written, for every case") {
    assume(written.nonEmpty)
    PylanceFiles.assertAllEqual(written.map { case (_, e, f) => (e, f) }.toSeq)
  }
}

object FileWriterRoundTripSuite {
  final case class Case(name: String, version: FileVersion, nulls: Nulls, pageBytes: Long, rows: Int)
}
