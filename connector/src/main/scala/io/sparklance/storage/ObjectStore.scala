package io.sparklance.storage

import java.io.Closeable
import java.nio.ByteBuffer

import io.sparklance.util.Errors

/**
 * The only way the format and table layers touch storage (the engine boundary of Delta
 * Kernel's FileSystemClient). Paths are absolute URIs as strings (`file:/…`, `s3a://…`,
 * `hdfs://…`) or plain absolute local paths. Implementations throw a
 * [[io.sparklance.util.NotFoundException]] for a missing file and a
 * [[io.sparklance.util.LanceException]] with class LANCE_IO_ERROR for other failures.
 */
trait ObjectStore {

  /** Size in bytes of the file at `path`. */
  def size(path: String): Long

  /** True if a file (not a directory) exists at `path`. */
  def exists(path: String): Boolean

  /** True if a directory exists at `path`. */
  def isDirectory(path: String): Boolean

  /** True if anything exists at `path`: a file, a directory, a named pipe, ... */
  def entryExists(path: String): Boolean

  /** Files directly inside `dir` (not recursive, no directories); empty if `dir` is absent. */
  def list(dir: String): Seq[FileEntry]

  /** Names of every entry directly inside `dir` (files, folders, anything), from one listing; empty if `dir` is absent. */
  def listNames(dir: String): Seq[String]

  /**
   * Opens `path` for positioned reads. `knownSize` skips a metadata call when the caller
   * already knows the size (a manifest records every data file's size). The caller closes it.
   */
  def open(path: String, knownSize: Option[Long] = None): RangeReader

  /**
   * Reads a whole (small) file: manifests, refs, deletion files; one larger than
   * `maxBytes` is refused as corrupt before anything is allocated.
   */
  def readAll(path: String, maxBytes: Long = Int.MaxValue - 8): Array[Byte] = {
    val r = open(path)
    try {
      val n = r.size
      if (n > math.min(maxBytes, Int.MaxValue - 8L))
        throw io.sparklance.util.Errors.corrupt(path, s"file of $n bytes is too large to read whole (at most ${math.min(maxBytes, Int.MaxValue - 8L)})")
      val b = r.read(0, n.toInt)
      val out = new Array[Byte](b.remaining())
      b.get(out)
      out
    } finally r.close()
  }

  // ---- writes ----------------------------------------------------------------------------
  // A table version is committed by one atomic create-if-absent of its manifest
  // ([[putIfAbsent]]); everything else a write produces (data, deletion, index and
  // transaction files) has a fresh unique name and is streamed with [[create]].

  /**
   * Refuses, before anything is written, a location whose scheme has no atomic
   * create-if-absent (LANCE_NO_ATOMIC_COMMIT naming the scheme and the ones that work).
   */
  def requireAtomicCreate(path: String): Unit

  /**
   * Starts a new file at `path` (parent folders created as needed). Its bytes become visible at
   * `path` only when the sink closes successfully; `abort` leaves nothing behind. Never
   * replaces an existing file: callers give fresh unique names.
   */
  def create(path: String): FileSink

  /**
   * Writes the small file `bytes` at `path` in one atomic step if nothing is there yet:
   * [[PutResult.Created]] if this call created it, [[PutResult.AlreadyExists]] if a file was
   * there (then untouched). "Already exists" can be the store's answer to this very call sent
   * again below it (a client retrying a request whose response was lost), so a caller that
   * must know who wrote the file reads it back. An exception means the outcome is unknown
   * (the file may or may not have been created by this call: read it, never delete it),
   * except [[io.sparklance.util.NothingWrittenException]], which says nothing was created.
   * Readers never see a partly written file.
   */
  def putIfAbsent(path: String, bytes: Array[Byte]): PutResult

  /**
   * Replaces the small file at `path` (or creates it) with `bytes` in one atomic step: a
   * reader at any moment sees the old bytes or the new ones, never no file and never part of
   * one. For files that are overwritten in place, as Lance's tag files are when a tag moves
   * (refs.rs, Tags::update). An exception means the outcome is unknown: read the file back.
   * Refused, before anything is written, where the store has no atomic replace.
   */
  def replace(path: String, bytes: Array[Byte]): Unit

  /**
   * Writes the small new file `bytes` at `path`, a fresh unique name no other writer uses
   * ([[create]]); a failure leaves nothing behind.
   */
  final def writeNew(path: String, bytes: Array[Byte]): Unit = {
    val sink = create(path)
    try { sink.write(bytes); sink.close() }
    catch { case e: Throwable => sink.abort(); throw e }
  }

  /** Deletes the file at `path`: true if it was there, false if it was already absent. */
  def delete(path: String): Boolean

  /** Every file below `dir`, at any depth (no directories); empty if `dir` is absent. */
  def listRecursive(dir: String): Seq[FileEntry]

  // ---- folders (what catalogs keep: namespaces are folders, a table is a folder) ----------

  /** Creates the folder `dir` and its parents (on object stores, a marker that lists as a folder). */
  def makeDirectory(dir: String): Unit

  /** Deletes the folder `dir` with everything in it: true if it was there. */
  def deleteDirectory(dir: String): Boolean

  /**
   * Moves the folder `from` to `to`, which must not exist: true if moved. Atomic on local
   * disks and HDFS; on object stores a copy then a delete, file by file.
   */
  def renameDirectory(from: String, to: String): Boolean
}

/** The outcome of [[ObjectStore.putIfAbsent]] when it is known. */
sealed trait PutResult
object PutResult {
  case object Created extends PutResult
  case object AlreadyExists extends PutResult
}

/**
 * One file in a listing: its name (last path segment), full path and size, and when it was last
 * written (ms since the epoch) where the listing tells it (None: unknown, which cleanup treats as
 * new).
 */
final case class FileEntry(name: String, path: String, size: Long, lastModified: Option[Long] = None)

/** Positioned reads of one open file. Not thread-safe; each task opens its own. */
trait RangeReader extends Closeable {
  def path: String
  def size: Long

  /**
   * Reads exactly `length` bytes at `offset` into a new buffer. The range must lie inside
   * the file; callers check offsets read from the file before calling.
   */
  def read(offset: Long, length: Int): ByteBuffer

  /** Bytes read through this reader so far (for metrics). */
  def bytesRead: Long

  /**
   * A stamp of when the file was last written, where the store learned it while opening
   * the file, without an extra request: local files (nanoseconds, as fine as the file
   * system keeps them) and any file opened without a known size (the store's modification
   * time). Only compared for equality: caches of what is parsed from a file key by it, so
   * that a file rewritten at the same path with the same size is not mistaken for the old.
   */
  def modified: Option[Long] = None
}

object RangeReader {

  /** Refuses a range outside a `size`-byte file: its offset and length came from the file, so they are not trusted. */
  def checkRange(path: String, offset: Long, length: Int, size: Long): Unit =
    if (offset < 0 || length < 0 || offset > size - length)
      throw Errors.corrupt(path, offset, s"a read of $length bytes goes past the end of the $size-byte file")
}

/** Joins path segments with `/`, never doubling separators. */
object Paths {
  def join(base: String, segments: String*): String =
    segments.foldLeft(stripTrailingSlash(base)) { (acc, s) =>
      val seg = s.stripPrefix("/")
      if (seg.isEmpty) acc else s"$acc/$seg"
    }

  def stripTrailingSlash(p: String): String =
    if (p.length > 1 && p.endsWith("/") && !p.endsWith(":/") && !p.endsWith("://")) stripTrailingSlash(p.dropRight(1)) else p

  /** The last path segment. */
  def name(p: String): String = stripTrailingSlash(p).split('/').last

  /**
   * True when `relative`, joined below a folder, stays inside it: it is not absolute,
   * names no scheme, and each '/'-separated segment is a plain name (not empty, '.' or
   * '..', without '\\' or ':'). Paths read from a table's files must pass before they
   * are joined: Hadoop's Path resolves '..', so a joined "../../x" would leave the table.
   */
  def staysInside(relative: String): Boolean =
    relative.nonEmpty && relative.split("/", -1).forall { seg =>
      seg.nonEmpty && seg != "." && seg != ".." && seg.indexOf('\\') < 0 && seg.indexOf(':') < 0
    }
}

/**
 * Creates [[ObjectStore]]s; serializable so that the driver can hand executors the means
 * to open the same storage (credentials and settings included).
 */
trait ObjectStoreFactory extends Serializable {
  def create(): ObjectStore
}
