package io.sparklance.storage.hadoop

import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.hadoop.fs.s3a.S3AFileSystem
import org.apache.hadoop.fs.s3a.impl.PutObjectOptions
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration
import software.amazon.awssdk.core.exception.SdkServiceException
import software.amazon.awssdk.core.sync.RequestBody

/**
 * One PutObject with `If-None-Match: *` through Hadoop 3.4.1's S3A (AWS SDK v2 2.24), for
 * [[S3aPutIfAbsentWrites]]. The request comes from S3A's request factory (bucket, server-side
 * encryption, ACL, storage class, as S3A's own PUTs) and goes out through S3A's client
 * (`getS3AInternals.getAmazonS3Client`: credentials, endpoint, region, path style, requester
 * pays, retries), inside an S3A audit span like S3A's own operations. SDK 2.24's request has no
 * `ifNoneMatch` field yet (2.27 added it): the header is added to the request's override
 * configuration, keeping what S3A's factory put there (its request time-out,
 * `fs.s3a.connection.request.timeout`).
 */
private[hadoop] object S3aConditionalPut {

  def put(fs: FileSystem, target: Path, bytes: Array[Byte]): Unit = {
    val s3a = fs.asInstanceOf[S3AFileSystem]
    val key = s3a.pathToKey(target)
    val span = s3a.createSpan("op_create", key, null)
    try {
      val request = s3a.getRequestFactory.newPutObjectRequestBuilder(key, PutObjectOptions.keepingDirs(), bytes.length.toLong, false)
      val overrides = Option(request.overrideConfiguration()).map(_.toBuilder).getOrElse(AwsRequestOverrideConfiguration.builder())
      request.overrideConfiguration(overrides.putHeader("If-None-Match", "*").build())
      s3a.getS3AInternals.getAmazonS3Client("create-if-absent of a Lance commit file")
        .putObject(request.build(), RequestBody.fromBytes(bytes))
      ()
    } finally span.close()
  }

  /** The HTTP status of a refusal by the store, None for a failure without an answer. */
  def status(e: Throwable): Option[Int] = e match {
    case s: SdkServiceException => Some(s.statusCode())
    case _ => None
  }
}
