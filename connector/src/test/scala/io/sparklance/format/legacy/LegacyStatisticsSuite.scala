package io.sparklance.format.legacy

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector._
import org.apache.arrow.vector.complex.StructVector
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.LanceField
import io.sparklance.testutil.{ArrowIpc, Golden}
import io.sparklance.util.ScalaCompat._

/**
 * The page statistics pylance's legacy writer stores, against the values pylance reads back
 * (expected/v1.arrow of types_legacy): per batch, the null count is right and min/max are
 * the smallest and largest value of the batch's rows.
 */
class LegacyStatisticsSuite extends AnyFunSuite {
  import StatValue._

  /** The Arrow types rust/lance-file/src/previous/writer/statistics.rs collects statistics for. */
  private val collected = Set("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float", "double", "date32:day", "date64:ms", "string", "large_string", "binary", "large_binary")
  private def hasStats(f: LanceField) = collected(f.logicalType) || f.logicalType.startsWith("decimal:128:")

  private def statOf(v: FieldVector, i: Int): Option[StatValue] =
    if (v.isNull(i)) None
    else Some(v match {
      case x: BitVector => Bool(x.get(i) == 1)
      case x: TinyIntVector => Integer(x.get(i))
      case x: SmallIntVector => Integer(x.get(i))
      case x: IntVector => Integer(x.get(i))
      case x: BigIntVector => Integer(x.get(i))
      case x: UInt1Vector => Integer(x.get(i) & 0xff)
      case x: UInt2Vector => Integer(x.get(i).toInt)
      case x: UInt4Vector => Integer(x.get(i) & 0xffffffffL)
      case x: UInt8Vector => Integer(BigInt(java.lang.Long.toUnsignedString(x.get(i))))
      case x: Float4Vector => Floating(x.get(i).toDouble)
      case x: Float8Vector => Floating(x.get(i))
      case x: DecimalVector => Decimal(x.getObject(i))
      case x: DateDayVector => Integer(x.get(i))
      case x: DateMilliVector => Integer(x.get(i))
      case x: VarCharVector => Utf8(new String(x.get(i), UTF_8))
      case x: LargeVarCharVector => Utf8(new String(x.get(i), UTF_8))
      case x: VarBinaryVector => Binary(ArraySeq.unsafeWrapArray(x.get(i)))
      case x: LargeVarBinaryVector => Binary(ArraySeq.unsafeWrapArray(x.get(i)))
      case other => fail(s"no statistics form for ${other.getField}")
    })

  /** Rust compares strings and binaries bytewise (unsigned), booleans false < true. */
  private def compare(a: StatValue, b: StatValue): Int = (a, b) match {
    case (Bool(x), Bool(y)) => x.compare(y)
    case (Integer(x), Integer(y)) => x.compare(y)
    case (Floating(x), Floating(y)) => x.compare(y)
    case (Decimal(x), Decimal(y)) => x.compareTo(y)
    case (Utf8(x), Utf8(y)) => unsigned(x.getBytes(UTF_8).toSeq, y.getBytes(UTF_8).toSeq)
    case (Binary(x), Binary(y)) => unsigned(x, y)
    case _ => fail(s"cannot compare $a with $b")
  }
  private def unsigned(x: Seq[Byte], y: Seq[Byte]): Int =
    x.zip(y).map { case (p, q) => (p & 0xff) - (q & 0xff) }.find(_ != 0).getOrElse(x.length - y.length)

  private def isNaN(v: StatValue) = v match { case Floating(d) => d.isNaN; case _ => false }

  test("types_legacy: null counts and min/max of every batch match the rows pylance reads") {
    val allocator = new RootAllocator(Long.MaxValue)
    val reader = ArrowIpc.reader(Files.newByteChannel(Golden.dataset("types_legacy").expectedFile(1).toPath), allocator)
    try {
      assert(reader.getRecordBlocks.size == 1)
      reader.loadRecordBatch(reader.getRecordBlocks.get(0))
      val root = reader.getVectorSchemaRoot
      var checked = 0
      LegacyFiles.dataFiles("types_legacy", 1).foreach { case (path, firstRow) =>
        val file = LegacyFiles.open(path)
        try {
          // Statistics cover top-level fields and struct members, not list items.
          def visit(f: LanceField, vector: FieldVector): Unit = {
            val stats = file.pageStatistics(f.id)
            assert(stats.isDefined == hasStats(f), s"${f.name} (${f.logicalType}) statistics")
            stats.foreach { pages =>
              assert(pages.length == file.numBatches)
              pages.foreach { p =>
                assert(p.rowStart == file.batchStart(p.batch) && p.rowEnd == file.batchEnd(p.batch))
                assert(p.nullCount.contains(0L), s"${f.name} null count") // types_legacy has no nulls
                val values = (p.rowStart until p.rowEnd).flatMap(r => statOf(vector, (firstRow + r).toInt)).filterNot(isNaN)
                val (lo, hi) = (values.min(Ordering.fromLessThan[StatValue](compare(_, _) < 0)), values.max(Ordering.fromLessThan[StatValue](compare(_, _) < 0)))
                val (min, max) = (p.min.getOrElse(fail(s"${f.name} min")), p.max.getOrElse(fail(s"${f.name} max")))
                // Exact, except that a float zero bound is stored as -0.0 (min) / +0.0 (max).
                assert(compare(min, lo) == 0 || (min, lo) == (Floating(-0.0), Floating(0.0)), s"${f.name} min $min vs $lo")
                assert(compare(max, hi) == 0 || (max, hi) == (Floating(0.0), Floating(-0.0)), s"${f.name} max $max vs $hi")
                checked += 1
              }
            }
            vector match {
              case s: StructVector => f.children.foreach(c => visit(c, s.getChild(c.name).asInstanceOf[FieldVector]))
              case _ =>
            }
          }
          file.fileSchema.schema.fields.foreach(f => visit(f, root.getVector(f.name)))
          val id = file.fileSchema.schema.field("id").get
          assert(file.pageStatistics(id.id).get.map(p => (p.min, p.max)) ==
            (0 until file.numBatches).map(b => (Some(Integer(firstRow + file.batchStart(b))), Some(Integer(firstRow + file.batchEnd(b) - 1)))))
          assert(file.pageStatistics(10000).isEmpty)
        } finally file.close()
      }
      assert(checked > 40, s"only $checked statistics checked")
    } finally { reader.close(); allocator.close() }
  }

  test("a statistics table is read lazily and only once per field") {
    val (path, _) = LegacyFiles.dataFiles("types_legacy", 1).head
    val file = LegacyFiles.open(path)
    try {
      val before = file.bytesRead
      val id = file.fileSchema.schema.field("int32_col").get.id
      val first = file.pageStatistics(id)
      val after = file.bytesRead
      assert(file.pageStatistics(id) eq first)
      assert(file.bytesRead == after && after >= before)
    } finally file.close()
  }

  test("a re-batched file without statistics says so") {
    val (path, _) = LegacyFiles.dataFiles("types_legacy", 1).head
    val dir = Files.createTempDirectory("legacy-stats")
    val file = LegacyFiles.open(LegacyFiles.write(dir, "nostats.lance", LegacyFiles.rebatch(path, Seq(0, 64))))
    try assert(file.fileSchema.schema.fields.flatMap(_.preOrder).forall(f => file.pageStatistics(f.id).isEmpty))
    finally file.close()
  }
}
