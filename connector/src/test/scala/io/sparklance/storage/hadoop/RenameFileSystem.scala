package io.sparklance.storage.hadoop

import java.io.{IOException, OutputStream}
import java.net.URI
import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{DelegateToFileSystem, FSDataOutputStream, FileAlreadyExistsException, Path, StreamCapabilities, Syncable}

/**
 * Local files posing as HDFS for the commit tests (the tests have no NameNode): the scheme is
 * `hdfs`, so the store commits with [[RenameWrites]] (a temporary file, then a rename that
 * refuses an existing target), through [[RenameFileContext]] for FileContext. It records which
 * files were synced (hsync) before they were closed, and can answer a rename that went through
 * with "already exists" (what a client that sent the rename again, the NameNode's retry cache
 * off, is told), by [[StorageFaults]]'s rules on the rename's target. Configure both
 * `fs.hdfs.impl` and `fs.AbstractFileSystem.hdfs.impl`; paths are `hdfs://test/<local path>`.
 */
final class RenameFileSystem extends LocalFileSystemAs(URI.create("hdfs://test")) {

  override protected def created(f: Path, out: FSDataOutputStream): FSDataOutputStream = {
    val path = f.toUri.getPath
    new FSDataOutputStream(new OutputStream with Syncable with StreamCapabilities {
      private var dirty = false
      override def write(b: Int): Unit = { out.write(b); dirty = true }
      override def write(b: Array[Byte], off: Int, len: Int): Unit = { out.write(b, off, len); dirty = true }
      override def hflush(): Unit = out.hflush()
      override def hsync(): Unit = { out.hsync(); dirty = false }
      override def hasCapability(capability: String): Boolean =
        capability == StreamCapabilities.HSYNC || capability == StreamCapabilities.HFLUSH
      override def close(): Unit = { out.close(); RenameFileSystem.closedSynced.put(path, !dirty) }
    }, null)
  }

  override def rename(src: Path, dst: Path): Boolean = {
    val done = super.rename(src, dst)
    Option(RenameFileSystem.closedSynced.remove(src.toUri.getPath)).foreach(RenameFileSystem.closedSynced.put(dst.toUri.getPath, _))
    if (done && StorageFaults.take(dst.toUri.getPath).isDefined)
      throw new FileAlreadyExistsException(s"rename destination $dst already exists (the rename was sent again)")
    done
  }
}

object RenameFileSystem {
  /** Every file closed so far (by its final path once renamed): whether all its bytes were synced before it closed. */
  val closedSynced = new ConcurrentHashMap[String, java.lang.Boolean]()

  /** The Hadoop settings that route `hdfs://` to this file system. */
  def configure(conf: Configuration): Configuration = {
    conf.set("fs.hdfs.impl", classOf[RenameFileSystem].getName)
    conf.set("fs.hdfs.impl.disable.cache", "true")
    conf.set("fs.AbstractFileSystem.hdfs.impl", classOf[RenameFileContext].getName)
    conf
  }
}

/** FileContext's view of [[RenameFileSystem]] (FileContext.rename goes through an AbstractFileSystem). */
final class RenameFileContext(uri: URI, conf: Configuration)
    extends DelegateToFileSystem(uri, new RenameFileSystem, conf, "hdfs", false) {
  override def getUriDefaultPort: Int = -1
}
