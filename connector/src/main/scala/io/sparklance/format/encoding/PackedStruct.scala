// Spec: lance-format/lance rust/lance-encoding/src/encodings/physical/packed.rs
// (`PackedStructFixedWidthMiniBlockEncoder`) and protos/encodings_v2_1.proto `PackedStruct`; the
// decoder is the PackedStruct case of ValueDecoders.miniBlock (ValueDecoders.splitRows).
//
// A struct whose children are all fixed width and byte-aligned, asked for with
// `lance-encoding:packed`, is stored row-major: each row the children's values one after the
// other, then chunked as flat values of the row width.
package io.sparklance.format.encoding

import io.sparklance.format.encoding.{CompressiveEncoding => CE}

object PackedStruct {

  object MiniBlock extends MiniBlockCompressor {
    def compress(values: DecodedValues): (MiniBlockCompressed, CompressiveEncoding) = values match {
      case s: StructValues =>
        val children = s.children.map {
          case f: FixedWidthValues if f.bitsPerValue % 8 == 0 => f
          case other => throw new IllegalArgumentException(s"a packed struct child must be byte-aligned fixed-width values, not ${other.describe}")
        }
        val widths = children.map(_.bytesPerValue)
        val rowBytes = widths.sum
        val n = s.count
        val rows = new Array[Byte](Math.multiplyExact(rowBytes, n))
        var at = 0
        var c = 0
        while (c < children.length) {
          val child = children(c)
          val w = widths(c)
          var i = 0
          while (i < n) { System.arraycopy(child.data, child.offset + i * w, rows, i * rowBytes + at, w); i += 1 }
          at += w
          c += 1
        }
        val (chunks, flat) = Flat.MiniBlock.compress(new FixedWidthValues(rowBytes * 8, rows, n))
        (chunks, CE.PackedStruct(children.map(_.bitsPerValue.toLong), flat))
      case other => throw new IllegalArgumentException(s"packed struct encoding cannot hold ${other.describe}")
    }
  }
}
