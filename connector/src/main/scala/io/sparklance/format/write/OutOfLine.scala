package io.sparklance.format.write

import org.apache.arrow.memory.ArrowBuf
import io.sparklance.storage.FileSink

// Spec: rust/lance-file/src/writer.rs (OutOfLineBuffers, PAGE_BUFFER_ALIGNMENT). Values stored
// outside any page (blob bytes) go straight into the file's data region as they arrive, each
// starting on a 64-byte boundary; the page records where. Streaming them keeps a writer's memory
// independent of blob sizes.

/** Writes a value's bytes into the data file now and returns their absolute file offset. */
trait OutOfLine {
  def write(buf: ArrowBuf, offset: Long, length: Long): Long
}

private[write] final class SinkOutOfLine(sink: FileSink) extends OutOfLine {
  private lazy val chunk = new Array[Byte](1 << 20) // only files with blob columns need it

  def write(buf: ArrowBuf, offset: Long, length: Long): Long = {
    val at = sink.position
    var done = 0L
    while (done < length) {
      val n = math.min(chunk.length.toLong, length - done).toInt
      buf.getBytes(offset + done, chunk, 0, n)
      sink.write(chunk, 0, n)
      done += n
    }
    LanceFileWriter.pad(sink)
    at
  }
}
