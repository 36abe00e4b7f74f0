package io.sparklance.table

import scala.collection.mutable

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{LargeVarBinaryVector, VarBinaryVector}
import org.roaringbitmap.RoaringBitmap

import io.sparklance.storage.ObjectStore
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/index/scalar/bitmap.md,
// rust/lance-index/src/scalar/bitmap.rs (BitmapIndex::load) and
// rust/lance-core/src/utils/mask.rs (RowIdTreeMap::serialize_into). A BITMAP index is one
// Lance file, `bitmap_page_lookup.lance`, with a row per distinct value: `keys` (the
// column's type; one null key for the null rows) and `bitmaps` (binary), the addresses of
// the rows holding that value as a serialized RowIdTreeMap ([[RowAddrTreeMap]]).
// A look-up reads the keys, then only the bitmaps of the keys asked for.

object BitmapIndex {
  val Kind = "BitmapIndexDetails"

  private val FileName = "bitmap_page_lookup.lance"

  /**
   * The offsets, by fragment id, of the rows whose value equals one of `keys` (non-null,
   * in [[IndexKeys]] form). `physicalRows` gives the rows of a fragment of the table, for
   * entries that select all of them; fragments it does not know are left out.
   */
  def lookup(store: ObjectStore, indexDir: String, index: IndexMetadata, keys: Set[Any],
             physicalRows: Long => Option[Long], allocator: BufferAllocator): Map[Long, RoaringBitmap] = {
    val file = IndexFile.open(store, indexDir, index, FileName, allocator, sparse = true)
    try {
      val rows = {
        val k = file.column("keys")
        try { (0 until k.getValueCount).filter(i => IndexKeys.key(k, i, file.path).exists(keys.contains)).map(_.toLong).toArray }
        finally k.close()
      }
      val out = mutable.LongMap.empty[RoaringBitmap]
      if (rows.nonEmpty) {
        val bitmaps = file.take("bitmaps", rows)
        try {
          def bytes(i: Int): Array[Byte] = bitmaps match {
            case b: VarBinaryVector if !b.isNull(i) => b.get(i)
            case b: LargeVarBinaryVector if !b.isNull(i) => b.get(i)
            case b => throw Errors.corrupt(file.path, s"bitmap ${rows(i)} is ${if (b.isNull(i)) "null" else b.getField.getType.toString}, expected binary")
          }
          rows.indices.foreach { i =>
            RowAddrTreeMap.decode(bytes(i), s"${file.path}, bitmap ${rows(i)}").foreach { case (fragment, offsets) =>
              offsets.orElse(physicalRows(fragment).map(n => RoaringBitmap.bitmapOfRange(0, n))).foreach { selected =>
                out.getOrElseUpdate(fragment, new RoaringBitmap()).or(selected)
              }
            }
          }
        } finally bitmaps.close()
      }
      out.toMap
    } finally file.close()
  }
}
