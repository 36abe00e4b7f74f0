package io.sparklance.storage.hadoop

import org.apache.hadoop.fs.FileSystem

/**
 * The S3A of Hadoop 3.4.2 and later (Spark 4.1, 4.2) creates a file only if it is absent itself
 * (the path capability `fs.option.create.conditional.overwrite`, used by [[ConditionalWrites]]).
 * Where it does not offer it there, conditional create is switched off
 * (`fs.s3a.create.conditional.enabled=false`) and commits are refused: nothing to add.
 */
private[hadoop] object S3aPutIfAbsent {
  def protocol(fs: FileSystem): Option[WriteProtocol] = None
}
