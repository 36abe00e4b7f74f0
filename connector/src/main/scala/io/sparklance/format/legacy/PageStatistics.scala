package io.sparklance.format.legacy


import org.apache.arrow.vector.types.FloatingPointPrecision
import org.apache.arrow.vector.types.pojo.ArrowType

import io.sparklance.format.{LanceField, LogicalType}
import io.sparklance.util.ScalaCompat._
import io.sparklance.util.{Errors, UnsupportedFeatureException}

// Spec: lancedb.github.io/lance/format.html, section "Statistics" (statistic values,
// page-level statistics format); rust/lance-file/src/previous/writer/statistics.rs (what is collected)
// and reader.rs (read_page_stats). Statistics are a second, one-batch columnar table in the
// file: one row per data batch, one struct field per data field, named after the data field
// id, with children null_count (int64), min_value and max_value (the data field's type).
// Its page table spans statistics field ids 0 to the largest id listed in the metadata.
//
// What the bytes show (pylance 14.0.2, legacy writer):
// * Statistics are computed from the Arrow data before it is written, but the plain pages
//   keep no validity: a null int is written (and read back) as 0, a null boolean as false.
//   So min/max bound the non-null values only; up to null_count rows of a batch may hold
//   the type's zero outside [min, max].
// * NaN is ignored by min/max; a float batch with only nulls/NaN says [-inf, +inf]; an
//   integer batch with only nulls says [type min, type max]. -0.0 is the min for a zero
//   minimum, +0.0 the max for a zero maximum.
// * Strings and binaries longer than 64 bytes are truncated in the bounds (the max then
//   rounded up), and a max that cannot be rounded up is null. A zero-length bound of a
//   nullable field reads as null, like any empty legacy string.

/** A statistics bound as a plain Scala value. */
sealed trait StatValue

object StatValue {
  final case class Bool(value: Boolean) extends StatValue
  /** Every integer type (signed or unsigned, 8 to 64 bits) and date32 (days) / date64 (ms). */
  final case class Integer(value: BigInt) extends StatValue
  /** float32 (widened exactly) and float64; may be ±infinity. */
  final case class Floating(value: Double) extends StatValue
  final case class Decimal(value: java.math.BigDecimal) extends StatValue
  final case class Utf8(value: String) extends StatValue
  final case class Binary(value: ArraySeq[Byte]) extends StatValue
}

/**
 * The statistics of one field over one batch, rows `[rowStart, rowEnd)` of the file.
 * `min`/`max` are None when unknown (not recorded, null, or of a type not converted here);
 * when present, every non-null, non-NaN value of those rows lies in `[min, max]`. Rows that
 * were null when written are counted in `nullCount` but may read back as the type's zero
 * (see the notes at the top of this file), so they are not bounded.
 */
final case class PageStats(
    batch: Int,
    rowStart: Long,
    rowEnd: Long,
    nullCount: Option[Long],
    min: Option[StatValue],
    max: Option[StatValue])

/** The statistics table of one open legacy file. */
private[legacy] final class PageStatistics private (file: LegacyFileReader, pages: PageTable, byDataField: Map[Int, LanceField]) {
  private val where = s"${file.path} (page statistics)"

  def forField(fieldId: Int): Option[IndexedSeq[PageStats]] = byDataField.get(fieldId).map { stats =>
    val n = file.numBatches
    def child(name: String): Option[LanceField] = stats.children.find(_.name == name)
    def values(name: String): Option[IndexedSeq[Option[StatValue]]] =
      child(name).flatMap(f => column(f, n)).map { case (b, t) => (0 until n).map(i => PageStatistics.value(b, t, i)) }
    val nullCounts = values("null_count").map(_.map {
      case Some(StatValue.Integer(v)) if v >= 0 && v.isValidLong => Some(v.toLong)
      case _ => None
    })
    val mins = values("min_value")
    val maxs = values("max_value")
    (0 until n).map { b =>
      PageStats(b, file.batchStart(b), file.batchEnd(b), nullCounts.flatMap(_(b)), mins.flatMap(_(b)), maxs.flatMap(_(b)))
    }
  }

  /** Reads all `n` rows of a statistics leaf, or None when its type has no [[StatValue]] form. */
  private def column(f: LanceField, n: Int): Option[(VectorBuilder, ArrowType)] = {
    // A statistics type this reader does not know is simply not used.
    val parsed = try Some(LogicalType.parse(f.logicalType, where, f.name)) catch { case _: UnsupportedFeatureException => None }
    parsed.collect {
      case LogicalType.Plain(t) if PageStatistics.convertible(t) && f.children.isEmpty && !f.logicalType.startsWith("dict:") =>
        val reader = ColumnReader.forField(file.source, pages, f, _ => None, where)
        reader.read(0, 0, n)
        (reader.builder, t)
    }
  }
}

private[legacy] object PageStatistics {

  /** The statistics of `file`, or None when the metadata lists no statistics fields. */
  def open(file: LegacyFileReader, meta: LegacyStatisticsMetadata): Option[PageStatistics] =
    if (meta.fieldIds.isEmpty || file.numBatches == 0) None
    else {
      val where = s"${file.path} (page statistics schema)"
      val maxId = meta.fieldIds.max
      if (maxId < 0) throw Errors.corrupt(file.path, s"the statistics field ids end at $maxId")
      val len = PageTable.byteSize(0, maxId, 1).getOrElse(
        throw Errors.corrupt(file.path, s"statistics field ids 0..$maxId make no page table"))
      val pages = PageTable.parse(file.source.read(meta.pageTablePosition, len, "statistics page table"),
        0, maxId, 1, file.fileSize, "statistics page table")
      val tree = LanceField.buildTree(meta.schema, where)
      tree.foreach(_.preOrder.foreach { f =>
        if (!pages.covers(f.id) && f.children.isEmpty)
          throw Errors.corrupt(file.path, s"statistics field '${f.name}' (id ${f.id}) lies outside the statistics page table (ids 0..$maxId)")
      })
      // Extra or unnamed fields are allowed by the spec and ignored.
      val byDataField = tree.iterator.flatMap(f => f.name.toIntOption.map(_ -> f)).toMap
      Some(new PageStatistics(file, pages, byDataField))
    }

  def convertible(t: ArrowType): Boolean = t match {
    case _: ArrowType.Bool | _: ArrowType.Int | _: ArrowType.Date | _: ArrowType.Decimal |
        _: ArrowType.Utf8 | _: ArrowType.LargeUtf8 | _: ArrowType.Binary | _: ArrowType.LargeBinary | _: ArrowType.FixedSizeBinary => true
    case f: ArrowType.FloatingPoint => f.getPrecision != FloatingPointPrecision.HALF
    case _ => false
  }

  def littleEndian(a: Array[Byte], off: Int, width: Int, signed: Boolean): BigInt = {
    val be = new Array[Byte](width)
    var i = 0
    while (i < width) { be(i) = a(off + width - 1 - i); i += 1 }
    if (signed) BigInt(be) else BigInt(1, be)
  }

  /** Row `i` of a statistics column as a [[StatValue]]. */
  def value(b: VectorBuilder, t: ArrowType, i: Int): Option[StatValue] = (b, t) match {
    case (bits: BitBuilder, _) => Some(StatValue.Bool(bits.bits.get(i)))
    case (v: VarBuilder, _: ArrowType.Utf8 | _: ArrowType.LargeUtf8) => v.string(i).map(StatValue.Utf8)
    case (v: VarBuilder, _) => v.value(i).map(a => StatValue.Binary(ArraySeq.unsafeWrapArray(a)))
    case (f: FixedBuilder, _) =>
      val a = f.data.array
      val off = i * f.width
      t match {
        case it: ArrowType.Int => Some(StatValue.Integer(littleEndian(a, off, f.width, it.getIsSigned)))
        case _: ArrowType.Date => Some(StatValue.Integer(littleEndian(a, off, f.width, signed = true)))
        case d: ArrowType.Decimal =>
          Some(StatValue.Decimal(new java.math.BigDecimal(littleEndian(a, off, f.width, signed = true).bigInteger, d.getScale)))
        case fp: ArrowType.FloatingPoint =>
          val bits = littleEndian(a, off, f.width, signed = true).toLong
          Some(StatValue.Floating(
            if (fp.getPrecision == FloatingPointPrecision.SINGLE) java.lang.Float.intBitsToFloat(bits.toInt).toDouble
            else java.lang.Double.longBitsToDouble(bits)))
        case _: ArrowType.FixedSizeBinary => Some(StatValue.Binary(ArraySeq.unsafeWrapArray(java.util.Arrays.copyOfRange(a, off, off + f.width))))
        case _ => None
      }
    case _ => None
  }
}
