package io.sparklance.format

import io.sparklance.format.proto.FileMetadataCodec
import io.sparklance.storage.{ObjectStore, RangeReader}
import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance docs/src/format/file/index.md; rust/lance-file/src/reader.rs.
// Opening a file reads its tail once: the footer, the column metadata offset (CMO) and
// global buffer offset (GBO) tables, global buffer 0 (schema and row count) and the
// column metadata usually all sit in the last few KiB. Every offset is checked against
// the file before it is used.

/**
 * An open Lance 2.x data file: its footer, descriptor (schema, row count) and the
 * metadata of every column. Page data is read on demand through [[readBuffers]].
 * The reader owns the underlying [[RangeReader]] and closes it.
 */
final class LanceFileReader private (
    val path: String,
    reader: RangeReader,
    val fileSize: Long,
    val footer: FileFooter,
    val descriptor: FileDescriptor,
    val columns: IndexedSeq[ColumnInfo],
    sparse: Boolean) extends DataFileReader {

  override def version: FileVersion = footer.version
  override def numRows: Long = descriptor.numRows

  override def bytesRead: Long = reader.bytesRead

  /** The file this reader reads, as caches of what is parsed from it key it. */
  def identity: FileIdentity = FileIdentity(path, fileSize, reader.modified)

  override def scan(field: LanceField, columnOf: Int => Option[Int]): FieldScanner =
    FieldScanner.open(this, field, columnOf)

  /**
   * Reads the given buffers of a page. Each range is checked against the file; buffers
   * close together are fetched with one request, but never the bytes of a large gap
   * between them (the mini-block chunk data that lies between its metadata and dictionary
   * is read on its own, lazily).
   */
  def readBuffers(page: PageInfo, what: => String): IndexedSeq[Bytes] = {
    val n = page.numBuffers
    if (page.bufferSizes.length != n)
      throw Errors.corrupt(path, s"$what lists ${page.bufferOffsets.length} buffer offsets but ${page.bufferSizes.length} sizes")
    (0 until n).foreach { i =>
      val off = page.bufferOffsets(i)
      val len = page.bufferSizes(i)
      if (off < 0 || len < 0 || off > fileSize - len)
        throw Errors.corrupt(path, off, s"$what buffer $i [$off, +$len) lies outside the $fileSize-byte file")
      if (len > Int.MaxValue - 64)
        throw Errors.unsupported(s"a page buffer of $len bytes", s"$path, $what")
    }
    val out = new Array[Bytes](n)
    // Runs of buffers in file order, each run read at once.
    val order = (0 until n).sortBy(page.bufferOffsets)
    var k = 0
    while (k < order.length) {
      val lo = page.bufferOffsets(order(k))
      var hi = lo + page.bufferSizes(order(k))
      var j = k + 1
      while (j < order.length && page.bufferOffsets(order(j)) - hi <= LanceFileReader.CoalesceGap &&
        math.max(hi, page.bufferOffsets(order(j)) + page.bufferSizes(order(j))) - lo <= LanceFileReader.CoalesceLimit) {
        hi = math.max(hi, page.bufferOffsets(order(j)) + page.bufferSizes(order(j)))
        j += 1
      }
      val run = Bytes(path, lo, reader.read(lo, (hi - lo).toInt))
      (k until j).foreach { r =>
        val i = order(r)
        out(i) = run.slice(page.bufferOffsets(i) - lo, page.bufferSizes(i), s"$what buffer $i")
      }
      k = j
    }
    out.toIndexedSeq
  }

  /**
   * A page buffer that is read window by window as it is sliced, so that rows skipped in
   * a large page are never fetched, while a front-to-back scan still reads in large
   * requests. `what` names the buffer for errors.
   */
  def lazyBuffer(offset: Long, size: Long, what: String): WindowedBuffer = {
    if (offset < 0 || size < 0 || offset > fileSize - size)
      throw Errors.corrupt(path, offset, s"$what [$offset, +$size) lies outside the $fileSize-byte file")
    new WindowedBuffer(this, offset, size, what, sparse)
  }

  /**
   * Global buffer `index` (0 is the descriptor), e.g. an index's bitmap that its schema
   * metadata points to. `maxBytes` bounds what is read: the entry comes from the file.
   */
  def globalBuffer(index: Int, maxBytes: Long): Bytes = {
    if (index < 0 || index >= footer.numGlobalBuffers)
      throw Errors.corrupt(path, s"global buffer $index is named, but the file has ${footer.numGlobalBuffers}")
    val entry = readRange(footer.gboTableStart + 16L * index, 16)
    val pos = entry.u64AsSize(0, s"global buffer $index position")
    val len = entry.u64AsSize(8, s"global buffer $index size")
    if (pos > footer.gboTableStart - len)
      throw Errors.corrupt(path, footer.gboTableStart, s"global buffer $index [$pos, +$len) does not end before the global buffer table")
    if (len > math.min(maxBytes, Int.MaxValue - 64L))
      throw Errors.corrupt(path, footer.gboTableStart, s"global buffer $index has $len bytes, more than the $maxBytes expected")
    readRange(pos, len.toInt)
  }

  private[format] def readRange(offset: Long, length: Int): Bytes = Bytes(path, offset, reader.read(offset, length))

  override def close(): Unit = reader.close()
}

/**
 * See [[LanceFileReader.lazyBuffer]]. A buffer of a file opened for scans is fetched in
 * windows of [[WindowedBuffer.Window]]. One of a file opened for `sparse` reads (a few rows
 * taken here and there) starts from a small window, so that a look-up does not fetch
 * megabytes around each row; while reads continue where the last slice ended, the windows
 * double up to the full size.
 */
final class WindowedBuffer(file: LanceFileReader, offset: Long, val length: Long, what: String, val sparse: Boolean) {
  private var windowStart = 0L
  private var window: Bytes = null
  private var lastEnd = 0L
  private var readAhead = if (sparse) WindowedBuffer.FirstWindow else WindowedBuffer.Window

  def path: String = file.path
  def fileOffset: Long = offset

  /** Bytes `[off, off + len)` of the buffer, reading a new window when they are not in the current one. */
  def slice(off: Long, len: Long, detail: => String): Bytes = {
    if (off < 0 || len < 0 || off > length - len)
      throw io.sparklance.util.Errors.corrupt(file.path, offset + math.max(off, 0L), s"$detail needs bytes [$off, +$len) of the $length-byte $what")
    if (window == null || off < windowStart || off + len > windowStart + window.length) {
      if (sparse) readAhead = if (window != null && off == lastEnd) math.min(readAhead * 2, WindowedBuffer.Window) else WindowedBuffer.FirstWindow
      val n = math.min(length - off, math.max(len, readAhead))
      if (n > Int.MaxValue - 64) throw io.sparklance.util.Errors.unsupported(s"a read of $n bytes", s"${file.path}, $what")
      window = file.readRange(offset + off, n.toInt)
      windowStart = off
    }
    lastEnd = off + len
    window.slice(off - windowStart, len, detail)
  }
}

object WindowedBuffer {
  /** How much of a page buffer one request of a scan fetches. */
  val Window: Long = 4L << 20
  /** What a sparse read fetches first, and after a jump: about a mini-block chunk. */
  val FirstWindow: Long = 8L << 10
}

object LanceFileReader {

  /** How much of a file's end is read in the first request (Rust reads 64 KiB). */
  val TailBytes: Int = 64 * 1024

  /** Buffers of one page are read in one request when no more than this lies between them... */
  private val CoalesceGap: Long = 64L * 1024
  /** ...and the request stays below this. */
  private val CoalesceLimit: Long = 16L * 1024 * 1024

  /**
   * Opens `path`. `sparse` says that few rows will be taken from here and there, so that
   * page data is fetched in small pieces rather than read ahead.
   */
  def open(store: ObjectStore, path: String, knownSize: Option[Long] = None, sparse: Boolean = false): LanceFileReader = {
    val reader = store.open(path, knownSize.filter(_ > 0))
    try {
      // The tail is parsed once per file and JVM (see FileMetadataCache).
      val m = FileMetadataCache.cache.getOrLoad(FileIdentity(path, reader.size, reader.modified))(parse(path, reader))
      new LanceFileReader(path, reader, reader.size, m.footer, m.descriptor, m.columns, sparse)
    } catch { case t: Throwable => reader.close(); throw t }
  }

  private def parse(path: String, reader: RangeReader): ParsedMetadata = {
    val size = reader.size
    val tailLen = math.min(size, TailBytes.toLong).toInt
    val tailStart = size - tailLen
    val tail = Bytes(path, tailStart, reader.read(tailStart, tailLen))
    val footer = FileFooter.parse(tail, size)

    // Only what the metadata needs is read: the first entry of the global buffer table,
    // the column metadata offset table, global buffer 0 (the descriptor) and each column's
    // metadata, all checked against the file first. Never a span from the smallest declared
    // position to the end: a damaged position of 0 (with a length of 0) would otherwise pull
    // the whole file onto the heap.
    def read(pos: Long, len: Long, what: String): Bytes =
      if (pos >= tailStart) tail.slice(pos - tailStart, len, what)
      else {
        if (len > Int.MaxValue - 64) throw Errors.unsupported(s"a $what of $len bytes", path)
        Bytes(path, pos, reader.read(pos, len.toInt))
      }
    val gboTable = read(footer.gboTableStart, 16, "global buffer offset table")
    val gb0Pos = gboTable.u64AsSize(0, "global buffer 0 position")
    val gb0Len = gboTable.u64AsSize(8, "global buffer 0 size")
    if (gb0Pos > footer.gboTableStart - gb0Len)
      throw Errors.corrupt(path, footer.gboTableStart, s"global buffer 0 [$gb0Pos, +$gb0Len) does not end before the global buffer table")
    val cmo = read(footer.cmoTableStart, 16L * footer.numColumns, "column metadata offset table")
    val columnRanges = (0 until footer.numColumns).map { i =>
      val pos = cmo.u64AsSize(16L * i, s"column $i metadata position")
      val len = cmo.u64AsSize(16L * i + 8, s"column $i metadata size")
      if (pos < footer.columnMetaStart || pos > footer.cmoTableStart - len)
        throw Errors.corrupt(path, footer.cmoTableStart + 16L * i,
          s"column $i metadata [$pos, +$len) lies outside the column metadata region [${footer.columnMetaStart}, ${footer.cmoTableStart})")
      (pos, len)
    }
    val metadata = MetadataRanges.fetch(path, (gb0Pos, gb0Len) +: columnRanges, read)

    val descriptor = FileMetadataCodec.parseDescriptor(metadata(gb0Pos, gb0Len, "file descriptor (global buffer 0)"))
    val columns = columnRanges.zipWithIndex.map { case ((pos, len), i) =>
      FileMetadataCodec.parseColumn(i, metadata(pos, len, s"column $i metadata"))
    }
    ParsedMetadata(footer, descriptor, columns)
  }
}

/**
 * Reads a file's metadata ranges (already checked against the file) as runs of nearby
 * ranges, one request per run, so that the descriptor and the column metadata, which
 * writers put next to each other, come in one read, while a large gap between ranges is
 * never read. Empty ranges read nothing.
 */
private object MetadataRanges {
  /** Ranges closer than this are read together. */
  private val Gap: Long = 64L * 1024

  /** A lookup of the bytes `[pos, +len)` of any of `ranges`, reading each run with `read`. */
  def fetch(path: String, ranges: Seq[(Long, Long)], read: (Long, Long, String) => Bytes): (Long, Long, String) => Bytes = {
    val sorted = ranges.filter(_._2 > 0).sortBy(_._1)
    val runs = scala.collection.mutable.ArrayBuffer.empty[(Long, Bytes)]
    var k = 0
    while (k < sorted.length) {
      val start = sorted(k)._1
      var end = start + sorted(k)._2
      k += 1
      while (k < sorted.length && sorted(k)._1 - end <= Gap) { end = math.max(end, sorted(k)._1 + sorted(k)._2); k += 1 }
      runs += start -> read(start, end - start, "file metadata")
    }
    val starts = runs.map(_._1).toArray
    (pos, len, what) =>
      if (len == 0) Bytes.wrap(path, pos, Array.emptyByteArray)
      else {
        // The run holding `pos`: the last that starts at or before it.
        val i = java.util.Arrays.binarySearch(starts, pos) match { case j if j >= 0 => j; case j => -j - 2 }
        val (start, bytes) = runs(i)
        bytes.slice(pos - start, len, what)
      }
  }
}
