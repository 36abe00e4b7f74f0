package io.sparklance.format.legacy

// Spec: lance-format/lance rust/lance-io/src/encodings/plain.rs (the legacy plain encoding). A
// plain page is the values buffer of an Arrow array without validity: fixed-width values back to
// back, booleans as an LSB-first bitmap, and a fixed-size list (or fixed-size binary) as its
// flattened items. pylance's writer keeps whatever the Arrow buffer held under a null, so a null
// int reads back as 0 and a null boolean as false, exactly as pylance reads it.

/** Fixed-width values (integers, floats, decimals, temporal types, fixed-size binary). */
private[legacy] final class PlainColumn(src: PageSource, pages: PageTable, fieldId: Int, width: Int, where: String) extends ColumnReader {
  val builder = new FixedBuilder(width, where)

  def read(batch: Int, from: Int, count: Int): Unit = {
    val page = ColumnReader.page(pages, src.path, fieldId, batch, from, count, where)
    if (count > 0) {
      val bytes = src.read(page.position + from.toLong * width, count.toLong * width, s"$where, batch $batch plain page")
      builder.append(bytes, 0, count)
    }
  }
}

/** Booleans: bit `i` of the page is row `i`. */
private[legacy] final class BoolColumn(src: PageSource, pages: PageTable, fieldId: Int, where: String) extends ColumnReader {
  val builder = new BitBuilder(where)

  def read(batch: Int, from: Int, count: Int): Unit = {
    val page = ColumnReader.page(pages, src.path, fieldId, batch, from, count, where)
    if (count > 0) PlainPages.appendBits(src, page.position, from.toLong, count, builder.bits, s"$where, batch $batch boolean page")
  }
}

/**
 * Fixed-size lists of `dimension` items of `itemWidth` bytes (0: boolean items, as bits).
 * The page length counts lists; the items are stored flat.
 */
private[legacy] final class FixedListColumn(src: PageSource, pages: PageTable, fieldId: Int, dimension: Int, itemWidth: Int, where: String)
    extends ColumnReader {
  private val items: VectorBuilder = if (itemWidth == 0) new BitBuilder(where) else new FixedBuilder(itemWidth, where)
  val builder = new FixedListBuilder(dimension, items)

  def read(batch: Int, from: Int, count: Int): Unit = {
    val page = ColumnReader.page(pages, src.path, fieldId, batch, from, count, where)
    if (count > 0) {
      val first = from.toLong * dimension
      val n = count.toLong * dimension
      if (n > GrowingBytes.MaxBytes)
        throw io.sparklance.util.Errors.unsupported(s"$n fixed-size list items in one read", s"$where; lower the batch size")
      items match {
        case bits: BitBuilder => PlainPages.appendBits(src, page.position, first, n.toInt, bits.bits, s"$where, batch $batch boolean items")
        case fixed: FixedBuilder =>
          val what = s"$where, batch $batch fixed-size list page"
          val (off, len) = PlainPages.span(src.path, page.position, first, n, itemWidth, what)
          val bytes = src.read(off, len, what)
          fixed.append(bytes, 0, n.toInt)
        case _ => throw new IllegalStateException("fixed-size list items are bits or fixed-width values")
      }
    }
    builder.add(count)
  }
}

private[legacy] object PlainPages {

  /**
   * The byte range of items `[first, first + n)` of `width` bytes in a page at `position`;
   * an overflow means the page cannot lie in any file.
   */
  def span(path: String, position: Long, first: Long, n: Long, width: Int, what: => String): (Long, Long) =
    try Tuple2(Math.addExact(position, Math.multiplyExact(first, width.toLong)), Math.multiplyExact(n, width.toLong))
    catch {
      case _: ArithmeticException =>
        throw io.sparklance.util.Errors.corrupt(path, position, s"$what: items [$first, +$n) of $width bytes lie beyond any file")
    }

  /** Appends bits `[firstBit, firstBit + n)` of the bitmap starting at byte `position`. */
  def appendBits(src: PageSource, position: Long, firstBit: Long, n: Int, out: GrowingBits, what: => String): Unit = {
    val firstByte = firstBit >>> 3
    val endByte = (firstBit + n + 7) >>> 3
    val bytes = src.read(position + firstByte, endByte - firstByte, what)
    out.appendFrom(bytes, firstBit & 7, n)
  }
}
