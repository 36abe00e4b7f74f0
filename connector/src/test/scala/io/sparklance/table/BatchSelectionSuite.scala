package io.sparklance.table

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.VectorSchemaRoot
import org.apache.arrow.vector.types.FloatingPointPrecision
import org.apache.arrow.vector.types.pojo.ArrowType
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{ArrowData, Canonical}

class BatchSelectionSuite extends AnyFunSuite {

  test("the chosen rows of every kind of vector, nulls and runs included, and nothing leaks") {
    val allocator = new RootAllocator()
    val n = 37
    val ints = (0 until n).map(i => if (i % 5 == 3) null else i * 7)
    val longs = (0 until n).map(i => i.toLong << 33) // no nulls: the validity fast path
    val doubles = (0 until n).map(i => if (i % 11 == 0) null else i * 0.5)
    val bools = (0 until n).map(i => if (i % 7 == 0) null else i % 2 == 0)
    val strings = (0 until n).map(i => if (i % 4 == 1) null else "s" * (i % 6))
    val decimals = (0 until n).map(i => if (i == 9) null else new java.math.BigDecimal(s"$i.25"))
    val lists = (0 until n).map(i => if (i % 6 == 2) null else (0 until i % 4).map(j => i * 10 + j))
    val vectors = (0 until n).map(i => if (i == 30) null else Seq(i.toFloat, -i.toFloat))
    val columns = IndexedSeq(
      ArrowData.field("i", new ArrowType.Int(32, true)) -> ints,
      ArrowData.field("l", new ArrowType.Int(64, true)) -> longs,
      ArrowData.field("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)) -> doubles,
      ArrowData.field("b", ArrowType.Bool.INSTANCE) -> bools,
      ArrowData.field("s", ArrowType.Utf8.INSTANCE) -> strings,
      ArrowData.field("m", new ArrowType.Decimal(10, 2, 128)) -> decimals,
      ArrowData.field("li", ArrowType.List.INSTANCE, ArrowData.field("item", new ArrowType.Int(32, true))) -> lists,
      ArrowData.field("v", new ArrowType.FixedSizeList(2), ArrowData.field("item",
        new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))) -> vectors)
    // Runs of several lengths, single rows, the first and the last row.
    val chosen = Array(0, 1, 2, 5, 9, 10, 11, 12, 13, 14, 15, 16, 17, 20, 22, 23, 30, 31, 36)
    val root = new VectorSchemaRoot(columns.map { case (f, values) => ArrowData.vector(f, values, allocator) }.asJava)
    root.setRowCount(n)
    val expected = Canonical.rows(root).zipWithIndex.collect { case (row, i) if chosen.contains(i) => row }
    val out = BatchSelection.select(root, chosen, allocator)
    try {
      assert(out.getRowCount == chosen.length)
      assert(Canonical.rows(out) == expected)
      assert(out.getFieldVectors.asScala.map(_.getNullCount) ==
        columns.map { case (_, values) => chosen.count(i => values(i) == null) })
    } finally out.close()
    assert(allocator.getAllocatedMemory == 0, "the input batch and the selection are both released")
    allocator.close()
  }

  test("an empty selection gives an empty batch") {
    val allocator = new RootAllocator()
    val f = ArrowData.field("i", new ArrowType.Int(32, true))
    val root = new VectorSchemaRoot(java.util.Arrays.asList(ArrowData.vector(f, IndexedSeq(1, 2, 3), allocator)))
    root.setRowCount(3)
    val out = BatchSelection.select(root, Array.emptyIntArray, allocator)
    assert(out.getRowCount == 0 && Canonical.rows(out).isEmpty)
    out.close()
    allocator.close()
  }
}
