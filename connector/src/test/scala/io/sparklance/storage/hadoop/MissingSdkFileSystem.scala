package io.sparklance.storage.hadoop

import java.net.URI

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.RawLocalFileSystem

/** Fails as S3AFileSystem does when hadoop-aws is on the classpath but the AWS SDK is not. */
final class MissingSdkFileSystem extends RawLocalFileSystem {
  override def initialize(uri: URI, conf: Configuration): Unit =
    throw new NoClassDefFoundError("software/amazon/awssdk/core/exception/SdkException")
}
