package io.sparklance.table

import scala.collection.mutable

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{BigIntVector, FieldVector, UInt4Vector, UInt8Vector}

import io.sparklance.storage.ObjectStore
import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

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
// An equality look-up reads the small lookup file (decoded once per file, see IndexCache),
// then the values of only the pages whose [min, max] can hold a key, and the row addresses
// of only the rows that hold one.

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
    val lookup =
      try IndexCache.getOrLoad("btree page lookup", lookupFile.identity, (l: PageLookup) => l.bytes)(PageLookup.read(lookupFile))
      finally lookupFile.close()
    if (lookup.rangePartitioned) return None
    val batchSize = lookup.batchSize
    val pages = lookup.candidates(keys.toArray.sorted(IndexKeys.ordering))
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
      // The rows of page_data holding a key; only their row addresses are then decoded.
      val rows =
        try values.zip(ranges).flatMap { case (v, (from, _)) => matching(v, keys, dataFile.path).map(from + _) }.toArray
        finally values.foreach(_.close())
      if (rows.isEmpty) Some(Array.emptyLongArray)
      else {
        val ids = dataFile.take("ids", rows)
        try {
          val addresses = ids match {
            case u: UInt8Vector => u
            case other => throw Errors.corrupt(dataFile.path, s"row addresses are ${other.getField.getType}, expected uint64")
          }
          Some(Array.tabulate(rows.length) { i =>
            if (addresses.isNull(i)) throw Errors.corrupt(dataFile.path, "a row of page_data.lance has a null row address")
            addresses.get(i)
          })
        } finally ids.close()
      }
    } finally dataFile.close()
  }

  /**
   * The positions in `v` whose value is one of `keys`, ascending. Integer columns (the
   * usual key) compare primitive values against the sorted keys; others go through
   * [[IndexKeys.key]].
   */
  private def matching(v: FieldVector, keys: Set[Any], path: String): Array[Int] = {
    val out = Array.newBuilder[Int]
    val n = v.getValueCount
    v match {
      case x: BigIntVector if keys.forall(_.isInstanceOf[Long]) =>
        val sorted = keys.iterator.map(_.asInstanceOf[Long]).toArray.sorted
        val (lo, hi) = (sorted.head, sorted.last)
        var i = 0
        while (i < n) {
          if (!x.isNull(i)) {
            val k = x.get(i)
            if (k >= lo && k <= hi && java.util.Arrays.binarySearch(sorted, k) >= 0) out += i
          }
          i += 1
        }
      case _ =>
        var i = 0
        while (i < n) {
          if (IndexKeys.key(v, i, path).exists(keys.contains)) out += i
          i += 1
        }
    }
    out.result()
  }

  /**
   * What page_lookup.lance says, decoded once per file ([[IndexCache]]): whether the pages
   * are range-partitioned (a layout read elsewhere), the rows per page, and each page's
   * bounds and number, for pages holding a value (pages of nulls only never match). A
   * page's number is -1 where the file left it null, refused only if a key needs the page.
   */
  private final case class PageLookup(path: String, rangePartitioned: Boolean, batchSize: Long,
                                      mins: Array[Any], maxs: Array[Any], numbers: Array[Long]) {
    def bytes: Long = 128L + mins.iterator.map(weigh).sum + maxs.iterator.map(weigh).sum + 8L * numbers.length

    private def weigh(k: Any): Long = k match {
      case s: String => 48L + 2L * s.length
      case _ => 24L
    }

    /** The pages (ascending) whose [min, max] holds one of `sortedKeys`. */
    def candidates(sortedKeys: Array[Any]): IndexedSeq[Long] =
      mins.indices.flatMap { i =>
        if (!holdsKey(sortedKeys, mins(i), maxs(i))) None
        else if (numbers(i) < 0) throw Errors.corrupt(path, "a page that may hold a key has a null page_idx")
        else Some(numbers(i))
      }.distinct.sorted
  }

  private object PageLookup {
    def read(file: IndexFile): PageLookup = {
      val rangePartitioned = file.metadata.get("range_partitioned").exists(_ != "false")
      if (rangePartitioned) return PageLookup(file.path, rangePartitioned = true, 0L, Array.empty, Array.empty, Array.emptyLongArray)
      val batchSize = file.metadata.get("batch_size").map { s =>
        s.toLongOption.filter(_ > 0).getOrElse(throw Errors.corrupt(file.path, s"batch_size '$s' is not a positive number"))
      }.getOrElse(DefaultBatchSize)
      val columns = mutable.ArrayBuffer.empty[FieldVector]
      def column(name: String): FieldVector = { val v = file.column(name); columns += v; v }
      try {
        val min = column("min")
        val max = column("max")
        val idx = column("page_idx") match {
          case u: UInt4Vector => u
          case other => throw Errors.corrupt(file.path, s"page_idx is ${other.getField.getType}, expected uint32")
        }
        val (mins, maxs, numbers) = (mutable.ArrayBuffer.empty[Any], mutable.ArrayBuffer.empty[Any], mutable.ArrayBuffer.empty[Long])
        (0 until file.numRows.toInt).foreach { i =>
          (IndexKeys.key(min, i, file.path), IndexKeys.key(max, i, file.path)) match {
            case (Some(lo), Some(hi)) =>
              mins += lo
              maxs += hi
              numbers += (if (idx.isNull(i)) -1L else idx.get(i) & 0xffffffffL)
            case _ => // only nulls
          }
        }
        PageLookup(file.path, rangePartitioned = false, batchSize, mins.toArray, maxs.toArray, numbers.toArray)
      } finally columns.foreach(_.close())
    }
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
