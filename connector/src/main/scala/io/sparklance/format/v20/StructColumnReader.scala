package io.sparklance.format.v20

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector
import org.apache.arrow.vector.complex.StructVector
import org.apache.arrow.vector.types.pojo.Field

import io.sparklance.format.{ColumnInfo, LanceFileReader}

// Spec: lance-format/lance rust/lance-encoding/src/encodings/logical/struct.rs and
// previous/decoder.rs (`check_simple_struct`). A 2.0 struct owns a header column whose pages
// (encoding `struct{}`) hold no buffers, only row counts; 2.0 cannot store struct validity,
// so every struct row is valid. The children follow in their own columns.

private[v20] final class StructColumnReader(
    file: LanceFileReader,
    column: ColumnInfo,
    children: IndexedSeq[ColumnReader],
    val arrowField: Field,
    name: String) extends ColumnReader {

  private val what = s"field '$name'"

  private var left = ColumnReader.sum(ColumnReader.pageRows(file, column, what), file, column)

  override def remaining: Long = left

  override def skip(n: Long): Unit = {
    if (n > left) throw ColumnReader.tooFew(file, what, n, left)
    children.foreach(_.skip(n))
    left -= n
  }

  override def read(runs: Seq[Run], vector: FieldVector, allocator: BufferAllocator): Unit = {
    val span = ColumnReader.span(runs, left, file, what)
    val n = runs.map(_.count).sum
    val validity = new Array[Byte]((n + 7) / 8)
    java.util.Arrays.fill(validity, 0xff.toByte)
    PageSliceAssembler.loadBuffers(vector, n, validity, Seq.empty, allocator)
    val vectors = vector.asInstanceOf[StructVector].getChildrenFromFields.asScala.toIndexedSeq
    children.indices.foreach(i => children(i).read(runs, vectors(i), allocator))
    left -= span
  }
}
