package io.sparklance.testutil

import java.nio.ByteBuffer

import io.sparklance.storage.{FileEntry, ObjectStore, RangeReader}

/** An [[ObjectStore]] that counts the bytes read from each file through it. */
final class CountingStore(inner: ObjectStore) extends ObjectStore {
  private val read = scala.collection.concurrent.TrieMap.empty[String, Long]

  /** Bytes read from files whose path ends with `suffix`, since the last reset. */
  def bytesRead(suffix: String): Long = read.iterator.collect { case (p, n) if p.endsWith(suffix) => n }.sum

  def reset(): Unit = read.clear()

  override def size(path: String): Long = inner.size(path)
  override def exists(path: String): Boolean = inner.exists(path)
  override def isDirectory(path: String): Boolean = inner.isDirectory(path)
  override def entryExists(path: String): Boolean = inner.entryExists(path)
  override def list(dir: String): Seq[FileEntry] = inner.list(dir)
  override def listNames(dir: String): Seq[String] = inner.listNames(dir)

  override def open(path: String, knownSize: Option[Long]): RangeReader = {
    val r = inner.open(path, knownSize)
    new RangeReader {
      override def path: String = r.path
      override def size: Long = r.size
      override def modified: Option[Long] = r.modified
      override def read(offset: Long, length: Int): ByteBuffer = {
        CountingStore.this.read.updateWith(path)(n => Some(n.getOrElse(0L) + length))
        r.read(offset, length)
      }
      override def bytesRead: Long = r.bytesRead
      override def close(): Unit = r.close()
    }
  }
}
