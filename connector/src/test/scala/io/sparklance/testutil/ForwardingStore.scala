package io.sparklance.testutil

import io.sparklance.storage.{FileEntry, FileSink, ObjectStore, PutResult, RangeReader}

/** An [[ObjectStore]] passing every call to `inner`; tests override the calls they watch or break. */
class ForwardingStore(inner: ObjectStore) extends ObjectStore {
  override def size(path: String): Long = inner.size(path)
  override def exists(path: String): Boolean = inner.exists(path)
  override def isDirectory(path: String): Boolean = inner.isDirectory(path)
  override def entryExists(path: String): Boolean = inner.entryExists(path)
  override def list(dir: String): Seq[FileEntry] = inner.list(dir)
  override def listNames(dir: String): Seq[String] = inner.listNames(dir)
  override def listRecursive(dir: String): Seq[FileEntry] = inner.listRecursive(dir)
  override def makeDirectory(dir: String): Unit = inner.makeDirectory(dir)
  override def deleteDirectory(dir: String): Boolean = inner.deleteDirectory(dir)
  override def renameDirectory(from: String, to: String): Boolean = inner.renameDirectory(from, to)
  override def open(path: String, knownSize: Option[Long]): RangeReader = inner.open(path, knownSize)
  override def requireAtomicCreate(path: String): Unit = inner.requireAtomicCreate(path)
  override def create(path: String): FileSink = inner.create(path)
  override def putIfAbsent(path: String, bytes: Array[Byte]): PutResult = inner.putIfAbsent(path, bytes)
  override def replace(path: String, bytes: Array[Byte]): Unit = inner.replace(path, bytes)
  override def delete(path: String): Boolean = inner.delete(path)
}
