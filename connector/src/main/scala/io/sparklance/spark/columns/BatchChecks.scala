package io.sparklance.spark.columns

import scala.jdk.CollectionConverters._

import org.apache.arrow.vector._
import org.apache.arrow.vector.complex.{FixedSizeListVector, LargeListVector, ListVector, StructVector}

import io.sparklance.util.Errors

/**
 * The checks that let our columns read Arrow memory at raw addresses without a check per
 * value: run once per vector when a batch is wrapped, they prove that every read a Spark
 * getter can make for rows `[0, valueCount)` lies inside the vector's buffers. O(1) per
 * vector for validity and fixed-width data; one pass over each offsets buffer (sequential
 * 4- or 8-byte reads, small beside decoding the batch) to see that offsets never decrease,
 * so that every row's range lies between the first and the last offset, which are checked
 * against the data buffer or the item vector. A failure is a decoder bug or damage the
 * decoders missed: our corrupt-data error, never a JVM crash or garbage.
 */
private[columns] object BatchChecks {

  def check(vector: FieldVector, where: => String): Unit = {
    val n = vector.getValueCount.toLong
    def fail(detail: String) = Errors.corrupt(where, s"column '${vector.getName}' (${vector.getField.getType}) of $n rows: $detail")
    def needs(buffer: org.apache.arrow.memory.ArrowBuf, bytes: Long, what: String): Unit =
      if (n > 0 && (buffer == null || buffer.capacity() < bytes))
        throw fail(s"its $what buffer holds ${if (buffer == null) 0 else buffer.capacity()} bytes, ${bytes} needed")
    def offsets(buffer: org.apache.arrow.memory.ArrowBuf, large: Boolean, limit: Long, what: String): Unit = if (n > 0) {
      val width = if (large) 8L else 4L
      needs(buffer, (n + 1) * width, "offsets")
      val address = buffer.memoryAddress()
      var previous = ArrowColumn.offset(address, large, 0)
      if (previous < 0) throw fail(s"its first offset is $previous")
      var i = 1
      while (i <= n) {
        val next = ArrowColumn.offset(address, large, i)
        if (next < previous) throw fail(s"offset ${i} ($next) is smaller than offset ${i - 1} ($previous)")
        previous = next
        i += 1
      }
      if (previous > limit) throw fail(s"its last offset $previous lies past the $limit $what")
    }
    if (n < 0) throw fail("a negative row count")
    vector match {
      case _: NullVector => ()
      case v: BitVector =>
        needs(v.getValidityBuffer, (n + 7) / 8, "validity"); needs(v.getDataBuffer, (n + 7) / 8, "data")
      case v: BaseFixedWidthVector =>
        needs(v.getValidityBuffer, (n + 7) / 8, "validity"); needs(v.getDataBuffer, n * v.getTypeWidth, "data")
      case v: BaseVariableWidthVector =>
        needs(v.getValidityBuffer, (n + 7) / 8, "validity")
        offsets(v.getOffsetBuffer, large = false, v.getDataBuffer.capacity(), "bytes of its data buffer")
      case v: BaseLargeVariableWidthVector =>
        needs(v.getValidityBuffer, (n + 7) / 8, "validity")
        offsets(v.getOffsetBuffer, large = true, v.getDataBuffer.capacity(), "bytes of its data buffer")
      case v: ListVector => // maps too
        needs(v.getValidityBuffer, (n + 7) / 8, "validity")
        offsets(v.getOffsetBuffer, large = false, v.getDataVector.getValueCount.toLong, "items")
      case v: LargeListVector =>
        needs(v.getValidityBuffer, (n + 7) / 8, "validity")
        offsets(v.getOffsetBuffer, large = true, v.getDataVector.getValueCount.toLong, "items")
      case v: FixedSizeListVector =>
        needs(v.getValidityBuffer, (n + 7) / 8, "validity")
        val items = v.getDataVector.getValueCount.toLong
        if (items < n * v.getListSize) throw fail(s"${v.getListSize} items a row need ${n * v.getListSize} items, it has $items")
      case v: StructVector =>
        needs(v.getValidityBuffer, (n + 7) / 8, "validity")
        v.getChildrenFromFields.asScala.foreach { c =>
          if (c.getValueCount < n) throw fail(s"member '${c.getName}' has only ${c.getValueCount} rows")
        }
      case _ => () // a vector no column reads: ArrowColumns refuses it
    }
  }
}
