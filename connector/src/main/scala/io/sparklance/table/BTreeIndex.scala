package io.sparklance.table

import scala.collection.mutable

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{FieldVector, UInt4Vector, UInt8Vector}

import io.sparklance.storage.ObjectStore
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/index/scalar/btree.md and
// rust/lance-index/src/scalar/btree.rs (BTreeLookup, read_page). A BTREE index is two
// Lance files in its directory:
//   page_data.lance    every indexed value, sorted (nulls first): `values` (the column's
//                      type) and `ids` (uint64 row addresses); page p is its rows
//                      [p * batch_size, (p + 1) * batch_size)
//   page_lookup.lance  one row per page: `min` and `max` of its non-null values (null when
//                      it holds only nulls), `null_count`, `page_idx` (uint32); the schema
//                      metadata holds `batch_size` (4096 when absent) and, since pylance 14,
//                      `range_partitioned`, whose "true" form lays pages out differently
// An equality look-up reads the small lookup file, then only the pages whose [min, max]
// can hold a key.

object BTreeIndex {
  val Kind = "BTreeIndexDetails"

  private val DefaultBatchSize = 4096L

  /**
   * The most page_data rows a look-up reads, on the driver. Keys spread over more pages
   * (a long IN list, a value most rows hold) are better left to scans on the executors.
   */
  private val MaxRows = 1L << 20

  /**
   * The row addresses whose value equals one of `keys` (non-null, in [[IndexKeys]] form);
   * None for a layout this reader does not know, or when the keys span more than
   * [[MaxRows]] rows of pages.
   */
  def lookup(store: ObjectStore, indexDir: String, index: IndexMetadata, keys: Set[Any],
             allocator: BufferAllocator): Option[Array[Long]] = {
    val lookupFile = IndexFile.open(store, indexDir, index, "page_lookup.lance", allocator)
    val (batchSize, pages) =
      try {
        if (lookupFile.metadata.get("range_partitioned").exists(_ != "false")) return None
        val batchSize = lookupFile.metadata.get("batch_size").map { s =>
          s.toLongOption.filter(_ > 0).getOrElse(throw Errors.corrupt(lookupFile.path, s"batch_size '$s' is not a positive number"))
        }.getOrElse(DefaultBatchSize)
        (batchSize, candidatePages(lookupFile, keys.toArray.sorted(IndexKeys.ordering)))
      } finally lookupFile.close()
    if (pages.isEmpty) return Some(Array.emptyLongArray)
    if (pages.length > MaxRows / batchSize) return None

    val dataFile = IndexFile.open(store, indexDir, index, "page_data.lance", allocator, sparse = true)
    try {
      val n = dataFile.numRows
      // Adjacent pages are read as one range.
      val ranges = mutable.ArrayBuffer.empty[(Long, Long)]
      pages.foreach { p =>
        if (p > (Long.MaxValue - batchSize) / batchSize || p * batchSize >= n)
          throw Errors.corrupt(lookupFile.path, s"page $p of $batchSize rows starts past the $n rows of page_data.lance")
        val from = p * batchSize
        val until = math.min(from + batchSize, n)
        if (ranges.nonEmpty && ranges.last._2 == from) ranges(ranges.length - 1) = (ranges.last._1, until)
        else ranges += ((from, until))
      }
      val values = dataFile.ranges("values", ranges.toSeq)
      try {
        val ids = dataFile.ranges("ids", ranges.toSeq)
        try {
          val hits = Array.newBuilder[Long]
          values.zip(ids).foreach { case (v, idVector) =>
            val addresses = idVector match {
              case u: UInt8Vector => u
              case other => throw Errors.corrupt(dataFile.path, s"row addresses are ${other.getField.getType}, expected uint64")
            }
            var i = 0
            while (i < v.getValueCount) {
              if (IndexKeys.key(v, i, dataFile.path).exists(keys.contains)) {
                if (addresses.isNull(i)) throw Errors.corrupt(dataFile.path, "a row of page_data.lance has a null row address")
                hits += addresses.get(i)
              }
              i += 1
            }
          }
          Some(hits.result())
        } finally ids.foreach(_.close())
      } finally values.foreach(_.close())
    } finally dataFile.close()
  }

  /** The pages (ascending) whose [min, max] holds one of `sortedKeys`. */
  private def candidatePages(file: IndexFile, sortedKeys: Array[Any]): IndexedSeq[Long] = {
    val columns = mutable.ArrayBuffer.empty[FieldVector]
    def column(name: String): FieldVector = { val v = file.column(name); columns += v; v }
    try {
      val min = column("min")
      val max = column("max")
      val idx = column("page_idx") match {
        case u: UInt4Vector => u
        case other => throw Errors.corrupt(file.path, s"page_idx is ${other.getField.getType}, expected uint32")
      }
      (0 until file.numRows.toInt).flatMap { i =>
        (IndexKeys.key(min, i, file.path), IndexKeys.key(max, i, file.path)) match {
          case (Some(lo), Some(hi)) if holdsKey(sortedKeys, lo, hi) =>
            if (idx.isNull(i)) throw Errors.corrupt(file.path, s"page $i has a null page_idx")
            Some(idx.get(i) & 0xffffffffL)
          case _ => None // only nulls, or no key in range
        }
      }.distinct.sorted
    } finally columns.foreach(_.close())
  }

  /** Whether a key lies in [lo, hi]: the first key not below lo is not above hi. */
  private def holdsKey(sortedKeys: Array[Any], lo: Any, hi: Any): Boolean = {
    val ord = IndexKeys.ordering
    var a = 0
    var b = sortedKeys.length
    while (a < b) {
      val m = (a + b) >>> 1
      if (ord.lt(sortedKeys(m), lo)) a = m + 1 else b = m
    }
    a < sortedKeys.length && ord.lteq(sortedKeys(a), hi)
  }
}
