package io.sparklance.format

import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision}
import org.apache.arrow.vector.types.pojo.ArrowType

/**
 * Bytes per value of the Arrow types Lance stores as fixed-width values (Rust
 * `DataType::byte_width`); booleans are bits and are not among them. Readers of every file
 * version and the writers size values by it.
 */
object FixedWidths {
  def bytes(t: ArrowType): Option[Int] = t match {
    case i: ArrowType.Int => Some(i.getBitWidth / 8)
    case f: ArrowType.FloatingPoint => Some(f.getPrecision match {
      case FloatingPointPrecision.HALF => 2
      case FloatingPointPrecision.SINGLE => 4
      case FloatingPointPrecision.DOUBLE => 8
    })
    case d: ArrowType.Decimal => Some(d.getBitWidth / 8)
    case d: ArrowType.Date => Some(if (d.getUnit == DateUnit.DAY) 4 else 8)
    case t: ArrowType.Time => Some(t.getBitWidth / 8)
    case _: ArrowType.Timestamp | _: ArrowType.Duration => Some(8)
    case b: ArrowType.FixedSizeBinary => Some(b.getByteWidth)
    case _ => None
  }
}
