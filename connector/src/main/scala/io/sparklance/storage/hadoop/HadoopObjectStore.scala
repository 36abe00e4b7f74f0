package io.sparklance.storage.hadoop

import java.io.{FileNotFoundException, IOException}
import java.net.URI
import java.nio.ByteBuffer

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FSDataInputStream, FileSystem, Path}

import io.sparklance.storage.{FileEntry, ObjectStore, RangeReader}
import io.sparklance.util.Errors

/**
 * [[ObjectStore]] over Hadoop's FileSystem API: local files, HDFS, S3 (through S3A), GCS,
 * ABFS — whatever connectors the Hadoop configuration provides. Lance writes `s3://` URIs;
 * Hadoop's S3 connector is `s3a://`, so the scheme is mapped on the way in.
 */
final class HadoopObjectStore(conf: Configuration) extends ObjectStore {

  private def toPath(p: String): Path = new Path(HadoopObjectStore.toHadoopUri(p))

  private def fs(path: Path): FileSystem =
    try path.getFileSystem(conf) match {
      // Lance files carry no Hadoop .crc side files; the checksumming wrapper of the local
      // file system would only slow every read down (about 3x), so read the raw one.
      case local: org.apache.hadoop.fs.LocalFileSystem => local.getRawFileSystem
      case other => other
    }
    catch { case e: IOException => throw Errors.io(path.toString, "opening the file system", e) }

  override def size(path: String): Long = {
    val p = toPath(path)
    try fs(p).getFileStatus(p).getLen
    catch {
      case _: FileNotFoundException => throw Errors.fileNotFound(path, "reading its size")
      case e: IOException => throw Errors.io(path, "reading the file size", e)
    }
  }

  override def exists(path: String): Boolean = {
    val p = toPath(path)
    try { val st = fs(p).getFileStatus(p); st.isFile }
    catch {
      case _: FileNotFoundException => false
      case e: IOException => throw Errors.io(path, "checking existence", e)
    }
  }

  override def isDirectory(path: String): Boolean = {
    val p = toPath(path)
    try fs(p).getFileStatus(p).isDirectory
    catch {
      case _: FileNotFoundException => false
      case e: IOException => throw Errors.io(path, "checking existence", e)
    }
  }

  override def list(dir: String): Seq[FileEntry] =
    statuses(dir).filter(_.isFile).map(s => FileEntry(s.getPath.getName, s.getPath.toString, s.getLen))

  override def listDirectories(dir: String): Seq[String] =
    statuses(dir).filter(_.isDirectory).map(_.getPath.toString)

  private def statuses(dir: String) = {
    val p = toPath(dir)
    try fs(p).listStatus(p).toSeq
    catch {
      case _: FileNotFoundException => Seq.empty
      case e: IOException => throw Errors.io(dir, "listing the directory", e)
    }
  }

  override def open(path: String, knownSize: Option[Long]): RangeReader = {
    val p = toPath(path)
    try {
      val f = fs(p)
      val len = knownSize.getOrElse(f.getFileStatus(p).getLen)
      new HadoopRangeReader(path, f.open(p), len)
    } catch {
      case _: FileNotFoundException => throw Errors.fileNotFound(path, "opening it for reading")
      case e: IOException => throw Errors.io(path, "opening the file", e)
    }
  }
}

object HadoopObjectStore {

  /** Maps Lance's URI schemes to Hadoop's: `s3://` and `s3n://` go through S3A. */
  def toHadoopUri(p: String): URI = {
    val mapped =
      if (p.startsWith("s3://")) "s3a://" + p.stripPrefix("s3://")
      else if (p.startsWith("s3n://")) "s3a://" + p.stripPrefix("s3n://")
      else p
    new Path(mapped).toUri
  }
}

private final class HadoopRangeReader(val path: String, in: FSDataInputStream, val size: Long) extends RangeReader {
  private var read0 = 0L

  override def read(offset: Long, length: Int): ByteBuffer = {
    if (offset < 0 || length < 0 || offset > size - length)
      throw Errors.corrupt(path, offset, s"a read of $length bytes goes past the end of the $size-byte file")
    val out = new Array[Byte](length)
    try in.readFully(offset, out)
    catch {
      case e: java.io.EOFException => throw Errors.corrupt(path, offset, s"the file ended before $length bytes could be read", e)
      case e: IOException => throw Errors.io(path, s"reading $length bytes at offset $offset", e)
    }
    read0 += length
    ByteBuffer.wrap(out)
  }

  override def bytesRead: Long = read0

  override def close(): Unit = in.close()
}
