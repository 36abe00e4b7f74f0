package io.sparklance.storage.hadoop

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileAlreadyExistsException, FileSystem, Path}

import io.sparklance.storage.{FileSink, PutResult}
import io.sparklance.util.Errors

/**
 * Stores whose Hadoop connector creates a file only if it is absent (S3A in Hadoop 3.5.0, Spark 4.2.0's:
 * one PUT with `If-None-Match: *`). Writes stream to the final name; an object store shows an
 * object only once its upload completes, and an aborted multipart upload never.
 *
 * The conditional PUT is sent at `close()`, so a writer that lost learns it there: S3A throws
 * a RemoteFileChangedException caused by the SDK's S3Exception with HTTP status 412
 * (PreconditionFailed). That class alone also means "the object changed while read", so the
 * status decides. Without a compile-time dependency on the AWS SDK, the status is read
 * through the SDK's public `statusCode()` accessor (SdkServiceException, and S3A's own
 * AWSServiceIOException, both have it).
 */
private[hadoop] final class ConditionalWrites(fs: FileSystem) extends WriteProtocol {

  override def create(path: String, target: Path): FileSink = HadoopSink.create(fs, path, target)

  override def putIfAbsent(path: String, target: Path, bytes: Array[Byte]): PutResult =
    try {
      val out = fs.createFile(target).overwrite(false).must(WriteProtocol.ConditionalCreate, true).build()
      try out.write(bytes) finally out.close()
      PutResult.Created
    } catch {
      case NonFatal(e) if WriteProtocol.causes(e).exists(lost) => PutResult.AlreadyExists
      // The SDK's own exceptions are unchecked; S3A translates most, not all.
      case NonFatal(e) => throw Errors.io(path, "creating the file if absent", e)
    }

  override def replace(path: String, target: Path, bytes: Array[Byte]): Unit = ConditionalWrites.replace(fs, path, target, bytes)

  private def lost(e: Throwable): Boolean = e.isInstanceOf[FileAlreadyExistsException] || httpStatus(e).contains(412)

  private def httpStatus(e: Throwable): Option[Int] =
    try e.getClass.getMethod("statusCode").invoke(e) match {
      case n: Integer => Some(n.intValue)
      case _ => None
    } catch { case _: ReflectiveOperationException => None }
}

private[hadoop] object ConditionalWrites {

  /**
   * One unconditional PUT: an object store replaces an object whole, a reader gets the old
   * object or the new one. Every S3A can do it, with or without conditional create.
   */
  def replace(fs: FileSystem, path: String, target: Path, bytes: Array[Byte]): Unit =
    try {
      val out = fs.createFile(target).overwrite(true).build()
      try out.write(bytes) finally out.close()
    } catch { case NonFatal(e) => throw Errors.io(path, "replacing the file", e) }
}
