// Spec: lance-format/lance rust/lance-encoding/src/data.rs `VariableWidthBlock`, the in-memory
// form every variable-width decoder (Variable, FSST, dictionary items) hands to the next stage.
package io.sparklance.format.encoding

/**
 * Variable-width values laid out as Arrow does: value `i` is `bytes(offsets(i) until offsets(i + 1))`.
 * Decoders in this package build it with `offsets(0) == 0`, offsets non-decreasing and
 * `offsets.last == bytes.length`; they check the file's offsets before building one.
 *
 * Offsets are `Int` even where the file stores 64-bit offsets: one JVM array cannot hold 2 GiB, so
 * a 64-bit offset that passes the bounds check always fits. Widening for an Arrow large type is the
 * Arrow layer's job.
 */
final class VariableData(val offsets: Array[Int], val bytes: Array[Byte]) {
  def numValues: Int = offsets.length - 1
  def length(i: Int): Int = offsets(i + 1) - offsets(i)
  def value(i: Int): Array[Byte] = java.util.Arrays.copyOfRange(bytes, offsets(i), offsets(i + 1))

  override def toString: String = s"VariableData($numValues values, ${bytes.length} bytes)"
}

object VariableData {
  val empty: VariableData = new VariableData(Array(0), Array.emptyByteArray)

  /** Concatenates `values` (a writer-side and test helper). */
  def of(values: Seq[Array[Byte]]): VariableData = {
    val offsets = new Array[Int](values.size + 1)
    var total = 0L
    var i = 0
    values.foreach { v =>
      total += v.length
      if (total > Int.MaxValue) throw new IllegalArgumentException(s"values total more than ${Int.MaxValue} bytes")
      offsets(i + 1) = total.toInt
      i += 1
    }
    val bytes = new Array[Byte](total.toInt)
    i = 0
    values.foreach { v => System.arraycopy(v, 0, bytes, offsets(i), v.length); i += 1 }
    new VariableData(offsets, bytes)
  }
}
