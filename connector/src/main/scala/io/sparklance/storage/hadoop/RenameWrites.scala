package io.sparklance.storage.hadoop

import java.io.IOException
import java.util.UUID

import org.apache.hadoop.fs.{FileAlreadyExistsException, FileContext, FileSystem, Options, Path}

import io.sparklance.storage.{FileSink, PutResult}
import io.sparklance.util.Errors

/**
 * HDFS (and viewfs over it): a file is written under a hidden temporary name in its final
 * folder, then renamed with `Options.Rename.NONE`, which the NameNode performs atomically and
 * refuses when the target exists. Not tested against a real HDFS here (the tests have none);
 * the protocol is the one HDFS documents for FileContext.rename and the one Lance's own Rust
 * commit uses on stores with an atomic rename-if-not-exists.
 */
private[hadoop] final class RenameWrites(fs: FileSystem, fc: FileContext) extends WriteProtocol {

  override def create(path: String, target: Path): FileSink = {
    val temp = tempFor(target)
    val out =
      try fs.create(temp, false)
      catch { case e: IOException => throw Errors.io(path, "creating the file", e) }
    new HadoopSink(fs, path, out, temp, () => fc.rename(temp, target, Options.Rename.NONE))
  }

  /**
   * A failure before the rename leaves only the hidden temporary file: definitely not written.
   * The rename is one NameNode call whose answer can be lost, and a client that sends it again
   * (the NameNode's retry cache off) is told the target exists: the caller reads back.
   */
  override def putIfAbsent(path: String, target: Path, bytes: Array[Byte]): PutResult = {
    val temp = tempFor(target)
    try {
      try {
        val out = fs.create(temp, false)
        try { out.write(bytes); out.hsync() } finally out.close()
      } catch { case e: IOException => throw Errors.nothingWritten(path, "creating the file if absent", e) }
      try { fc.rename(temp, target, Options.Rename.NONE); PutResult.Created }
      catch {
        case _: FileAlreadyExistsException => PutResult.AlreadyExists
        case e: IOException => throw Errors.io(path, "creating the file if absent", e)
      }
    } finally try { fs.delete(temp, false); () } catch { case _: IOException => () }
  }

  /** HDFS renames over an existing file atomically with `Options.Rename.OVERWRITE` (one NameNode call). */
  override def replace(path: String, target: Path, bytes: Array[Byte]): Unit = {
    val temp = tempFor(target)
    try {
      val out = fs.create(temp, false)
      try { out.write(bytes); out.hsync() } finally out.close()
      fc.rename(temp, target, Options.Rename.OVERWRITE)
    } catch { case e: IOException => throw Errors.io(path, "replacing the file", e) }
    finally try { fs.delete(temp, false); () } catch { case _: IOException => () }
  }

  private def tempFor(target: Path): Path = new Path(target.getParent, s".${target.getName}.${UUID.randomUUID()}.tmp")
}
