package io.sparklance.storage.hadoop

import java.io.ByteArrayInputStream

import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.hadoop.fs.s3a.S3AFileSystem
import com.amazonaws.AmazonServiceException

/**
 * One PutObject with `If-None-Match: *` through Hadoop 3.3.4's S3A (AWS SDK v1 1.12), for
 * [[S3aPutIfAbsentWrites]]. The request comes from S3A's request factory (bucket, server-side
 * encryption, ACL, storage class, as S3A's own PUTs) and goes out through S3A's client
 * (`getAmazonS3ClientForTesting`, the only accessor 3.3.4 offers: credentials, endpoint, region,
 * path style, retries), inside an S3A audit span like S3A's own operations. SDK v1 has no
 * conditional-write field: the header is a custom request header. The SDK may send the request
 * again (a retry after a lost response): it may re-read the whole body for that.
 */
private[hadoop] object S3aConditionalPut {

  def put(fs: FileSystem, target: Path, bytes: Array[Byte]): Unit = {
    val s3a = fs.asInstanceOf[S3AFileSystem]
    val key = s3a.pathToKey(target)
    val span = s3a.createSpan("op_create", key, null)
    try {
      val factory = s3a.getRequestFactory
      val request = factory.newPutObjectRequest(key, factory.newObjectMetadata(bytes.length.toLong), new ByteArrayInputStream(bytes))
      request.putCustomRequestHeader("If-None-Match", "*")
      request.getRequestClientOptions.setReadLimit(bytes.length + 1)
      s3a.getAmazonS3ClientForTesting("create-if-absent of a Lance commit file").putObject(request)
      ()
    } finally span.close()
  }

  /** The HTTP status of a refusal by the store, None for a failure without an answer. */
  def status(e: Throwable): Option[Int] = e match {
    case s: AmazonServiceException => Some(s.getStatusCode)
    case _ => None
  }
}
