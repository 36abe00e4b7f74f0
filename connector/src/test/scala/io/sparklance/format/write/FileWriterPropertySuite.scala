package io.sparklance.format.write

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, TimeUnit}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.FileVersion
import io.sparklance.testutil.{ArrowData, FileRoundTrip, PylanceFiles, RandomValues}
import io.sparklance.testutil.RandomValues.Nulls

/**
 * Random schemas (nesting up to three levels of lists, structs and maps over every leaf type),
 * random row counts, null patterns, batch cuts and page budgets, seeded: our reader and pylance's
 * file reader must both return what was written.
 */
class FileWriterPropertySuite extends AnyFunSuite {
  private val allocator = new RootAllocator()
  private val dir = Files.createTempDirectory("file-writer-property").toFile
  private val cases = 60

  private val leafTypes: IndexedSeq[ArrowType] = IndexedSeq(
    new ArrowType.Int(8, true), new ArrowType.Int(16, false), new ArrowType.Int(32, true), new ArrowType.Int(64, false),
    new ArrowType.FloatingPoint(FloatingPointPrecision.HALF), new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
    ArrowType.Bool.INSTANCE, new ArrowType.Date(DateUnit.DAY), new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"),
    new ArrowType.Time(TimeUnit.NANOSECOND, 64), new ArrowType.Decimal(12, 3, 128), new ArrowType.FixedSizeBinary(3),
    ArrowType.Utf8.INSTANCE, ArrowType.LargeBinary.INSTANCE)

  private def randomField(name: String, depth: Int, version: FileVersion, rnd: Random): Field = {
    val nullable = rnd.nextInt(4) != 0
    def make(t: ArrowType, children: Field*) = new Field(name, new FieldType(nullable, t, null), children.asJava)
    rnd.nextInt(if (depth >= 3) 1 else 6) match {
      case 0 | 1 =>
        val t = leafTypes(rnd.nextInt(leafTypes.length))
        make(t)
      case 2 => make(ArrowType.List.INSTANCE, randomField("item", depth + 1, version, rnd))
      case 3 => make(ArrowType.LargeList.INSTANCE, randomField("item", depth + 1, version, rnd))
      case 4 => make(ArrowType.Struct.INSTANCE, (0 until 1 + rnd.nextInt(3)).map(i => randomField(s"m$i", depth + 1, version, rnd)): _*)
      case _ if version >= FileVersion.V2_2 =>
        new Field(name, new FieldType(nullable, new ArrowType.Map(false), null), java.util.Arrays.asList(
          new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), java.util.Arrays.asList(
            new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), java.util.Arrays.asList()),
            randomField("value", depth + 1, version, rnd)))))
      case _ => make(new ArrowType.FixedSizeList(1 + rnd.nextInt(5)), new Field("item", FieldType.nullable(new ArrowType.Int(32, true)), java.util.Arrays.asList()))
    }
  }

  private val written = scala.collection.mutable.ArrayBuffer.empty[(File, File)]

  (0 until cases).foreach { k =>
    val version = if (k % 2 == 0) FileVersion.V2_1 else FileVersion.V2_2
    test(s"random schema $k (file format $version)") {
      val rnd = new Random(1000 + k)
      val schema = new Schema((0 until 1 + rnd.nextInt(5)).map(i => randomField(s"f$i", 0, version, rnd)).asJava)
      val rows = Seq(0, 1, 7, 300, 1500, 4000)(rnd.nextInt(6))
      val nulls = Seq(Nulls.NoNulls, Nulls.Some(2), Nulls.Some(9), Nulls.AllNull)(rnd.nextInt(4))
      val cols = schema.getFields.asScala.toSeq.map(f => RandomValues.column(f, rows, nulls, rnd))
      val cuts = (Seq(0, rows) ++ Seq.fill(rnd.nextInt(4))(rnd.nextInt(rows + 1))).distinct.sorted
      val batches = cuts.zip(cuts.tail).map { case (lo, hi) =>
        FileRoundTrip.root(schema, schema.getFields.asScala.toSeq.zip(cols).map { case (f, vs) => ArrowData.vector(f, vs.slice(lo, hi), allocator) })
      } match { case Seq() => Seq(FileRoundTrip.root(schema, schema.getFields.asScala.toSeq.map(f => ArrowData.vector(f, IndexedSeq.empty, allocator)))); case bs => bs }
      val file = new File(dir, s"case$k.lance")
      val expected = new File(dir, s"case$k.arrow")
      try {
        val (lance, w) = FileRoundTrip.write(file, schema, batches, FileWriterOptions(version, 1024L << rnd.nextInt(6)))
        assert(w.numRows == rows)
        val back = FileRoundTrip.read(file, lance, w, allocator)
        try schema.getFields.asScala.zip(back).zip(cols).foreach { case ((f, v), want) =>
          val input = ArrowData.vector(f, want, allocator)
          try assert(FileRoundTrip.values(v) == FileRoundTrip.values(input), s"column ${f.getName} of $schema")
          finally input.close()
        } finally back.foreach(_.close())
        PylanceFiles.writeExpected(batches, expected)
        written += ((expected, file))
      } finally batches.foreach(_.close())
    }
  }

  test("pylance's file reader returns what was written, for every random schema") {
    assume(written.nonEmpty)
    val bad = PylanceFiles.check(written.toSeq).filterNot(_.equal)
    assert(bad.isEmpty, bad.map(v => s"${v.file}: ${v.problem}").mkString("\n"))
  }
}
