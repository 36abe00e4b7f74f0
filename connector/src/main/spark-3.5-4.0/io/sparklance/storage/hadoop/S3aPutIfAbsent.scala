package io.sparklance.storage.hadoop

import java.util.concurrent.ThreadLocalRandom

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}

import io.sparklance.storage.{FileSink, PutResult}
import io.sparklance.util.Errors

/**
 * Atomic create-if-absent on S3A before Hadoop 3.4.2 (Spark 3.5: Hadoop 3.3.4, AWS SDK v1;
 * Spark 4.0: Hadoop 3.4.1, SDK v2), whose S3A has no conditional create: a commit's small file
 * is sent as one PutObject with `If-None-Match: *` through the S3A file system's own AWS client
 * and request factory ([[S3aConditionalPut]], one per SDK), so that credentials, endpoint,
 * region, path style, the SDK's retries, encryption, ACL and storage class are those of the
 * user's `fs.s3a.*` settings. S3 stores such a PUT only if no object has the key, atomically.
 *
 * It is on unless `fs.s3a.create.conditional.enabled` is false, the switch later S3A releases
 * have for the same request: a store that ignores `If-None-Match` would overwrite a rival's
 * manifest, so on such a store the switch is turned off and commits are refused, as on 4.1+.
 *
 * Only s3a paths reach this object (WriteProtocol.of); S3A's classes are loaded only when the
 * file system is S3A, so a cluster without hadoop-aws never loads them.
 */
private[hadoop] object S3aPutIfAbsent {

  /** S3A's switch for conditional create (Hadoop 3.4.2), honoured with the same default here. */
  val Enabled = "fs.s3a.create.conditional.enabled"

  def protocol(fs: FileSystem): Option[WriteProtocol] =
    if (isS3a(fs) && fs.getConf.getBoolean(Enabled, true)) Some(new S3aPutIfAbsentWrites(fs)) else None

  /** By class name, without loading S3AFileSystem: `fs.s3a.impl` may name another file system. */
  private def isS3a(fs: FileSystem): Boolean =
    Iterator.iterate[Class[_]](fs.getClass)(_.getSuperclass).takeWhile(_ != null).exists(_.getName == "org.apache.hadoop.fs.s3a.S3AFileSystem")
}

/**
 * New files stream through S3A (visible at close, never after an abort), replacements are one
 * plain PUT ([[ConditionalWrites.replace]]), and [[putIfAbsent]] is the conditional PUT.
 *
 * Its answers: 2xx created; 412 PreconditionFailed: an object has the key (another writer's, or
 * ours when the SDK sent the request again after losing a response: the caller reads back);
 * 409 ConditionalRequestConflict: another conditional write of the key is in flight, which S3
 * says to retry; it is sent again after a short random wait, and if the conflicts outlast the
 * retries the outcome is reported unknown. Anything else (another status, a time-out, a lost
 * response) is unknown too: the file may have been stored, the caller reads it back.
 */
private[hadoop] final class S3aPutIfAbsentWrites(fs: FileSystem) extends WriteProtocol {
  import S3aPutIfAbsentWrites._

  override def create(path: String, target: Path): FileSink = HadoopSink.create(fs, path, target)

  override def replace(path: String, target: Path, bytes: Array[Byte]): Unit = ConditionalWrites.replace(fs, path, target, bytes)

  override def putIfAbsent(path: String, target: Path, bytes: Array[Byte]): PutResult = {
    @scala.annotation.tailrec
    def attempt(conflicts: Int): PutResult = {
      val status =
        try { S3aConditionalPut.put(fs, target, bytes); None }
        catch {
          case NonFatal(e) => S3aConditionalPut.status(e) match {
            case Some(s @ (PreconditionFailed | Conflict)) => Some(s)
            case _ => throw Errors.io(path, "creating the file if absent (a PUT with If-None-Match: *)", e)
          }
        }
      status match {
        case None => PutResult.Created
        case Some(PreconditionFailed) => PutResult.AlreadyExists
        case _ if conflicts < ConflictRetries =>
          Thread.sleep(ThreadLocalRandom.current().nextLong(ConflictWaitMillis << conflicts) + 1)
          attempt(conflicts + 1)
        case _ => throw Errors.io(path, "creating the file if absent (a PUT with If-None-Match: *)",
          new java.io.IOException(s"S3 answered 409 ConditionalRequestConflict ${ConflictRetries + 1} times: other writers keep writing this file"))
      }
    }
    attempt(0)
  }
}

private object S3aPutIfAbsentWrites {
  val PreconditionFailed = 412
  val Conflict = 409
  /** 409s answered by sending the PUT again, after a random wait below 50, 100, 200, 400 ms. */
  val ConflictRetries = 4
  val ConflictWaitMillis = 50L
}
