package io.sparklance.format.layout

import io.sparklance.format.encoding.CompressiveEncoding

// Spec: lance-format/lance protos/encodings_v2_1.proto `PageLayout` and
// docs/src/format/file/encoding.md ("Structural encodings"). The plain Scala description
// of how one page of a 2.1+ leaf column is laid out.

/**
 * One layer of repetition/definition for a leaf, innermost (the item) first. Each layer
 * consumes 0, 1 or 2 definition levels.
 */
sealed abstract class RepDefLayer(val defLevels: Int, val isList: Boolean) extends Serializable // Serializable itself: see FileVersion (Scala 2.12)
object RepDefLayer {
  case object AllValidItem extends RepDefLayer(0, false)
  case object AllValidList extends RepDefLayer(0, true)
  case object NullableItem extends RepDefLayer(1, false)
  case object NullableList extends RepDefLayer(1, true)
  case object EmptyableList extends RepDefLayer(1, true)
  case object NullAndEmptyList extends RepDefLayer(2, true)
}

sealed trait PageLayout {
  def layers: IndexedSeq[RepDefLayer]
}

object PageLayout {

  /** Narrow values in independently decodable chunks of up to 32 KiB (64 KiB+ in 2.2). */
  final case class MiniBlock(
      repCompression: Option[CompressiveEncoding],
      defCompression: Option[CompressiveEncoding],
      valueCompression: CompressiveEncoding,
      dictionary: Option[CompressiveEncoding],
      numDictionaryItems: Long,
      layers: IndexedSeq[RepDefLayer],
      numBuffers: Long,
      repetitionIndexDepth: Int,
      numItems: Long,
      hasLargeChunk: Boolean) extends PageLayout

  /** Wide values zipped with their control words, one value after another. */
  final case class FullZip(
      bitsRep: Int,
      bitsDef: Int,
      bitsPerValue: Option[Long],
      bitsPerOffset: Option[Int],
      numItems: Long,
      numVisibleItems: Long,
      valueCompression: CompressiveEncoding,
      layers: IndexedSeq[RepDefLayer]) extends PageLayout

  /**
   * One value for every visible item of the page (or no value: all null), optionally with
   * repetition/definition levels. 2.1 calls the no-value case the all-null layout.
   */
  final case class Constant(
      layers: IndexedSeq[RepDefLayer],
      inlineValue: Option[Array[Byte]],
      repCompression: Option[CompressiveEncoding],
      defCompression: Option[CompressiveEncoding],
      numRepValues: Long,
      numDefValues: Long) extends PageLayout

  /** Blob descriptors (position, size) for values stored out of line in the same file. */
  final case class Blob(inner: PageLayout, layers: IndexedSeq[RepDefLayer]) extends PageLayout
}
