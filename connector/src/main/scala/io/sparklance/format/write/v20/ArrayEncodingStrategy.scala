package io.sparklance.format.write.v20

import io.sparklance.format.encoding.{BufferCompression, CompressionScheme, FieldCompression, GeneralCompression}
import io.sparklance.format.v20.FlatCompression

// Spec: rust/lance-encoding/src/previous/encoder.rs (CoreArrayEncodingStrategy with version
// 2.0) and previous/encodings/logical/primitive.rs (PrimitiveFieldEncoder::do_flush). Every
// choice the 2.0 writer makes from the data, in one place. What 2.0 leaves out: bit packing,
// FSST chosen from the data and fixed-size binary re-encoding of strings are all gated to 2.1
// and later in Rust, so a 2.0 page is plain values under `nullable`, a `binary` (its bytes
// compressed only when the field asks) or a dictionary.

private[v20] object ArrayEncodingStrategy {

  /**
   * A batch whose values alone pass the page budget is cut into this many bytes per page at
   * most (Rust max_page_bytes, LANCE_FILE_WRITER_MAX_PAGE_BYTES, default 32 MiB), by rows.
   */
  val MaxPageBytes: Long = 32L * 1024 * 1024

  /**
   * A `Utf8` page is dictionary encoded when it has at least this many values and fewer
   * distinct non-null strings (check_dict_encoding, LANCE_DICT_ENCODING_THRESHOLD, default 100).
   */
  val DictionaryThreshold: Int = 100

  /** When a page of strings or binaries is dictionary encoded. */
  sealed trait DictionaryMode
  object DictionaryMode {
    case object Never extends DictionaryMode
    /** `Utf8` columns: when the page has few distinct strings (`dictionary` below). */
    case object FewDistinct extends DictionaryMode
    /** Fields whose Lance type is a dictionary (`dict:<values>:<keys>:false`): always, with keys of `bits` bits. */
    final case class Keys(bits: Int) extends DictionaryMode
  }

  /** u8 dictionary indices counting from 1 (0 = null), and the distinct strings in first-seen order. */
  final class Dictionary(val indices: Array[Byte], val items: IndexedSeq[Array[Byte]])

  /**
   * The dictionary of a `Utf8` page, or None when it has fewer than 100 values or 100 distinct
   * strings or more. Rust estimates the distinct count with HyperLogLog++ (precision 12), which
   * below a few hundred distinct values is still in its sparse mode (25-bit hashes, linear
   * counting) and so counts exactly except for hash collisions (about 1 in 7000 at 100
   * values); we count exactly, so the choice is the same and does not vary from run to run.
   */
  def dictionary(page: BinaryPage): Option[Dictionary] = {
    if (page.count < DictionaryThreshold) return None
    val seen = new java.util.HashMap[java.nio.ByteBuffer, Integer]()
    val items = IndexedSeq.newBuilder[Array[Byte]]
    val indices = new Array[Byte](page.count)
    var i = 0
    while (i < page.count) {
      if (!page.isNull(i)) {
        val s = page.start(i).toInt
        val key = java.nio.ByteBuffer.wrap(page.data, s, page.end(i).toInt - s)
        var index = seen.get(key)
        if (index == null) {
          if (seen.size + 1 >= DictionaryThreshold) return None
          index = seen.size + 1
          seen.put(key, index)
          items += java.util.Arrays.copyOfRange(page.data, s, page.end(i).toInt)
        }
        indices(i) = index.intValue.toByte
      }
      i += 1
    }
    Some(new Dictionary(indices, items.result()))
  }

  /**
   * How a binary column's bytes are stored, as its `lance-encoding:compression` (and
   * `-level`) metadata asks (get_field_compression, default_binary_encoder): zstd or lz4 over the
   * whole bytes buffer (`flat{8, compression}`), `none`, or FSST (`fsst{binary, symbol_table}`).
   * The keys are parsed once for every version (FieldCompression), so an unknown scheme is
   * refused here too, where Rust's 2.0 path would ignore it.
   */
  final case class BinaryCompression(general: Option[BufferCompression], none: Boolean, fsst: Boolean) {
    /** The `compression` of the bytes' flat encoding. */
    def flat: Option[FlatCompression] =
      general.map(g => FlatCompression(if (g.scheme == CompressionScheme.Zstd) "zstd" else "lz4", g.level))
        .orElse(if (none) Some(FlatCompression("none", None)) else None)

    def compress(raw: Array[Byte]): Array[Byte] = general.fold(raw)(GeneralCompression.compress(_, raw))
  }

  def binaryCompression(field: String, metadata: Map[String, String]): BinaryCompression = {
    val c = FieldCompression.fromMetadata(field, metadata)
    BinaryCompression(c.general, c.none, c.fsst)
  }
}
