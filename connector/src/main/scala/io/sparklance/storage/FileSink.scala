package io.sparklance.storage

import java.io.OutputStream

// Where a new file's bytes go as a writer produces them (a data file, a deletion file, an index
// file). The writer needs only to append and to know how many bytes it has appended (page
// buffers are addressed by absolute file offset); the store decides what a sink is (a local
// temporary file linked into place, an S3 multipart upload).

trait FileSink extends AutoCloseable {
  /** Bytes appended so far: the file offset of the next byte written. */
  def position: Long
  def write(bytes: Array[Byte], offset: Int, length: Int): Unit
  final def write(bytes: Array[Byte]): Unit = write(bytes, 0, bytes.length)
  /** Makes the file complete and durable; after a failure the file must be treated as absent. */
  def close(): Unit
  /** Gives the file up: nothing of it stays visible (best effort; never throws). */
  def abort(): Unit
}

object FileSink {
  /** A sink over a stream, counting what passes through it. Closing or aborting closes the stream. */
  def of(out: OutputStream): FileSink = new FileSink {
    private var written = 0L
    def position: Long = written
    def write(bytes: Array[Byte], offset: Int, length: Int): Unit = { out.write(bytes, offset, length); written += length }
    def close(): Unit = out.close()
    def abort(): Unit = try out.close() catch { case _: java.io.IOException => () }
  }
}
