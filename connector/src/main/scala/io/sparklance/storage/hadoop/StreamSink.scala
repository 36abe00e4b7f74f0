package io.sparklance.storage.hadoop

import java.io.{IOException, OutputStream}

import io.sparklance.storage.FileSink
import io.sparklance.util.Errors

/**
 * A [[FileSink]] over a stream that writes the file under some name on the way to its own:
 * counts what passes, refuses writes once closed or aborted, and turns the two ends into the
 * store's steps. `finish` makes the file complete and visible at its name; `discard` gives it
 * up and must not throw. A failed `finish` is followed by `discard`, as [[FileSink.close]]
 * requires that a file whose close failed be treated as absent.
 */
private[hadoop] abstract class StreamSink(path: String, protected val out: OutputStream) extends FileSink {
  private var count = 0L
  private var done = false

  protected def finish(): Unit
  protected def discard(): Unit

  final override def position: Long = count

  final override def write(bytes: Array[Byte], offset: Int, length: Int): Unit = {
    if (done) throw new IllegalStateException(s"$path: write after close or abort")
    try out.write(bytes, offset, length)
    catch { case e: IOException => throw Errors.io(path, "writing the file", e) }
    count += length
  }

  final override def close(): Unit = if (!done) {
    done = true
    try finish()
    catch {
      case e: IOException =>
        discard()
        throw Errors.io(path, "finishing the file", e)
    }
  }

  final override def abort(): Unit = if (!done) { done = true; discard() }
}
