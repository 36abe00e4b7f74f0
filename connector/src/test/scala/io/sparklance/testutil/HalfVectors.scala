package io.sparklance.testutil

import org.apache.arrow.vector.{BaseFixedWidthVector, ValueVector}
import org.apache.arrow.vector.types.FloatingPointPrecision
import org.apache.arrow.vector.types.pojo.ArrowType

import io.sparklance.format.HalfFloat

/** Half-float vectors by bits, on every line (Arrow 12 of Spark 3.5 has no Float2Vector; format.arrow.ArrowVectors makes ours). */
object HalfVectors {
  def isHalf(v: ValueVector): Boolean = v.getField.getType match {
    case fp: ArrowType.FloatingPoint => fp.getPrecision == FloatingPointPrecision.HALF
    case _ => false
  }

  def bits(v: ValueVector, i: Int): Short = v.asInstanceOf[BaseFixedWidthVector].getDataBuffer.getShort(i.toLong * 2)

  def get(v: ValueVector, i: Int): Float = HalfFloat.toFloat(bits(v, i))

  def set(v: ValueVector, i: Int, x: Float): Unit = {
    val f = v.asInstanceOf[BaseFixedWidthVector]
    f.setIndexDefined(i)
    f.getDataBuffer.setShort(i.toLong * 2, HalfFloat.fromFloat(x))
  }
}
