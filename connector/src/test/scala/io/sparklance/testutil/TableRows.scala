package io.sparklance.testutil

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.VectorSchemaRoot

import io.sparklance.format.LanceField
import io.sparklance.storage.ObjectStore
import io.sparklance.table.{FragmentScanner, ScanPlanner, Snapshot}

/** Reading a whole snapshot through the table layer, as the golden comparisons need it. */
object TableRows {

  /**
   * Every row of `snapshot` (its `fields`, all of them by default) in [[Canonical]] form, in
   * table order, read with batches of `batchRows`. `onBatch` sees each batch before it closes.
   */
  def read(
      store: ObjectStore,
      snapshot: Snapshot,
      allocator: BufferAllocator,
      batchRows: Int,
      fields: IndexedSeq[LanceField] = null,
      onBatch: VectorSchemaRoot => Unit = _ => ()): IndexedSeq[IndexedSeq[Any]] = {
    val projected = Option(fields).getOrElse(snapshot.manifest.schema.fields)
    ScanPlanner.plan(store, snapshot).flatMap { task =>
      val scanner = new FragmentScanner(store, task, projected, batchRows, allocator)
      try scanner.flatMap { root =>
        try { onBatch(root); Canonical.rows(root) } finally root.close()
      }.toIndexedSeq
      finally scanner.close()
    }
  }
}
