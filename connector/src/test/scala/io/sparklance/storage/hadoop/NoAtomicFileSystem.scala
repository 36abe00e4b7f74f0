package io.sparklance.storage.hadoop

import java.net.URI

import org.apache.hadoop.fs.{FileStatus, Path, RawLocalFileSystem}

/**
 * Local files under the scheme `nocommit:`: a Hadoop file system that can create, list and
 * delete, but offers no atomic create-if-absent (no conditional-create capability).
 */
final class NoAtomicFileSystem extends RawLocalFileSystem {
  override def getUri: URI = URI.create("nocommit:///")
  override def getScheme: String = "nocommit"

  // The local statuses read their permissions through java.io.File(uri), which takes only
  // file: URIs; plain statuses carry what the store needs (path, length, kind).
  override def listStatus(f: Path): Array[FileStatus] =
    super.listStatus(f).map(s => new FileStatus(s.getLen, s.isDirectory, 1, s.getBlockSize, s.getModificationTime, s.getPath))
}
