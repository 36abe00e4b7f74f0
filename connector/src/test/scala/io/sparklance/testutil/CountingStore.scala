package io.sparklance.testutil

import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import io.sparklance.storage.{FileEntry, ObjectStore, RangeReader}

/** An [[ObjectStore]] that counts the bytes read from each file through it, and the directory listings. */
final class CountingStore(inner: ObjectStore) extends ForwardingStore(inner) {
  private val read = new java.util.concurrent.ConcurrentHashMap[String, java.lang.Long]

  /** Bytes read from files whose path ends with `suffix`, since the last reset. */
  def bytesRead(suffix: String): Long = read.asScala.iterator.collect { case (p, n) if p.endsWith(suffix) => n.longValue }.sum

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
        CountingStore.this.read.merge(path, length.toLong, (a: java.lang.Long, b: java.lang.Long) => a + b)
        r.read(offset, length)
      }
      override def bytesRead: Long = r.bytesRead
      override def close(): Unit = r.close()
    }
  }
}
