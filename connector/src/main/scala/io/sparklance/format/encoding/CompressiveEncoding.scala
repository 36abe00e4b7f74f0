package io.sparklance.format.encoding

// Spec: lance-format/lance protos/encodings_v2_1.proto `CompressiveEncoding` and
// docs/src/format/file/encoding.md ("Compressive encodings"). This is the plain Scala
// description of how a buffer of values was compressed in a 2.1+ file; the protobuf
// wrapper builds it, decoders interpret it and a writer will produce it.

/** General-purpose compression of a whole buffer (zstd, lz4). */
sealed trait CompressionScheme
object CompressionScheme {
  case object Zstd extends CompressionScheme
  case object Lz4 extends CompressionScheme
}

final case class BufferCompression(scheme: CompressionScheme, level: Option[Int])

sealed trait CompressiveEncoding {
  /** A short human-readable name for error messages (e.g. `inline_bitpacking(32)`). */
  def describe: String
}

object CompressiveEncoding {

  /** Fixed-width values, `bitsPerValue` bits each (LSB-first below 8 bits), optionally compressed. */
  final case class Flat(bitsPerValue: Int, data: Option[BufferCompression]) extends CompressiveEncoding {
    def describe: String = s"flat($bitsPerValue${data.fold("")(c => s", $c")})"
  }

  /** Variable-width values: an offsets encoding plus the value bytes, optionally compressed. */
  final case class Variable(offsets: CompressiveEncoding, values: Option[BufferCompression]) extends CompressiveEncoding {
    def describe: String = s"variable(${offsets.describe})"
  }

  /** A single value repeated (`None` when the value lives elsewhere). */
  final case class Constant(value: Option[Array[Byte]]) extends CompressiveEncoding {
    def describe: String = "constant"
  }

  /** Bit packing with one width for the whole buffer (used for rep/def levels). */
  final case class OutOfLineBitpacking(uncompressedBits: Int, values: CompressiveEncoding) extends CompressiveEncoding {
    def describe: String = s"out_of_line_bitpacking($uncompressedBits, ${values.describe})"
  }

  /** FastLanes bit packing with a width stored per 1024-value block. */
  final case class InlineBitpacking(uncompressedBits: Int, values: Option[CompressiveEncoding]) extends CompressiveEncoding {
    def describe: String = s"inline_bitpacking($uncompressedBits)"
  }

  /** FSST-compressed strings: a 2312-byte symbol table and the compressed values' encoding. */
  final case class Fsst(symbolTable: Array[Byte], values: CompressiveEncoding) extends CompressiveEncoding {
    def describe: String = s"fsst(${values.describe})"
  }

  final case class Dictionary(indices: CompressiveEncoding, items: CompressiveEncoding, numItems: Long) extends CompressiveEncoding {
    def describe: String = s"dictionary(${indices.describe}, ${items.describe})"
  }

  /** Run-length encoding: run values plus u8 run lengths. */
  final case class Rle(values: CompressiveEncoding, runLengths: CompressiveEncoding) extends CompressiveEncoding {
    def describe: String = s"rle(${values.describe}, ${runLengths.describe})"
  }

  final case class ByteStreamSplit(values: CompressiveEncoding) extends CompressiveEncoding {
    def describe: String = s"byte_stream_split(${values.describe})"
  }

  /** A general compressor (zstd, lz4) around another encoding. */
  final case class General(compression: BufferCompression, values: CompressiveEncoding) extends CompressiveEncoding {
    def describe: String = s"general(${compression.scheme}, ${values.describe})"
  }

  final case class FixedSizeList(itemsPerValue: Long, hasValidity: Boolean, values: CompressiveEncoding) extends CompressiveEncoding {
    def describe: String = s"fixed_size_list($itemsPerValue${if (hasValidity) ", validity" else ""}, ${values.describe})"
  }

  /** Fixed-width struct children stored row-major. */
  final case class PackedStruct(bitsPerValue: IndexedSeq[Long], values: CompressiveEncoding) extends CompressiveEncoding {
    def describe: String = s"packed_struct(${bitsPerValue.mkString(",")}, ${values.describe})"
  }

  /** One child of a variable packed struct: fixed `bitsPerValue` or length-prefixed by `bitsPerLength`. */
  final case class PackedField(value: CompressiveEncoding, bitsPerValue: Option[Long], bitsPerLength: Option[Long])

  final case class VariablePackedStruct(fields: IndexedSeq[PackedField]) extends CompressiveEncoding {
    def describe: String = s"variable_packed_struct(${fields.length} fields)"
  }

  /** An encoding this reader recognises by name but does not decode (e.g. newer `range`, `delta`). */
  final case class Unknown(name: String) extends CompressiveEncoding {
    def describe: String = name
  }
}
