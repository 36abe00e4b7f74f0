package io.sparklance.format.write

import java.io.OutputStream

// Where a data file's bytes go as the writer produces them. The writer needs only to append and
// to know how many bytes it has appended (page buffers are addressed by absolute file offset);
// the storage layer decides what a sink is (a local file, an S3 multipart upload).

trait FileSink extends AutoCloseable {
  /** Bytes appended so far: the file offset of the next byte written. */
  def position: Long
  def write(bytes: Array[Byte], offset: Int, length: Int): Unit
  final def write(bytes: Array[Byte]): Unit = write(bytes, 0, bytes.length)
  /** Makes the file complete and durable; after a failure the file must be treated as absent. */
  def close(): Unit
}

object FileSink {
  /** A sink over a stream, counting what passes through it. Closing closes the stream. */
  def of(out: OutputStream): FileSink = new FileSink {
    private var written = 0L
    def position: Long = written
    def write(bytes: Array[Byte], offset: Int, length: Int): Unit = { out.write(bytes, offset, length); written += length }
    def close(): Unit = out.close()
  }
}
