package io.sparklance.format.arrow

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{FieldVector, VectorSchemaRoot}
import org.apache.arrow.vector.types.pojo.{Field, Schema}

/**
 * Vectors for Arrow fields. Adapts Arrow 18 (Spark 4.x), whose own factories build every type
 * Lance reads and writes, half floats (Float2Vector) included; the Spark 3.5 overlay adds the
 * half-float vector Arrow 12 lacks. Every vector of ours is made here.
 */
object ArrowVectors {
  def create(field: Field, allocator: BufferAllocator): FieldVector = field.createVector(allocator)

  /** `f` as a field whose own createVector() builds it: on Arrow 18 every field already is. */
  def buildable(f: Field): Field = f

  def root(schema: Schema, allocator: BufferAllocator): VectorSchemaRoot = VectorSchemaRoot.create(schema, allocator)
}
