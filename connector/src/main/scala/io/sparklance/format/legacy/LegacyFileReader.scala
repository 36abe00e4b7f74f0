package io.sparklance.format.legacy

import scala.collection.mutable

import io.sparklance.format.{DataFileReader, FieldScanner, FileVersion, LanceField}
import io.sparklance.format.proto.LegacyMetadataCodec
import io.sparklance.storage.{ObjectStore, RangeReader}
import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance protos/file.proto `Metadata` and rust/lance-file/src/previous/
// {reader.rs, writer/mod.rs, format/metadata.rs} (the pre-2.0 layout: data pages, page table,
// statistics, dictionaries, embedded manifest, metadata, footer). A legacy file ends with a 16-byte footer: i64 position of
// a length-prefixed `Metadata` message, u16 major, u16 minor ((0, 1) or (0, 2)), "LANC".
// Metadata locates the embedded manifest (the file's schema, dictionary locations included),
// the page table and the statistics. The tail is read once; whatever it does not cover is
// read with exact, checked ranges.

/**
 * An open legacy (0.1) data file. Rows are stored in batches (row groups); every field has one
 * page per batch. Also gives the page-level statistics the writer recorded.
 * The reader owns the underlying [[RangeReader]] and closes it.
 */
final class LegacyFileReader private (
    val path: String,
    reader: RangeReader,
    val fileSize: Long,
    tail: Bytes,
    val metadata: LegacyMetadata,
    val fileSchema: LegacyFileSchema,
    private[legacy] val pageTable: PageTable) extends DataFileReader {

  override def version: FileVersion = FileVersion.Legacy

  private val offsets = metadata.batchOffsets

  override val numRows: Long = offsets.lastOption.map(_.toLong).getOrElse(0L)

  /** Number of batches (row groups). */
  def numBatches: Int = math.max(offsets.length - 1, 0)

  /** First row of `batch`. */
  def batchStart(batch: Int): Long = offsets(batch).toLong

  /** One past the last row of `batch`. */
  def batchEnd(batch: Int): Long = offsets(batch + 1).toLong

  override def bytesRead: Long = reader.bytesRead

  /**
   * A scanner of top-level `field`. Legacy pages are found by field id through the page
   * table, so `columnOf` (the column indices of 2.x files) is not used.
   */
  override def scan(field: LanceField, columnOf: Int => Option[Int]): FieldScanner = new LegacyFieldScanner(this, field)

  // ---- statistics ------------------------------------------------------------------------

  private lazy val statistics: Option[PageStatistics] = metadata.statistics.flatMap(s => PageStatistics.open(this, s))
  private val statsCache = mutable.HashMap.empty[Int, Option[IndexedSeq[PageStats]]]

  /**
   * The statistics of field `fieldId` (top level or inside a struct), one entry per batch in
   * row order, or None when the file has none for it. The writer records them for booleans,
   * integers, floats, dates, decimals, strings and binaries (not for timestamps, lists,
   * dictionaries). See [[PageStats]] for what the bounds promise.
   */
  def pageStatistics(fieldId: Int): Option[IndexedSeq[PageStats]] =
    statsCache.getOrElseUpdate(fieldId, statistics.flatMap(_.forField(fieldId)))

  // ---- byte ranges -----------------------------------------------------------------------

  /** Checked byte ranges of this file for the page decoders. */
  private[legacy] val source: PageSource = new PageSource {
    def path: String = LegacyFileReader.this.path
    def read(offset: Long, length: Long, what: => String): Bytes = readRange(offset, length, what)
  }

  private def readRange(offset: Long, length: Long, what: => String): Bytes = {
    if (offset < 0 || length < 0 || offset > fileSize - length)
      throw Errors.corrupt(path, math.max(offset, 0L), s"$what [$offset, +$length) lies outside the $fileSize-byte file")
    val tailStart = fileSize - tail.length
    if (offset >= tailStart) tail.slice(offset - tailStart, length, what)
    else {
      if (length > Int.MaxValue - 64) throw Errors.unsupported(s"a read of $length bytes", s"$path, $what")
      Bytes(path, offset, reader.read(offset, length.toInt))
    }
  }

  override def close(): Unit = reader.close()
}

object LegacyFileReader {

  /** How much of a file's end is read first: footer, metadata, manifest and page table usually fit. */
  val TailBytes: Int = 64 * 1024

  private val FooterBytes = 16
  private val Magic = "LANC".getBytes(java.nio.charset.StandardCharsets.US_ASCII)

  /** Opens `path`; its size comes from storage (see [[io.sparklance.format.DataFileReader.open]]). */
  def open(store: ObjectStore, path: String): LegacyFileReader = {
    val reader = store.open(path)
    try openWith(path, reader)
    catch { case t: Throwable => reader.close(); throw t }
  }

  private def openWith(path: String, reader: RangeReader): LegacyFileReader = {
    val size = reader.size
    if (size < FooterBytes)
      throw Errors.corrupt(path, 0, s"the file has $size bytes, fewer than the $FooterBytes-byte legacy footer")
    val tailLen = math.min(size, TailBytes.toLong).toInt
    val tail = Bytes(path, size - tailLen, reader.read(size - tailLen, tailLen))
    val footer = tail.from(tailLen - FooterBytes, "legacy footer")
    if (!(0 until 4).forall(i => footer.u8(12 + i) == (Magic(i) & 0xff)))
      throw Errors.corrupt(path, size - 4, "the file does not end with the magic \"LANC\"")
    val major = footer.u16(8)
    val minor = footer.u16(10)
    if (FileVersion.fromFooter(path, major, minor) != FileVersion.Legacy)
      throw Errors.corrupt(path, size - 8, s"the manifest records a legacy (0.1) data file but the footer says version $major.$minor")
    val metadataEnd = size - FooterBytes

    // Ranges below come from the file: check each against the region it must lie in.
    def region(offset: Long, length: Long, limit: Long, what: String): Bytes = {
      if (offset < 0 || length < 0 || offset > limit - length)
        throw Errors.corrupt(path, math.max(offset, 0L), s"$what [$offset, +$length) lies outside [0, $limit)")
      if (offset >= size - tailLen) tail.slice(offset - (size - tailLen), length, what)
      else {
        if (length > Int.MaxValue - 64) throw Errors.unsupported(s"a $what of $length bytes", path)
        Bytes(path, offset, reader.read(offset, length.toInt))
      }
    }
    // A protobuf message written with a u32 length prefix.
    def prefixed(position: Long, limit: Long, what: String): Bytes = {
      val len = region(position, 4, limit, s"$what length").u32(0)
      region(position + 4, len, limit, what)
    }

    val metadataPos = footer.i64(0)
    val metadata = LegacyMetadataCodec.parseMetadata(prefixed(metadataPos, metadataEnd, "legacy file Metadata"))

    val offsets = metadata.batchOffsets
    if (offsets.nonEmpty && offsets.head != 0)
      throw Errors.corrupt(path, metadataPos, s"legacy file Metadata: batch offsets start at ${offsets.head}, not 0")
    offsets.indices.drop(1).foreach { i =>
      if (offsets(i) < offsets(i - 1))
        throw Errors.corrupt(path, metadataPos, s"legacy file Metadata: batch offset ${offsets(i)} (batch $i) is smaller than the one before it")
    }

    val schemaPos = metadata.manifestPosition.getOrElse(
      throw Errors.unsupported("a legacy (0.1) data file without an embedded schema", path))
    val schema = LegacyMetadataCodec.parseEmbeddedSchema(prefixed(schemaPos, metadataEnd, "embedded manifest"))
    val ids = schema.fieldIds
    if (ids.isEmpty) throw Errors.corrupt(path, schemaPos, "the embedded schema has no fields")
    val numBatches = math.max(offsets.length - 1, 0)
    val tableLen = PageTable.byteSize(ids.min, ids.max, numBatches).getOrElse(
      throw Errors.corrupt(path, schemaPos, s"field ids ${ids.min}..${ids.max} and $numBatches batches make no page table"))
    val pageTable = PageTable.parse(region(metadata.pageTablePosition, tableLen, metadataEnd, "page table"),
      ids.min, ids.max, numBatches, size, "page table")

    new LegacyFileReader(path, reader, size, tail, metadata, schema, pageTable)
  }
}
