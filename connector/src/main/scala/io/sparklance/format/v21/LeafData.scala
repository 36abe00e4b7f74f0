package io.sparklance.format.v21

import io.sparklance.format.encoding.DecodedValues
import io.sparklance.format.layout.RepDefLayer

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Repetition and definition
// levels"). A leaf column of a 2.1+ file decodes to three parallel streams: repetition
// levels and definition levels (one per item, including invisible items that stand for
// null or empty lists) and values (one per visible item). This is that decoded form for a
// run of items, before it is assembled into Arrow vectors.

/**
 * A run of decoded items of a leaf column. `layers` give the meaning of the levels
 * (innermost first; they may differ from page to page). `reps` is null when the leaf has
 * no list layer; `defs` is null when every item is valid at every layer. `values` holds
 * one value per visible item.
 */
final class LeafData(
    val layers: IndexedSeq[RepDefLayer],
    val numItems: Int,
    val reps: Array[Short],
    val defs: Array[Short],
    val values: DecodedValues) {
  if (reps != null && reps.length < numItems) throw new IllegalArgumentException("reps shorter than items")
  if (defs != null && defs.length < numItems) throw new IllegalArgumentException("defs shorter than items")
}
