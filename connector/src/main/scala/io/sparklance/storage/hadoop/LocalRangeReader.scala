package io.sparklance.storage.hadoop

import java.io.{EOFException, FileNotFoundException, IOException}
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.{Files, NoSuchFileException, StandardOpenOption, Path => NioPath}
import java.nio.file.attribute.BasicFileAttributes

import io.sparklance.storage.RangeReader
import io.sparklance.util.Errors

/**
 * Positioned reads of a local file through one java.nio FileChannel. Hadoop's raw local stream
 * costs more to open than a small Lance file costs to read (it builds an I/O statistics store
 * and allocates a read buffer per stream, a third of the time of compacting one-row fragments);
 * a channel is one open call and reads at an offset without moving a shared position, so the
 * reader is safe to share between threads.
 */
private[hadoop] final class LocalRangeReader private (val path: String, channel: FileChannel, val size: Long,
    override val modified: Option[Long]) extends RangeReader {
  private val read0 = new java.util.concurrent.atomic.AtomicLong()

  override def read(offset: Long, length: Int): ByteBuffer = {
    RangeReader.checkRange(path, offset, length, size)
    val out = ByteBuffer.allocate(length)
    try while (out.hasRemaining) {
      if (channel.read(out, offset + out.position()) < 0)
        throw Errors.corrupt(path, offset, s"the file ended before $length bytes could be read", new EOFException(path))
    } catch {
      case e: IOException => throw Errors.io(path, s"reading $length bytes at offset $offset", e)
    }
    read0.addAndGet(length)
    out.flip()
    out
  }

  override def bytesRead: Long = read0.get()

  override def close(): Unit = channel.close()
}

private[hadoop] object LocalRangeReader {

  /**
   * The attributes of `file` (the local path of `path`), refusing anything but a regular file:
   * opening a named pipe blocks until a writer comes, which for a table's file is forever, and
   * Hadoop's local status tells a pipe from a file no more than a zero length does. They carry
   * the modification time (nanoseconds, as fine as the file system keeps it) and the size.
   */
  def regularFile(path: String, file: NioPath): BasicFileAttributes = {
    val attrs =
      try Files.readAttributes(file, classOf[BasicFileAttributes])
      catch { case _: NoSuchFileException => throw new FileNotFoundException(path) }
    if (attrs.isDirectory) throw Errors.notARegularFile(path, "a directory")
    if (!attrs.isRegularFile) throw Errors.notARegularFile(path, "a special file (a named pipe, device or socket)")
    attrs
  }

  /**
   * Opens `file`, a regular file ([[regularFile]]), for reads at offsets. Its size, unless the
   * caller knows it, is the opened file's own: a file replaced under its name between a stat and
   * the open (a moved tag, ObjectStore.replace) is then read whole, old or new, never cut.
   */
  def open(path: String, file: NioPath, knownSize: Option[Long], modified: Option[Long]): LocalRangeReader = {
    val channel =
      try FileChannel.open(file, StandardOpenOption.READ)
      catch { case _: NoSuchFileException => throw new FileNotFoundException(path) }
    val size = try knownSize.getOrElse(channel.size()) catch { case e: IOException => channel.close(); throw e }
    new LocalRangeReader(path, channel, size, modified)
  }
}
