package io.sparklance.table

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector

import io.sparklance.format.LanceField

/** All-null vectors for fields that a fragment does not store (added to the schema later). */
object NullColumns {
  def vector(field: LanceField, n: Int, allocator: BufferAllocator, blobs: BlobMode = BlobMode.Descriptors): FieldVector = {
    val v = BlobFetch.arrowField(field, blobs, s"field '${field.name}'").createVector(allocator)
    v.setInitialCapacity(n)
    v.allocateNew()
    v.setValueCount(n) // validity buffers start zeroed: every row is null
    v
  }
}
