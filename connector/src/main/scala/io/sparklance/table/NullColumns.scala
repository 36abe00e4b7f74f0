package io.sparklance.table

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector

import io.sparklance.format.LanceField
import io.sparklance.format.arrow.ArrowVectors

/** All-null vectors for fields that a fragment does not store (added to the schema later). */
object NullColumns {
  def vector(field: LanceField, n: Int, allocator: BufferAllocator, blobs: BlobMode = BlobMode.Descriptors): FieldVector = {
    val v = ArrowVectors.create(BlobFetch.arrowField(field, blobs, s"field '${field.name}'"), allocator)
    v.setInitialCapacity(n)
    v.allocateNew()
    v.setValueCount(n) // validity buffers start zeroed: every row is null
    v
  }
}
