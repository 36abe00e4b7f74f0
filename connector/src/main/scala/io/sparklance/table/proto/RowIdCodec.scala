package io.sparklance.table.proto

import java.nio.{ByteBuffer, ByteOrder}

import scala.jdk.CollectionConverters._

import com.google.protobuf.InvalidProtocolBufferException

import io.sparklance.util.Errors

// Spec: protos/lance/rowids.proto and lance-format/lance rust/lance-table/src/rowids/.
// A fragment's stable row ids, in physical row order, as a concatenation of segments:
// ranges, ranges with holes (absolute values missing), ranges with a bitmap (bit i, LSB
// first, says whether start + i is present — the proto comment says MSB, the bytes say
// LSB), and sorted or unsorted arrays (u16/u32 offsets from a base, or plain u64).

object RowIdCodec {
  import RowIdProtos.{EncodedU64Array, U64Segment}

  /** The row ids of `expectedRows` rows, decoded from a serialized RowIdSequence. */
  def decode(bytes: Array[Byte], expectedRows: Long, where: String): Array[Long] = {
    val seq =
      try RowIdProtos.RowIdSequence.parseFrom(bytes)
      catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(where, -1, "RowIdSequence", e) }
    if (expectedRows < 0 || expectedRows > Int.MaxValue - 8) throw Errors.unsupported(s"row ids of $expectedRows rows", where)
    val out = new Array[Long](expectedRows.toInt)
    var n = 0
    def add(v: Long): Unit = {
      if (n >= out.length) throw Errors.corrupt(where, s"the row id sequence holds more than the fragment's $expectedRows rows")
      out(n) = v; n += 1
    }
    seq.getSegmentsList.asScala.foreach(s => values(s, where).foreach(add))
    if (n != out.length) throw Errors.corrupt(where, s"the row id sequence holds $n ids for $expectedRows rows")
    out
  }

  /** The values of one segment, in order (shared by row id sequences and row version spans). */
  private[proto] def values(s: U64Segment, where: String): Iterator[Long] = s.getSegmentCase match {
    case U64Segment.SegmentCase.RANGE =>
      val r = s.getRange
      range(r.getStart, r.getEnd, where)
    case U64Segment.SegmentCase.RANGE_WITH_HOLES =>
      val r = s.getRangeWithHoles
      val holes = array(r.getHoles, where).toSet
      range(r.getStart, r.getEnd, where).filterNot(holes.contains)
    case U64Segment.SegmentCase.RANGE_WITH_BITMAP =>
      val r = s.getRangeWithBitmap
      val bits = r.getBitmap.toByteArray
      val len = range(r.getStart, r.getEnd, where).length
      if (bits.length.toLong * 8 < len) throw Errors.corrupt(where, s"a bitmap of ${bits.length} bytes covers fewer than $len values")
      Iterator.range(0, len).filter(i => ((bits(i >>> 3) >>> (i & 7)) & 1) != 0).map(r.getStart + _)
    case U64Segment.SegmentCase.SORTED_ARRAY => array(s.getSortedArray, where).iterator
    case U64Segment.SegmentCase.ARRAY => array(s.getArray, where).iterator
    case _ => throw Errors.corrupt(where, "an empty u64 segment")
  }

  /**
   * The smallest and largest id a serialized RowIdSequence may hold (None: no ids), read from
   * the segments' bounds without expanding ranges, so that a search for some ids can skip a
   * fragment cheaply (as the `row_id_range` prefilter of Rust's resolve_update_version_metadata,
   * rust/lance/src/dataset/transaction.rs, does).
   */
  def bounds(bytes: Array[Byte], where: String): Option[(Long, Long)] = {
    val seq =
      try RowIdProtos.RowIdSequence.parseFrom(bytes)
      catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(where, -1, "RowIdSequence", e) }
    seq.getSegmentsList.asScala.iterator.flatMap { s =>
      def span(start: Long, end: Long) = if (end > start) Some((start, end - 1)) else None
      def of(a: Array[Long]) = if (a.isEmpty) None else Some((a.min, a.max))
      s.getSegmentCase match {
        case U64Segment.SegmentCase.RANGE => span(s.getRange.getStart, s.getRange.getEnd)
        case U64Segment.SegmentCase.RANGE_WITH_HOLES => span(s.getRangeWithHoles.getStart, s.getRangeWithHoles.getEnd)
        case U64Segment.SegmentCase.RANGE_WITH_BITMAP => span(s.getRangeWithBitmap.getStart, s.getRangeWithBitmap.getEnd)
        case U64Segment.SegmentCase.SORTED_ARRAY => of(array(s.getSortedArray, where))
        case U64Segment.SegmentCase.ARRAY => of(array(s.getArray, where))
        case _ => None
      }
    }.reduceOption((a, b) => (math.min(a._1, b._1), math.max(a._2, b._2)))
  }

  private def range(start: Long, end: Long, where: String): Iterator[Long] = {
    if (end < start || end - start > Int.MaxValue) throw Errors.corrupt(where, s"a u64 range [$start, $end)")
    Iterator.range(0, (end - start).toInt).map(start + _)
  }

  private def array(a: EncodedU64Array, where: String): Array[Long] = {
    def le(b: com.google.protobuf.ByteString) = ByteBuffer.wrap(b.toByteArray).order(ByteOrder.LITTLE_ENDIAN)
    a.getArrayCase match {
      case EncodedU64Array.ArrayCase.U16_ARRAY =>
        val b = le(a.getU16Array.getOffsets)
        if (b.remaining() % 2 != 0) throw Errors.corrupt(where, "u16 row id offsets of an odd byte length")
        Array.fill(b.remaining() / 2)(a.getU16Array.getBase + (b.getShort() & 0xffffL))
      case EncodedU64Array.ArrayCase.U32_ARRAY =>
        val b = le(a.getU32Array.getOffsets)
        if (b.remaining() % 4 != 0) throw Errors.corrupt(where, "u32 row id offsets of a length not a multiple of 4")
        Array.fill(b.remaining() / 4)(a.getU32Array.getBase + (b.getInt() & 0xffffffffL))
      case EncodedU64Array.ArrayCase.U64_ARRAY =>
        val b = le(a.getU64Array.getValues)
        if (b.remaining() % 8 != 0) throw Errors.corrupt(where, "u64 row ids of a length not a multiple of 8")
        Array.fill(b.remaining() / 8)(b.getLong())
      case _ => Array.emptyLongArray
    }
  }

  // ---- build side ------------------------------------------------------------------------

  /**
   * A RowIdSequence of the ids [start, end): one range segment, as Rust's
   * `RowIdSequence::from(Range)` writes for a new fragment (rust/lance-table/src/rowids.rs).
   */
  def encodeRange(start: Long, end: Long): Array[Byte] =
    RowIdProtos.RowIdSequence.newBuilder()
      .addSegments(U64Segment.newBuilder().setRange(U64Segment.Range.newBuilder().setStart(start).setEnd(end)))
      .build().toByteArray

  /**
   * A RowIdSequence of `ids` in row order: one range when they are consecutive, else one array
   * of u32 offsets from the smallest id (u64 values when they span more), as Rust's
   * `U64Segment::from_slice` chooses for rows moved by an update (rust/lance-table/src/rowids/segment.rs).
   */
  def encodeIds(ids: Array[Long]): Array[Byte] = {
    if (ids.isEmpty) return RowIdProtos.RowIdSequence.getDefaultInstance.toByteArray
    if (ids.indices.forall(i => ids(i) == ids(0) + i)) return encodeRange(ids(0), ids(0) + ids.length)
    RowIdProtos.RowIdSequence.newBuilder().addSegments(U64Segment.newBuilder().setArray(encodeArray(ids, u16 = false))).build().toByteArray
  }

  /**
   * A RowIdSequence of one segment per run of `runs` (the rows a compaction took from each old
   * fragment, its deleted rows left out), each run as Rust's `U64Segment::from_slice` encodes it
   * (rust/lance-table/src/rowids/segment.rs): a range when consecutive; when ascending, the
   * smallest of a range with holes, a range with a bitmap (one bit per id, LSB first, 1 = present)
   * and a sorted array; else an array. Keeping one segment per old fragment keeps the segments'
   * id ranges narrow, which Lance's row id index (rowids/index.rs) looks ids up by.
   */
  def encodeRuns(runs: Seq[Array[Long]]): Array[Byte] = {
    val b = RowIdProtos.RowIdSequence.newBuilder()
    runs.filter(_.nonEmpty).foreach(r => b.addSegments(segment(r)))
    b.build().toByteArray
  }

  private def segment(ids: Array[Long]): U64Segment.Builder = {
    val (first, last) = (ids.head, ids.last)
    if (last - first == ids.length - 1 && ids.indices.forall(i => ids(i) == first + i))
      U64Segment.newBuilder().setRange(U64Segment.Range.newBuilder().setStart(first).setEnd(last + 1))
    else if (ids.indices.tail.forall(i => ids(i) > ids(i - 1))) {
      val span = last - first + 1
      val holes = span - ids.length
      val width = (v: Long) => if (v <= 0xffffL) 2L else if (v <= 0xffffffffL) 4L else 8L
      val holesBytes = holes * width(span)
      val bitmapBytes = (span + 7) / 8
      val sortedBytes = ids.length * width(span)
      if (bitmapBytes <= holesBytes && bitmapBytes <= sortedBytes) {
        val bits = new Array[Byte](bitmapBytes.toInt)
        ids.foreach { id => val i = id - first; bits((i >>> 3).toInt) = (bits((i >>> 3).toInt) | (1 << (i & 7))).toByte }
        U64Segment.newBuilder().setRangeWithBitmap(U64Segment.RangeWithBitmap.newBuilder().setStart(first).setEnd(last + 1)
          .setBitmap(com.google.protobuf.ByteString.copyFrom(bits)))
      } else if (holesBytes <= sortedBytes) {
        val present = ids.iterator
        var next = present.next()
        val missing = Array.newBuilder[Long]
        var v = first
        while (v <= last) { if (v == next) { if (present.hasNext) next = present.next() } else missing += v; v += 1 }
        U64Segment.newBuilder().setRangeWithHoles(U64Segment.RangeWithHoles.newBuilder().setStart(first).setEnd(last + 1)
          .setHoles(encodeArray(missing.result())))
      } else U64Segment.newBuilder().setSortedArray(encodeArray(ids))
    } else U64Segment.newBuilder().setArray(encodeArray(ids))
  }

  /** `ids` as offsets from the smallest (u16, if allowed, or u32 when they fit), else as u64 values. */
  private def encodeArray(ids: Array[Long], u16: Boolean = true): EncodedU64Array = {
    val min = ids.min
    val span = ids.max - min
    def offsets(width: Int): com.google.protobuf.ByteString = {
      val b = ByteBuffer.allocate(ids.length * width).order(ByteOrder.LITTLE_ENDIAN)
      ids.foreach(id => if (width == 2) b.putShort((id - min).toShort) else b.putInt((id - min).toInt))
      com.google.protobuf.ByteString.copyFrom(b.array())
    }
    if (u16 && span <= 0xffffL) EncodedU64Array.newBuilder().setU16Array(EncodedU64Array.U16Array.newBuilder().setBase(min).setOffsets(offsets(2))).build()
    else if (span <= 0xffffffffL) EncodedU64Array.newBuilder().setU32Array(EncodedU64Array.U32Array.newBuilder().setBase(min).setOffsets(offsets(4))).build()
    else {
      val b = ByteBuffer.allocate(ids.length * 8).order(ByteOrder.LITTLE_ENDIAN)
      ids.foreach(b.putLong)
      EncodedU64Array.newBuilder().setU64Array(EncodedU64Array.U64Array.newBuilder().setValues(com.google.protobuf.ByteString.copyFrom(b.array()))).build()
    }
  }
}
