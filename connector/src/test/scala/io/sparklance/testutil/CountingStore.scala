package io.sparklance.testutil

import java.nio.ByteBuffer

import io.sparklance.storage.{FileEntry, ObjectStore, RangeReader}

/** An [[ObjectStore]] that counts the bytes read from each file through it, and the directory listings. */
final class CountingStore(inner: ObjectStore) extends ForwardingStore(inner) {
  private val read = scala.collection.concurrent.TrieMap.empty[String, Long]

  /** Bytes read from files whose path ends with `suffix`, since the last reset. */
  def bytesRead(suffix: String): Long = read.iterator.collect { case (p, n) if p.endsWith(suffix) => n }.sum

  /** Directory listings made through this store, since the last reset. */
  @volatile var listings = 0

  def reset(): Unit = { read.clear(); listings = 0 }

  override def list(dir: String): Seq[FileEntry] = { listings += 1; inner.list(dir) }
  override def listNames(dir: String): Seq[String] = { listings += 1; inner.listNames(dir) }
  override def listRecursive(dir: String): Seq[FileEntry] = { listings += 1; inner.listRecursive(dir) }

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
