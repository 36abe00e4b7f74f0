package io.sparklance.testutil

import java.io.File
import java.nio.file.{Files, StandardCopyOption}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration

import io.sparklance.storage.{FileEntry, FileSink, ObjectStore, PutResult, RangeReader}
import io.sparklance.storage.hadoop.HadoopObjectStore

/**
 * The local-disk writes of an [[ObjectStore]] for tests of the layers above storage, until
 * HadoopObjectStore writes itself: a new file is streamed to a hidden temporary file beside
 * it and moved into place when its sink closes, so an aborted file leaves nothing. Reads go
 * through HadoopObjectStore. Records every path it was asked to create.
 */
final class LocalWriteStore extends ObjectStore {
  private val reads = new HadoopObjectStore(new Configuration())
  private val createdPaths = new java.util.concurrent.ConcurrentLinkedQueue[String]()

  /** Every path `create` was called with, in order. */
  def created: Seq[String] = createdPaths.asScala.toSeq

  private def file(path: String): File = new File(path.stripPrefix("file:"))

  override def size(path: String): Long = reads.size(path)
  override def exists(path: String): Boolean = reads.exists(path)
  override def isDirectory(path: String): Boolean = reads.isDirectory(path)
  override def entryExists(path: String): Boolean = reads.entryExists(path)
  override def list(dir: String): Seq[FileEntry] = reads.list(dir)
  override def listNames(dir: String): Seq[String] = reads.listNames(dir)
  override def open(path: String, knownSize: Option[Long]): RangeReader = reads.open(path, knownSize)
  override def requireAtomicCreate(path: String): Unit = ()

  override def create(path: String): FileSink = {
    createdPaths.add(path)
    val target = file(path)
    target.getParentFile.mkdirs()
    val temp = new File(target.getParentFile, s".${target.getName}.tmp")
    val out = new java.io.BufferedOutputStream(new java.io.FileOutputStream(temp), 1 << 16)
    new FileSink {
      private var written = 0L
      def position: Long = written
      def write(bytes: Array[Byte], offset: Int, length: Int): Unit = { out.write(bytes, offset, length); written += length }
      def close(): Unit = { out.close(); Files.move(temp.toPath, target.toPath, StandardCopyOption.ATOMIC_MOVE) }
      def abort(): Unit = { try out.close() catch { case _: java.io.IOException => () }; temp.delete() }
    }
  }

  override def putIfAbsent(path: String, bytes: Array[Byte]): PutResult = {
    val target = file(path)
    target.getParentFile.mkdirs()
    try { Files.write(target.toPath, bytes, java.nio.file.StandardOpenOption.CREATE_NEW); PutResult.Created }
    catch { case _: java.nio.file.FileAlreadyExistsException => PutResult.AlreadyExists }
  }

  override def delete(path: String): Boolean = Files.deleteIfExists(file(path).toPath)

  override def listRecursive(dir: String): Seq[FileEntry] = {
    val root = file(dir)
    if (!root.isDirectory) Nil
    else {
      val s = Files.walk(root.toPath)
      try s.iterator.asScala.filter(Files.isRegularFile(_)).map(p => FileEntry(p.getFileName.toString, p.toString, Files.size(p))).toList
      finally s.close()
    }
  }
}
