package io.sparklance.table.proto

import scala.jdk.CollectionConverters._

import com.google.protobuf.InvalidProtocolBufferException

import io.sparklance.util.Errors

// Spec: protos/lance/rowids.proto (RowDatasetVersionSequence) and lance-format/lance
// rust/lance-table/src/rowids/version.rs. On tables with stable row ids each fragment records,
// for its rows in physical order, the version that created each row and the version that last
// updated it, as runs of (span, version). Only the number of values in a span counts (a run
// covers that many rows after the previous run): Rust writes plain ranges of positions, but its
// compaction carries a run over with the deleted positions masked out of the span, which then
// is a range with a bitmap (pylance 14.0.2 writes these), so every segment form is read.

/** One fragment's row versions: run `i` covers the rows before `ends(i)` and after the previous run. */
final class RowVersions private[proto] (ends: Array[Long], versions: Array[Long]) {

  /** Rows covered by the runs. */
  def rows: Long = if (ends.isEmpty) 0L else ends.last

  /** The version of the row at physical position `position`, None when no run covers it. */
  def at(position: Long): Option[Long] = {
    var i = java.util.Arrays.binarySearch(ends, position)
    // A hit is the end of run i, so the row is in run i + 1; a miss gives the first run ending after it.
    i = if (i >= 0) i + 1 else -i - 1
    if (position < 0 || i >= ends.length) None else Some(versions(i))
  }
}

object RowVersionCodec {
  import RowIdProtos.{RowDatasetVersionRun, RowDatasetVersionSequence, U64Segment}

  /**
   * The runs of a serialized RowDatasetVersionSequence of a fragment of `rows` rows (`where`
   * names it for errors). Runs are counted no further than the fragment's rows, so a span read
   * from a hostile manifest (each range may name two billion positions) cannot keep this long.
   */
  def decode(bytes: Array[Byte], rows: Long, where: String): RowVersions = {
    val seq =
      try RowDatasetVersionSequence.parseFrom(bytes)
      catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(where, -1, "RowDatasetVersionSequence", e) }
    val runs = seq.getRunsList.asScala.toIndexedSeq
    runs.indices.find(i => !runs(i).hasSpan).foreach(i => throw Errors.corrupt(where, s"version run $i has no span"))
    val ends = new Array[Long](runs.length)
    var end = 0L
    runs.indices.foreach { i =>
      val left = rows - end
      val n = RowIdCodec.values(runs(i).getSpan, where).take(math.min(left + 1, Int.MaxValue.toLong).toInt).size
      if (n > left) throw Errors.corrupt(where, s"version run $i covers rows past the fragment's $rows")
      end += n
      ends(i) = end
    }
    // Empty runs cover no row; dropping them keeps the run ends strictly increasing for the search.
    val kept = runs.indices.filter(i => i == 0 && ends(0) > 0 || i > 0 && ends(i) > ends(i - 1))
    new RowVersions(kept.map(ends).toArray, kept.map(i => runs(i).getVersion).toArray)
  }

  /**
   * A RowDatasetVersionSequence of `versions` (one per row, in physical order): one run per
   * stretch of equal versions, each spanning its positions as a range, as Rust's
   * `RowDatasetVersionSequence::from_versions` writes (one run for a fragment whose rows all
   * have one version, as `from_uniform_row_count`).
   */
  def encode(versions: Array[Long]): Array[Byte] = {
    val b = RowDatasetVersionSequence.newBuilder()
    var start = 0
    while (start < versions.length) {
      var end = start + 1
      while (end < versions.length && versions(end) == versions(start)) end += 1
      b.addRuns(RowDatasetVersionRun.newBuilder()
        .setSpan(U64Segment.newBuilder().setRange(U64Segment.Range.newBuilder().setStart(start.toLong).setEnd(end.toLong)))
        .setVersion(versions(start)))
      start = end
    }
    b.build().toByteArray
  }

  /** Every one of `rows` rows at `version`: one run over [0, rows) (`from_uniform_row_count`). */
  def encodeUniform(rows: Long, version: Long): Array[Byte] =
    RowDatasetVersionSequence.newBuilder()
      .addRuns(RowDatasetVersionRun.newBuilder()
        .setSpan(U64Segment.newBuilder().setRange(U64Segment.Range.newBuilder().setStart(0).setEnd(rows)))
        .setVersion(version))
      .build().toByteArray
}
