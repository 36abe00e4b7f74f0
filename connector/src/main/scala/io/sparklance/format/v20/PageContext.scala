package io.sparklance.format.v20

import io.sparklance.util.{Bytes, CorruptFileException, Errors}

// Spec: lance-format/lance protos/encodings_v2_0.proto `Buffer` and protos/file2.proto `Page`.
// What every 2.0 decoder needs while it decodes one page: the page's buffers (already read
// and checked against the file), where it is for error messages, and how the column's
// dictionaries count.

/**
 * The buffers of one page; `column` names it for errors (field, column index, page). `zeroBasedDictionary` is true for a column whose schema type is
 * a dictionary (the writer stores its Arrow keys as they are) and false otherwise (the
 * writer's own dictionary encoding of strings, whose u8 indices start at 1, 0 meaning null).
 */
final class PageContext(val path: String, val column: String, buffers: IndexedSeq[Bytes], val zeroBasedDictionary: Boolean) {

  def buffer(ref: BufferRef, what: => String): Bytes = ref.kind match {
    case BufferKind.Page =>
      if (ref.index < 0 || ref.index >= buffers.length)
        throw corrupt(s"the $what encoding names page buffer ${ref.index} but the page has ${buffers.length}")
      buffers(ref.index)
    case other =>
      throw Errors.unsupportedEncoding(path, column, s"$what values in a ${other.toString.toLowerCase} buffer (Lance writes page buffers only)")
  }

  def corrupt(detail: String): CorruptFileException = Errors.corrupt(path, s"column '$column': $detail")

  def unsupported(encoding: String): Exception = Errors.unsupportedEncoding(path, column, encoding)

  /** `n` as an array length, or an error naming `what`: one page never holds 2^31 values. */
  def arrayLength(n: Long, what: => String): Int =
    if (n < 0 || n > Int.MaxValue - 8) throw corrupt(s"$what: $n values do not fit one page")
    else n.toInt
}
