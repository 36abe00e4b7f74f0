package io.sparklance.format.v20

import io.sparklance.format.encoding.{BitCopy, VariableData}

// Spec: lance-format/lance rust/lance-encoding/src/data.rs (the DataBlock shapes a 2.0 page
// decodes to). One decoded page, held until the scanner has consumed its rows, in the
// shapes Arrow needs next: nothing here is sized by a count the file declares without a
// buffer that backs it (all-null and constant pages stay symbolic, dictionary pages keep
// their indices and are expanded per batch).

/** Which values of a page are valid. */
sealed trait Validity {
  def isValid(i: Long): Boolean
}

object Validity {
  case object AllValid extends Validity {
    def isValid(i: Long): Boolean = true
  }

  /** An LSB-first bitmap, bit set = valid. */
  final case class Bits(bits: Array[Byte]) extends Validity {
    def isValid(i: Long): Boolean = BitCopy.getBit(bits, i.toInt)
  }

  /** Valid where both are. */
  def and(a: Validity, b: Validity, length: Int): Validity = (a, b) match {
    case (AllValid, x) => x
    case (x, AllValid) => x
    case (Bits(x), Bits(y)) =>
      val out = new Array[Byte]((length + 7) / 8)
      var i = 0
      while (i < out.length) { out(i) = (x(i) & y(i)).toByte; i += 1 }
      Bits(out)
  }
}

/** The decoded values of one page (or of one encoding inside it). */
sealed trait PageValues {
  def length: Long
  def validity: Validity
  /** Whether value `i` is valid; dictionary and all-null values answer from their own data. */
  def isValid(i: Long): Boolean = validity.isValid(i)
  def withValidity(v: Validity): PageValues
}

object PageValues {

  /** `length` values of `bits` bits: a bitmap when `bits` is 1, else `bits / 8` bytes each. */
  final case class Fixed(bits: Int, data: Array[Byte], length: Long, validity: Validity) extends PageValues {
    def withValidity(v: Validity): PageValues = copy(validity = v)
  }

  /** `length` copies of one value of `value.length` bytes. */
  final case class Constant(value: Array[Byte], length: Long, validity: Validity) extends PageValues {
    def withValidity(v: Validity): PageValues = copy(validity = v)
  }

  /** Variable-width values (offsets start at 0). */
  final case class Variable(data: VariableData, validity: Validity) extends PageValues {
    def length: Long = data.count.toLong
    def withValidity(v: Validity): PageValues = copy(validity = v)
  }

  /** Value i is `items(indices(i))`, or null when `indices(i)` is negative or that item is null. */
  final case class Dictionary(indices: Array[Int], items: PageValues) extends PageValues {
    def length: Long = indices.length.toLong
    def validity: Validity = Validity.AllValid
    override def isValid(i: Long): Boolean = {
      val k = indices(i.toInt)
      k >= 0 && items.isValid(k.toLong)
    }
    def withValidity(v: Validity): PageValues = v match {
      case Validity.AllValid => this
      case _ =>
        val masked = indices.clone()
        var i = 0
        while (i < masked.length) { if (!v.isValid(i.toLong)) masked(i) = -1; i += 1 }
        copy(indices = masked)
    }
  }

  /** `dimension` consecutive items per value. */
  final case class FixedSizeList(dimension: Int, items: PageValues, length: Long, validity: Validity) extends PageValues {
    def withValidity(v: Validity): PageValues = copy(validity = v)
  }

  /** Children of equal length (a packed struct). */
  final case class Struct(children: IndexedSeq[PageValues], length: Long, validity: Validity) extends PageValues {
    def withValidity(v: Validity): PageValues = copy(validity = v)
  }

  /** `length` nulls. */
  final case class Nulls(length: Long) extends PageValues {
    def validity: Validity = Validity.AllValid
    override def isValid(i: Long): Boolean = false
    def withValidity(v: Validity): PageValues = this
  }
}

/** Rows `[start, start + count)` of a decoded page: what one batch takes from it. */
final case class PageSlice(values: PageValues, start: Long, count: Int)
