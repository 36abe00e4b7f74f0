package io.sparklance.storage.hadoop

import java.io.IOException

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FSDataOutputStream, FileContext, FileSystem, Path, RawLocalFileSystem, StreamCapabilities}

import io.sparklance.storage.{FileSink, PutResult}
import io.sparklance.util.Errors

/**
 * How a new file reaches its final name on one kind of file system. A Lance commit is one
 * atomic create-if-absent of the next manifest; what makes it atomic differs per store
 * (README, "Writing: storage", has the race results behind each choice):
 *  - local files: a temporary file in the same folder, then a hard link onto the final name
 *    ([[LocalWrites]]);
 *  - HDFS: a temporary file, then a rename that refuses an existing target ([[RenameWrites]]);
 *  - viewfs: the protocol of the file system the path's mount point links to ([[Mounted]]);
 *  - stores whose Hadoop connector offers conditional create (S3A from Hadoop 3.4.2: one PUT
 *    with `If-None-Match: *`) ([[ConditionalWrites]]);
 *  - S3A before Hadoop 3.4.2, which has no conditional create: the same PUT, sent by us through
 *    S3A's own AWS client (the line's [[S3aPutIfAbsent]]; none on lines whose S3A has it);
 *  - anything else can stream new files but not commit ([[PlainWrites]]).
 * `path` arguments are the caller's spelling, for messages; `target` is the Hadoop path.
 */
private[hadoop] trait WriteProtocol {

  /** Throws LANCE_NO_ATOMIC_COMMIT where [[putIfAbsent]] cannot be atomic. */
  def requireAtomicCreate(path: String): Unit = ()

  def create(path: String, target: Path): FileSink

  def putIfAbsent(path: String, target: Path, bytes: Array[Byte]): PutResult

  /** Atomically replaces (or creates) the small file `target` ([[io.sparklance.storage.ObjectStore.replace]]). */
  def replace(path: String, target: Path, bytes: Array[Byte]): Unit
}

private[hadoop] object WriteProtocol {

  /** Hadoop's builder option and path capability for a create that fails if the file exists. */
  val ConditionalCreate = "fs.option.create.conditional.overwrite"

  /**
   * The protocol for `target` on `fs`. The scheme decides, not the class of `fs`: a scheme
   * registered to some subclass of the local file system is not the local file system.
   */
  def of(fs: FileSystem, target: Path, conf: Configuration): WriteProtocol = {
    val scheme = Option(target.toUri.getScheme).getOrElse(fs.getUri.getScheme)
    fs match {
      case local: RawLocalFileSystem if scheme == "file" => new LocalWrites(local)
      case _ if scheme == "viewfs" =>
        val real = mounted(fs, target)
        val realFs = HadoopObjectStore.withoutChecksums(real.getFileSystem(conf))
        if (Option(real.toUri.getScheme).contains("viewfs"))
          new PlainWrites(fs, scheme, s"$target is not below a mount point of its viewfs mount table")
        else new Mounted(of(realFs, real, conf), real)
      case _ if scheme == "hdfs" =>
        new RenameWrites(fs, FileContext.getFileContext(fs.getUri, conf))
      case _ if fs.hasPathCapability(target, ConditionalCreate) => new ConditionalWrites(fs)
      case _ if scheme == "s3a" =>
        // Asked only for s3a: the hook may load S3A and AWS SDK classes, absent from clusters without S3.
        S3aPutIfAbsent.protocol(fs).getOrElse(new PlainWrites(fs, scheme,
          s"its s3a file system does not offer conditional create ($ConditionalCreate); fs.s3a.create.conditional.enabled is false or the S3 store lacks If-None-Match"))
      case _ => new PlainWrites(fs, scheme, s"its Hadoop file system (${fs.getClass.getName}) offers no atomic create-if-absent")
    }
  }

  /**
   * Where `target` of a viewfs mount table really is: a viewfs path is only a name for a path
   * of the file system its mount point links to, and that file system decides how to commit
   * (a mount of s3a commits with a conditional PUT, a mount of HDFS with a rename). Hadoop
   * resolves only paths that exist, so the nearest existing folder above `target` is resolved
   * and the rest of the path joined below it.
   */
  private def mounted(fs: FileSystem, target: Path): Path = {
    @scala.annotation.tailrec
    def resolve(p: Path, below: List[String]): Path =
      if (p.isRoot || fs.exists(p)) below.foldLeft(fs.resolvePath(p))((parent, name) => new Path(parent, name))
      else resolve(p.getParent, p.getName :: below)
    resolve(fs.makeQualified(target), Nil)
  }

  /** The causes of `e`, itself first (bounded: a cause chain can loop). */
  def causes(e: Throwable): Iterator[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(32)
}

/** A viewfs path written through the protocol of the file system its mount point links to, at the path it resolves to. */
private[hadoop] final class Mounted(val inner: WriteProtocol, resolved: Path) extends WriteProtocol {
  override def requireAtomicCreate(path: String): Unit = inner.requireAtomicCreate(path)
  override def create(path: String, target: Path): FileSink = inner.create(path, resolved)
  override def putIfAbsent(path: String, target: Path, bytes: Array[Byte]): PutResult = inner.putIfAbsent(path, resolved, bytes)
  override def replace(path: String, target: Path, bytes: Array[Byte]): Unit = inner.replace(path, resolved, bytes)
}

/** Streams a new file straight to its name, closing it to publish; no atomic create-if-absent. */
private[hadoop] final class PlainWrites(fs: FileSystem, scheme: String, why: String) extends WriteProtocol {

  override def requireAtomicCreate(path: String): Unit = throw Errors.noAtomicCommit(path, scheme, why)

  override def create(path: String, target: Path): FileSink = HadoopSink.create(fs, path, target)

  override def putIfAbsent(path: String, target: Path, bytes: Array[Byte]): PutResult =
    throw Errors.noAtomicCommit(path, scheme, why)

  override def replace(path: String, target: Path, bytes: Array[Byte]): Unit = throw Errors.noAtomicCommit(path, scheme, why)
}

/**
 * A sink over a Hadoop output stream that writes `written`. `publish` runs once the stream has
 * closed and gives the file its final name (nothing when `written` is that name).
 */
private[hadoop] final class HadoopSink(fs: FileSystem, path: String, stream: FSDataOutputStream, written: Path, publish: () => Unit)
    extends StreamSink(path, stream) {

  /**
   * Closing an HDFS stream does not make its blocks durable; the manifest that will name this
   * file may be committed right after, so the bytes are synced first (as local files are
   * forced). Streams that cannot sync (object stores, whose upload completes at close) say so.
   */
  override protected def finish(): Unit = {
    if (stream.hasCapability(StreamCapabilities.HSYNC)) stream.hsync()
    stream.close()
    publish()
  }

  override protected def discard(): Unit = {
    // An object store's stream (S3A's multipart upload) can be abandoned before anything is
    // visible; elsewhere closing publishes what was written, so it is deleted again.
    if (stream.hasCapability(StreamCapabilities.ABORTABLE_STREAM))
      try { stream.abort(); () } catch { case _: IOException | _: UnsupportedOperationException => () }
    else try stream.close() catch { case _: IOException => () }
    try { fs.delete(written, false); () } catch { case _: IOException => () }
  }
}

private[hadoop] object HadoopSink {
  /** A sink that writes `target` itself, which must not exist yet. */
  def create(fs: FileSystem, path: String, target: Path): FileSink =
    try new HadoopSink(fs, path, fs.create(target, false), target, () => ())
    catch { case e: IOException => throw Errors.io(path, "creating the file", e) }
}
