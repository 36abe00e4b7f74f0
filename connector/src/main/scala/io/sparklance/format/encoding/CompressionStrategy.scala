// Spec: lance-format/lance rust/lance-encoding/src/compression.rs (`DefaultCompressionStrategy`:
// `create_miniblock_compressor`, `create_block_compressor`, `create_per_value`, with
// `try_bss_for_mini_block`, `try_rle_for_mini_block`, `try_bitpack_for_mini_block`,
// `try_rle_for_block`, `try_bitpack_for_block`, `try_general_compression`), as of Lance 9.0, for
// file versions 2.1 and 2.2 (the u8 run-length RLE; 2.3's RLE "v2" and child encodings are not
// written). The one place where a page's compressive encoding is chosen, from its values and
// its field's `lance-encoding:*` metadata. Whether a page is dictionary encoded, mini-block or
// full-zip is the structural writer's choice, made before this one.
package io.sparklance.format.encoding

import io.sparklance.format.FileVersion
import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

/** Byte-stream-split preference (`lance-encoding:bss`); it only applies when general compression is asked for. */
sealed abstract class BssMode(val sensitivity: Double) extends Serializable // Serializable itself: see FileVersion (Scala 2.12)
object BssMode {
  case object Off extends BssMode(0.0)
  case object On extends BssMode(1.0)
  case object Auto extends BssMode(0.5)
}

/**
 * How one column asks to be compressed, parsed once from its field metadata, plus the two facts
 * about its type the choice needs: the offset width of variable-width values (32, or 64 for the
 * large types) and whether they are binary (never FSST-compressed unless asked).
 */
final case class FieldCompression(
    compression: Option[String] = None,
    level: Option[Int] = None,
    rleThreshold: Option[Double] = None,
    bss: BssMode = BssMode.Auto,
    bitsPerOffset: Int = 32,
    binary: Boolean = false) {

  /** `zstd` or `lz4` as a buffer compression, when that is what was asked for. */
  def general: Option[BufferCompression] = compression.collect {
    case "zstd" => BufferCompression(CompressionScheme.Zstd, level)
    case "lz4" => BufferCompression(CompressionScheme.Lz4, level)
  }

  def none: Boolean = compression.contains("none")
  def fsst: Boolean = compression.contains("fsst")
}

object FieldCompression {
  final val CompressionKey = "lance-encoding:compression"
  final val LevelKey = "lance-encoding:compression-level"
  final val RleThresholdKey = "lance-encoding:rle-threshold"
  final val BssKey = "lance-encoding:bss"

  /** Rep/def levels: u16 values of no field, so no metadata. */
  val Levels: FieldCompression = FieldCompression()

  /**
   * Reads the keys as the Rust writer does (compression.rs `parse_field_metadata`): an unknown
   * compression scheme is an error; an unparsable level or threshold, or an unknown bss mode, is
   * ignored.
   */
  def fromMetadata(field: String, metadata: Map[String, String], bitsPerOffset: Int = 32, binary: Boolean = false): FieldCompression = {
    val compression = metadata.get(CompressionKey).map(_.trim.toLowerCase(java.util.Locale.ROOT))
    compression.foreach { c =>
      if (!Set("zstd", "lz4", "none", "fsst").contains(c))
        throw Errors.invalidOption(s"$CompressionKey of field $field", c, "zstd, lz4, fsst or none")
    }
    FieldCompression(
      compression,
      metadata.get(LevelKey).flatMap(_.trim.toIntOption),
      metadata.get(RleThresholdKey).flatMap(_.trim.toDoubleOption),
      metadata.get(BssKey).map(_.trim.toLowerCase(java.util.Locale.ROOT)) match {
        case Some("off") => BssMode.Off
        case Some("on") => BssMode.On
        case _ => BssMode.Auto
      },
      bitsPerOffset,
      binary)
  }
}

/**
 * Picks the compressor for a page's values. `fsstMiniBlock` / `fsstPerValue` build the FSST
 * compressors for an offset width; they are parameters so that the choice can be tested apart
 * from FSST itself.
 */
final class CompressionStrategy(
    version: FileVersion,
    fsstMiniBlock: Int => MiniBlockCompressor = FsstCompressors.miniBlock,
    fsstPerValue: Int => PerValueCompressor = FsstCompressors.perValue) {
  import CompressionStrategy._

  require(version >= FileVersion.V2_1, s"compressive encodings are written in files of version 2.1 and later, not $version")

  /** `create_miniblock_compressor`. */
  def miniBlock(field: FieldCompression, values: DecodedValues): MiniBlockCompressor = values match {
    case f: FixedWidthValues => fixedMiniBlock(field, f)
    case v: VariableData => variableMiniBlock(field, v)
    // FSL items are never compressed: a chunk must not split a row, and item validity rides along.
    case _: FixedSizeListValues => Flat.MiniBlock
    case _: StructValues => PackedStruct.MiniBlock
    case other => throw new IllegalArgumentException(s"no mini-block compression for ${other.describe}")
  }

  /** `create_block_compressor`: rep/def levels and dictionaries. */
  def block(field: FieldCompression, values: DecodedValues): BlockCompressor = values match {
    case f: FixedWidthValues =>
      val stats = FixedWidthStatistics.of(f)
      rleBlock(field, stats)
        .orElse(bitpackBlock(stats))
        .orElse(generalBlock(field, stats.dataSize).map(c => new General.Block(new Flat.Block(f.bitsPerValue), c)))
        .getOrElse(new Flat.Block(f.bitsPerValue))
    case v: VariableData =>
      val plain = new VariableLayout.Block(field.bitsPerOffset)
      generalBlock(field, VariableStatistics.of(v, field.bitsPerOffset).dataSize).fold(plain: BlockCompressor)(new General.Block(plain, _))
    case other => throw new IllegalArgumentException(s"no block compression for ${other.describe}")
  }

  /** The block compressor for a page's u16 repetition or definition levels. */
  def levels(levels: FixedWidthValues): BlockCompressor = block(FieldCompression.Levels, levels)

  /** `create_per_value`: values of full-zip pages. */
  def perValue(field: FieldCompression, values: DecodedValues): PerValueCompressor = values match {
    case _: FixedWidthValues | _: FixedSizeListValues => Flat.PerValue
    case v: VariableData =>
      if (field.none) new VariableLayout.PerValue(field.bitsPerOffset)
      else {
        val stats = VariableStatistics.of(v, field.bitsPerOffset)
        // Very long values, or any compression other than FSST asked for: zstd each value (the
        // Rust writer uses its default compression whichever scheme was asked for).
        val requested = field.compression.exists(_ != "fsst")
        if ((stats.maxLength > MaxPlainValueBytes || requested) && stats.dataSize >= FsstMinBytes)
          new General.PerValue(field.bitsPerOffset, General.DefaultCompression)
        else if (useFsst(field, stats)) fsstPerValue(field.bitsPerOffset)
        else new VariableLayout.PerValue(field.bitsPerOffset)
      }
    case other => throw new IllegalArgumentException(s"no per-value compression for ${other.describe}")
  }

  // ---- mini-block ---------------------------------------------------------------------------

  /** `build_fixed_width_compressor`: BSS, else RLE, else bit packing, else flat; then general. */
  private def fixedMiniBlock(field: FieldCompression, f: FixedWidthValues): MiniBlockCompressor =
    if (field.none) Flat.MiniBlock
    else {
      val stats = FixedWidthStatistics.of(f)
      val base = bss(field, stats)
        .orElse(rleMiniBlock(field, stats))
        .orElse(InlineBitpacking.estimatedBytes(stats.bitsPerValue, stats.blockWidths, stats.dataSize).map(_ => new InlineBitpacking.MiniBlock(stats.bitsPerValue, stats.blockWidths)))
        .getOrElse(Flat.MiniBlock)
      field.general.fold(base)(new General.MiniBlock(base, _))
    }

  /** `try_bss_for_mini_block` / byte_stream_split.rs `should_use_bss`. */
  private def bss(field: FieldCompression, stats: FixedWidthStatistics): Option[MiniBlockCompressor] = {
    // Splitting bytes only pays under a general compressor.
    if (field.compression.isEmpty || (stats.bitsPerValue != 32 && stats.bitsPerValue != 64)) return None
    val use = field.bss match {
      case BssMode.Off => false
      case BssMode.On => true
      case BssMode.Auto =>
        val e = stats.byteEntropyMillibits
        e.nonEmpty && e.sum.toDouble / e.length / 1000.0 < field.bss.sensitivity * 8.0
    }
    if (use) Some(new ByteStreamSplit.MiniBlock(stats.bitsPerValue)) else None
  }

  /**
   * `try_rle_for_mini_block`: RLE when its runs take fewer bytes than the raw values and bit
   * packing would not be smaller still; a threshold from the metadata must also hold.
   */
  private def rleMiniBlock(field: FieldCompression, stats: FixedWidthStatistics): Option[MiniBlockCompressor] = {
    if (!isWord(stats.bitsPerValue) || !passesThreshold(field, stats)) return None
    val bytes = stats.bitsPerValue / 8
    val rleBytes = stats.miniBlockRuns * (bytes + 1)
    val bitpacked = InlineBitpacking.estimatedBytes(stats.bitsPerValue, stats.blockWidths, stats.dataSize)
    if (rleBytes < stats.dataSize && !bitpacked.exists(_ < rleBytes)) Some(new Rle.MiniBlock(stats.bitsPerValue)) else None
  }

  /** `build_variable_width_compressor`. */
  private def variableMiniBlock(field: FieldCompression, v: VariableData): MiniBlockCompressor =
    if (field.none) new VariableLayout.MiniBlock(field.bitsPerOffset)
    else {
      val base =
        if (useFsst(field, VariableStatistics.of(v, field.bitsPerOffset))) fsstMiniBlock(field.bitsPerOffset)
        else new VariableLayout.MiniBlock(field.bitsPerOffset)
      field.general.fold(base)(new General.MiniBlock(base, _))
    }

  /** FSST when asked for, or by default for text whose values and page are long enough to gain. */
  private def useFsst(field: FieldCompression, stats: VariableStatistics): Boolean =
    field.fsst || (field.compression.isEmpty && !field.binary && stats.maxLength >= FsstMinMaxLength && stats.dataSize >= FsstMinBytes)

  // ---- block --------------------------------------------------------------------------------

  /** `try_rle_for_block` (2.2 and later). */
  private def rleBlock(field: FieldCompression, stats: FixedWidthStatistics): Option[BlockCompressor] = {
    if (version < FileVersion.V2_2 || !isWord(stats.bitsPerValue) || !passesThreshold(field, stats)) return None
    val rleBytes = stats.blockRuns * (stats.bitsPerValue / 8 + 1) + RleBlockHeaderBytes
    if (rleBytes >= stats.dataSize) return None
    if (bitpackedBlockBytes(stats).exists(_ < rleBytes)) None else Some(new Rle.Block(stats.bitsPerValue))
  }

  /** compression.rs `estimate_block_bitpacking_bytes`. */
  private def bitpackedBlockBytes(stats: FixedWidthStatistics): Option[Long] = {
    if (!isWord(stats.bitsPerValue) || stats.count == 0) return None
    val bits = stats.bitsPerValue
    val w = stats.maxBlockWidth
    val bytes =
      if (stats.count <= FastLanesBitpacking.BlockValues) Some((1 + FastLanesBitpacking.BlockValues.toLong * w / bits) * (bits / 8))
      else OutOfLineBitpacking.estimatedBytes(bits, w, stats.count)
    bytes.filter(_ < stats.dataSize)
  }

  /**
   * `try_bitpack_for_block`: inline for at most one block of values, else out of line at the
   * widest block's width; not for a single block whose packed size would not beat the raw one.
   */
  private def bitpackBlock(stats: FixedWidthStatistics): Option[BlockCompressor] = {
    if (!isWord(stats.bitsPerValue)) return None
    val w = stats.blockWidths
    if (w.length == 1 && (FastLanesBitpacking.BlockValues.toLong * w(0) + 7) / 8 >= stats.dataSize) None
    else if (stats.count <= FastLanesBitpacking.BlockValues) Some(new InlineBitpacking.Block(stats.bitsPerValue))
    else Some(new OutOfLineBitpacking.Block(stats.bitsPerValue, stats.maxBlockWidth))
  }

  /** `try_general_compression`: 2.2 compresses blocks when asked, or on its own above 32 KiB. */
  private def generalBlock(field: FieldCompression, dataSize: Long): Option[BufferCompression] =
    if (field.none || version < FileVersion.V2_2) None
    else field.general.orElse(if (dataSize > MinGeneralBlockBytes) Some(General.DefaultCompression) else None)

  private def passesThreshold(field: FieldCompression, stats: FixedWidthStatistics): Boolean =
    field.rleThreshold.forall(t => stats.runCount.toDouble < stats.count.toDouble * t)
}

object CompressionStrategy {
  /** Blocks larger than this are zstd-compressed in 2.2 (compression.rs `MIN_BLOCK_SIZE_FOR_GENERAL_COMPRESSION`). */
  final val MinGeneralBlockBytes = 32 * 1024L
  /** The u64 length of the run values in front of an RLE block (compression.rs `RLE_BLOCK_HEADER_BYTES`). */
  final val RleBlockHeaderBytes = 8L
  /** FSST needs this much data, offsets included (fsst.rs `FSST_LEAST_INPUT_SIZE`). */
  final val FsstMinBytes = 32 * 1024L
  /** ... and a value at least this long (fsst.rs `FSST_LEAST_INPUT_MAX_LENGTH`). */
  final val FsstMinMaxLength = 5L
  /** Longer values of a full-zip page are zstd-compressed one by one (compression.rs `create_per_value`). */
  final val MaxPlainValueBytes = 32 * 1024L

  private def isWord(bits: Int): Boolean = bits == 8 || bits == 16 || bits == 32 || bits == 64
}
