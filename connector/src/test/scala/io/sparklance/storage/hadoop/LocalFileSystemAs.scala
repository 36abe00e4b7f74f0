package io.sparklance.storage.hadoop

import java.net.URI

import org.apache.hadoop.fs.{FSDataOutputStream, FileStatus, Path, RawLocalFileSystem}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.util.Progressable

/**
 * Local files under another scheme (`uri`), for tests of how the store treats file systems it
 * does not know: paths are local paths under that scheme. `created` sees every new file's
 * stream (to wrap it).
 */
abstract class LocalFileSystemAs(uri: URI) extends RawLocalFileSystem {
  override def getUri: URI = uri
  override def getScheme: String = uri.getScheme

  /** The stream of the new file `f`, as the tests want it. */
  protected def created(f: Path, out: FSDataOutputStream): FSDataOutputStream = out

  // The local statuses read their permissions through java.io.File(uri), which takes only
  // file: URIs; plain statuses carry what the store needs (path, length, kind).
  override def listStatus(f: Path): Array[FileStatus] =
    super.listStatus(f).map(s => new FileStatus(s.getLen, s.isDirectory, 1, s.getBlockSize, s.getModificationTime, s.getPath))

  // The local file system answers create(path, overwrite) through its own overload, not the one with permissions.
  override def create(f: Path, overwrite: Boolean, bufferSize: Int, replication: Short, blockSize: Long,
      progress: Progressable): FSDataOutputStream =
    created(f, super.create(f, overwrite, bufferSize, replication, blockSize, progress))

  override def create(f: Path, permission: FsPermission, overwrite: Boolean, bufferSize: Int, replication: Short,
      blockSize: Long, progress: Progressable): FSDataOutputStream =
    created(f, super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress))
}
