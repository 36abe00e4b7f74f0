package io.sparklance.format.arrow

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{BaseFixedWidthVector, FieldVector, ValueVector}
import org.apache.arrow.vector.complex.reader.FieldReader
import org.apache.arrow.vector.types.Types.MinorType
import org.apache.arrow.vector.types.pojo.{Field, FieldType}
import org.apache.arrow.vector.util.{CallBack, TransferPair}

import io.sparklance.format.HalfFloat

/**
 * Half floats on Arrow 12 (Spark 3.5), which has no vector for them (Float2Vector is Arrow 15):
 * two bytes a value, read and written by bits through the fixed-width buffers as every other
 * fixed-width column is, converted by [[HalfFloat]].
 */
final class HalfFloatVector(field: Field, allocator: BufferAllocator) extends BaseFixedWidthVector(field, allocator, 2) {

  /**
   * Arrow 12 has no minor type for half floats, and compares two vectors' minor types before a
   * transfer. EXTENSIONTYPE is one no Arrow factory can build a vector from without an extension
   * type, so code that would make a vector from it fails rather than build a wrong one.
   */
  override def getMinorType: MinorType = MinorType.EXTENSIONTYPE

  /** Arrow 12 has no reader for half floats either; nothing of ours reads through readers. */
  override def getReader: FieldReader = throw new UnsupportedOperationException("Arrow 12 has no reader for half floats")

  override def getObject(index: Int): java.lang.Float =
    if (isNull(index)) null else java.lang.Float.valueOf(HalfFloat.toFloat(valueBuffer.getShort(index.toLong * 2)))

  override def getTransferPair(ref: String, allocator: BufferAllocator): TransferPair =
    new HalfFloatVector.Transfer(this, new HalfFloatVector(new Field(ref, field.getFieldType, null), allocator))

  override def makeTransferPair(target: ValueVector): TransferPair = new HalfFloatVector.Transfer(this, target.asInstanceOf[HalfFloatVector])
}

object HalfFloatVector {
  private final class Transfer(from: HalfFloatVector, to: HalfFloatVector) extends TransferPair {
    override def transfer(): Unit = from.transferTo(to)
    override def splitAndTransfer(start: Int, length: Int): Unit = from.splitAndTransferTo(start, length, to)
    override def getTo: ValueVector = to
    override def copyValueSafe(fromIndex: Int, toIndex: Int): Unit = to.copyFromSafe(fromIndex, toIndex, from)
  }
}

/** The field type of a half-float field on Arrow 12: it builds a [[HalfFloatVector]] where Arrow's factory would throw. */
final class HalfFloatFieldType(of: FieldType) extends FieldType(of.isNullable, of.getType, of.getDictionary, of.getMetadata) {
  override def createNewSingleVector(name: String, allocator: BufferAllocator, callBack: CallBack): FieldVector =
    new HalfFloatVector(new Field(name, this, null), allocator)

  override def createNewSingleVector(field: Field, allocator: BufferAllocator, callBack: CallBack): FieldVector =
    new HalfFloatVector(field, allocator)
}
