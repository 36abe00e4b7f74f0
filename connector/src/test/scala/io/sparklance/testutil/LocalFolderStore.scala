package io.sparklance.testutil

import java.io.{File, FileOutputStream}
import java.nio.file.{FileAlreadyExistsException, Files, StandardCopyOption}
import java.util.UUID

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration

import io.sparklance.storage.{FileEntry, FileSink, ObjectStore, PutResult, RangeReader}
import io.sparklance.storage.hadoop.HadoopObjectStore

/**
 * Reads through HadoopObjectStore and writes local folders the way the storage layer does
 * (a temporary file in the same folder, then a hard link onto the final name for
 * create-if-absent), for the commit tests until HadoopObjectStore's writes land.
 */
class LocalFolderStore extends ObjectStore {
  private val reads = new HadoopObjectStore(new Configuration())
  private def file(path: String): File = new File(path.stripPrefix("file:"))

  override def size(path: String): Long = reads.size(path)
  override def exists(path: String): Boolean = reads.exists(path)
  override def isDirectory(path: String): Boolean = reads.isDirectory(path)
  override def entryExists(path: String): Boolean = reads.entryExists(path)
  override def list(dir: String): Seq[FileEntry] = reads.list(dir)
  override def listNames(dir: String): Seq[String] = reads.listNames(dir)
  override def open(path: String, knownSize: Option[Long]): RangeReader = reads.open(path, knownSize)
  override def requireAtomicCreate(path: String): Unit = ()

  private def temp(target: File): File = {
    target.getParentFile.mkdirs()
    new File(target.getParentFile, s".tmp-${target.getName}-${UUID.randomUUID()}")
  }

  override def create(path: String): FileSink = {
    val target = file(path)
    val t = temp(target)
    val out = new FileOutputStream(t)
    val inner = FileSink.of(out)
    new FileSink {
      def position: Long = inner.position
      def write(bytes: Array[Byte], offset: Int, length: Int): Unit = inner.write(bytes, offset, length)
      def close(): Unit = {
        out.getFD.sync(); inner.close()
        Files.move(t.toPath, target.toPath, StandardCopyOption.ATOMIC_MOVE)
      }
      def abort(): Unit = { inner.abort(); t.delete() }
    }
  }

  override def putIfAbsent(path: String, bytes: Array[Byte]): PutResult = {
    val target = file(path)
    val t = temp(target)
    val out = new FileOutputStream(t)
    try { out.write(bytes); out.getFD.sync() } finally out.close()
    try { Files.createLink(target.toPath, t.toPath); PutResult.Created }
    catch { case _: FileAlreadyExistsException => PutResult.AlreadyExists }
    finally t.delete()
  }

  override def delete(path: String): Boolean = Files.deleteIfExists(file(path).toPath)

  override def listRecursive(dir: String): Seq[FileEntry] = {
    val root = file(dir).toPath
    if (!Files.isDirectory(root)) Seq.empty
    else {
      val s = Files.walk(root)
      try s.iterator.asScala.filter(Files.isRegularFile(_)).map(p => FileEntry(p.getFileName.toString, p.toString, Files.size(p))).toVector
      finally s.close()
    }
  }
}
