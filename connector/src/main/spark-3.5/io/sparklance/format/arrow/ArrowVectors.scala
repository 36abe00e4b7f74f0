package io.sparklance.format.arrow

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}
import org.apache.arrow.vector.types.FloatingPointPrecision
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, Schema}

/**
 * Vectors for Arrow fields. Adapts Arrow 12 (Spark 3.5), which has the half-float type but no
 * vector for it (its factory throws "NYI"): a field of that type, at any depth, is given a
 * [[HalfFloatFieldType]], through which Arrow's own nested vectors (lists, structs) build their
 * half-float children as [[HalfFloatVector]]s. Every vector of ours is made here.
 */
object ArrowVectors {
  def create(field: Field, allocator: BufferAllocator): FieldVector = buildable(field).createVector(allocator)

  /** `f` as a field whose own createVector() builds it, half floats included (for readers that build vectors from a schema). */
  def buildable(f: Field): Field =
    if (!hasHalf(f)) f
    else if (isHalf(f.getType)) new Field(f.getName, new HalfFloatFieldType(f.getFieldType), f.getChildren)
    else new Field(f.getName, f.getFieldType, f.getChildren.asScala.map(buildable).asJava)

  /** As VectorSchemaRoot.create: the schema's metadata kept, no rows yet. */
  def root(schema: Schema, allocator: BufferAllocator): VectorSchemaRoot = {
    val fields = schema.getFields.asScala.map(buildable)
    new VectorSchemaRoot(new Schema(fields.asJava, schema.getCustomMetadata), fields.map(_.createVector(allocator)).asJava, 0)
  }

  private def isHalf(t: ArrowType): Boolean = t match {
    case fp: ArrowType.FloatingPoint => fp.getPrecision == FloatingPointPrecision.HALF
    case _ => false
  }

  private def hasHalf(f: Field): Boolean = isHalf(f.getType) || f.getChildren.asScala.exists(hasHalf)
}
