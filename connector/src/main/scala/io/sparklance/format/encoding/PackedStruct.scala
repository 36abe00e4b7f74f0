// Spec: lance-format/lance rust/lance-encoding/src/encodings/physical/packed.rs
// (`PackedStructFixedWidthMiniBlockEncoder`) and protos/encodings_v2_1.proto `PackedStruct`; the
// decoder is the PackedStruct case of ValueDecoders.miniBlock (ValueDecoders.splitRows).
//
// A struct whose children are all fixed width and byte-aligned, asked for with
// `lance-encoding:packed`, is stored row-major: each row the children's values one after the
// other, then chunked as flat values of the row width.
//
// With a variable-width child (file format 2.2, packed.rs `PackedStructVariablePerValueEncoder`)
// each row is one variable-width value for a full-zip page: every child's value compressed on
// its own, fixed-width children as their bytes, variable-width ones prefixed by their length.
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

  /**
   * Rows of a packed struct with at least one variable-width child, each child compressed per
   * value by `children(i)`. The rows take 32-bit lengths unless they need 64.
   */
  final class VariablePerValue(children: IndexedSeq[PerValueCompressor]) extends PerValueCompressor {
    def compress(values: DecodedValues): (PerValueData, CompressiveEncoding) = values match {
      case s: StructValues =>
        val parts = s.children.zip(children).map { case (v, c) => c.compress(v) }
        val n = s.count
        val offsets = new Array[Int](n + 1)
        var total = 0L
        var row = 0
        while (row < n) {
          parts.foreach {
            case (PerValueData.Fixed(bits, _, _), _) => total += bits / 8
            case (PerValueData.Variable(bpo, v), _) => total += bpo / 8 + v.length(row)
          }
          if (total > Int.MaxValue - 16) throw new IllegalArgumentException("a packed struct page over 2 GiB")
          offsets(row + 1) = total.toInt
          row += 1
        }
        val bytes = new Array[Byte](total.toInt)
        row = 0
        var at = 0
        while (row < n) {
          parts.foreach {
            case (PerValueData.Fixed(bits, data, _), _) =>
              val w = (bits / 8).toInt
              System.arraycopy(data, row * w, bytes, at, w); at += w
            case (PerValueData.Variable(bpo, v), _) =>
              val len = v.length(row)
              var b = 0
              while (b < bpo / 8) { bytes(at + b) = (if (b < 4) (len >>> (8 * b)).toByte else 0.toByte); b += 1 }
              at += bpo / 8
              System.arraycopy(v.bytes, v.offsets(row), bytes, at, len); at += len
          }
          row += 1
        }
        val fields = parts.map {
          case (PerValueData.Fixed(bits, _, _), e) => CE.PackedField(e, Some(bits), None)
          case (PerValueData.Variable(bpo, _), e) => CE.PackedField(e, None, Some(bpo.toLong))
        }
        (PerValueData.Variable(32, new VariableData(offsets, bytes)), CE.VariablePackedStruct(fields))
      case other => throw new IllegalArgumentException(s"packed struct encoding cannot hold ${other.describe}")
    }
  }
}
