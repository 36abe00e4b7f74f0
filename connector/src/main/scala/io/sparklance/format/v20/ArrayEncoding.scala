package io.sparklance.format.v20

// Spec: lance-format/lance protos/encodings_v2_0.proto (`ArrayEncoding`, `ColumnEncoding`).
// The plain Scala description of a file format 2.0 page: a tree of array encodings whose
// leaves name page buffers. The protobuf wrapper (format.proto.ArrayEncodingCodec) builds it;
// the decoders in this package interpret it.

/** Which buffer list a [[BufferRef]] indexes. The Rust writer only ever uses page buffers. */
sealed trait BufferKind
object BufferKind {
  case object Page extends BufferKind
  case object Column extends BufferKind
  case object File extends BufferKind
}

final case class BufferRef(index: Int, kind: BufferKind)

/** General compression of a whole flat buffer (`Compression.scheme`: "zstd", "lz4", "none"). */
final case class FlatCompression(scheme: String, level: Option[Int])

sealed trait ArrayEncoding {
  /** A short description for error messages, e.g. `nullable(some_nulls, flat(1), flat(32))`. */
  def describe: String
}

object ArrayEncoding {

  /** Fixed-width values, LSB-first bits when `bitsPerValue` is 1, else whole little-endian bytes. */
  final case class Flat(bitsPerValue: Long, buffer: BufferRef, compression: Option[FlatCompression]) extends ArrayEncoding {
    def describe: String = s"flat($bitsPerValue${compression.fold("")(c => s", ${c.scheme}")})"
  }

  /** Values without a validity bitmap of their own. */
  final case class NoNulls(values: ArrayEncoding) extends ArrayEncoding {
    def describe: String = s"nullable(no_nulls, ${values.describe})"
  }

  /** A validity bitmap (bit set = valid) beside the values; null slots hold arbitrary values. */
  final case class SomeNulls(validity: ArrayEncoding, values: ArrayEncoding) extends ArrayEncoding {
    def describe: String = s"nullable(some_nulls, ${validity.describe}, ${values.describe})"
  }

  /** Every value is null; the page has no buffers. */
  case object AllNulls extends ArrayEncoding {
    def describe: String = "nullable(all_nulls)"
  }

  /** `dimension` items per value; the items encoding counts items, not rows. */
  final case class FixedSizeList(dimension: Long, hasValidity: Boolean, items: ArrayEncoding) extends ArrayEncoding {
    def describe: String = s"fixed_size_list($dimension, ${items.describe})"
  }

  /** The offsets page of a list column; the items live in the following column(s). */
  final case class ListOffsets(offsets: ArrayEncoding, nullOffsetAdjustment: Long, numItems: Long) extends ArrayEncoding {
    def describe: String = s"list(${offsets.describe}, null_offset_adjustment=$nullOffsetAdjustment, num_items=$numItems)"
  }

  /** The header page of a struct column: no buffers, only a row count. */
  case object SimpleStruct extends ArrayEncoding {
    def describe: String = "struct"
  }

  /** Variable-width values: page-relative end offsets (nulls marked by `nullAdjustment`) and bytes. */
  final case class Binary(indices: ArrayEncoding, bytes: ArrayEncoding, nullAdjustment: Long) extends ArrayEncoding {
    def describe: String = s"binary(${indices.describe}, ${bytes.describe}, null_adjustment=$nullAdjustment)"
  }

  final case class Dictionary(indices: ArrayEncoding, items: ArrayEncoding, numDictionaryItems: Long) extends ArrayEncoding {
    def describe: String = s"dictionary(${indices.describe}, ${items.describe}, $numDictionaryItems items)"
  }

  /** FSST-compressed strings held by an inner binary encoding; the table travels in the description. */
  final case class Fsst(binary: ArrayEncoding, symbolTable: Array[Byte]) extends ArrayEncoding {
    def describe: String = s"fsst(${binary.describe})"
  }

  /** Fixed-width children stored row-major in one buffer. */
  final case class PackedStruct(inner: IndexedSeq[ArrayEncoding], buffer: BufferRef) extends ArrayEncoding {
    def describe: String = s"packed_struct(${inner.map(_.describe).mkString(", ")})"
  }

  /** Values bit packed back to back, LSB-first, `compressedBits` each (pre-2.1 unstable writers). */
  final case class Bitpacked(compressedBits: Long, uncompressedBits: Long, buffer: BufferRef, signed: Boolean) extends ArrayEncoding {
    def describe: String = s"bitpacked($compressedBits of $uncompressedBits${if (signed) ", signed" else ""})"
  }

  /** FastLanes blocks of 1024 non-negative values (pre-2.1 unstable writers). */
  final case class BitpackedForNonNeg(compressedBits: Long, uncompressedBits: Long, buffer: BufferRef) extends ArrayEncoding {
    def describe: String = s"bitpacked_for_non_neg($compressedBits of $uncompressedBits)"
  }

  /** Strings of one width whose bytes are a fixed-width array. */
  final case class FixedSizeBinary(bytes: ArrayEncoding, byteWidth: Long) extends ArrayEncoding {
    def describe: String = s"fixed_size_binary($byteWidth, ${bytes.describe})"
  }

  /** One value repeated for every row. */
  final case class Constant(value: Array[Byte]) extends ArrayEncoding {
    def describe: String = s"constant(${value.length} bytes)"
  }

  /** A message of the 2.0 proto that only 2.1-era mini-block code uses; never in a 2.0 page. */
  final case class Unsupported(name: String) extends ArrayEncoding {
    def describe: String = name
  }
}

/** A column's own encoding (`/lance.encodings.ColumnEncoding`). */
sealed trait ColumnEncoding
object ColumnEncoding {
  /** Plain values: what every column but a blob column says. */
  case object Values extends ColumnEncoding
  /** Blob column: pages hold (position, size) descriptors of out-of-line bytes. */
  final case class Blob(inner: ColumnEncoding) extends ColumnEncoding
  /** Zone statistics beside the values (never written by the Rust 2.0 writer). */
  final case class ZoneIndex(inner: ColumnEncoding) extends ColumnEncoding
}
