package io.sparklance.storage.hadoop

import java.io.{FileNotFoundException, IOException}
import java.net.URI
import java.nio.ByteBuffer

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FSDataInputStream, FileStatus, FileSystem, Path, RawLocalFileSystem, UnsupportedFileSystemException}
import org.apache.hadoop.util.functional.FutureIO

import io.sparklance.storage.{FileEntry, FileSink, ObjectStore, PutResult, RangeReader}
import io.sparklance.util.{BuildInfo, Errors}

/**
 * [[ObjectStore]] over Hadoop's FileSystem API: local files, HDFS, S3 (through S3A), GCS,
 * ABFS — whatever connectors the Hadoop configuration provides. Lance writes `s3://` URIs;
 * Hadoop's S3 connector is `s3a://`, so the scheme is mapped on the way in.
 */
final class HadoopObjectStore(conf: Configuration) extends ObjectStore {

  private def toPath(p: String): Path = new Path(HadoopObjectStore.toHadoopUri(p))

  /**
   * File systems by scheme and authority, looked up once per store (a store serves one task
   * or one query's planning): Hadoop's FileSystem.get asks for the current user on every
   * call, a visible share of the time to open the few files of a point look-up.
   */
  private val fileSystems = new java.util.concurrent.ConcurrentHashMap[(String, String), FileSystem]()

  private def fs(path: Path): FileSystem = {
    val uri = path.toUri
    val key = (Option(uri.getScheme).getOrElse(""), Option(uri.getAuthority).getOrElse(""))
    val known = fileSystems.get(key)
    if (known != null) known
    else { val f = fileSystemOf(path); fileSystems.put(key, f); f }
  }

  private def fileSystemOf(path: Path): FileSystem =
    try HadoopObjectStore.withoutChecksums(path.getFileSystem(conf))
    catch {
      // No implementation registered for the scheme, or the configured class (fs.s3a.impl
      // is in Hadoop's defaults) is not on the classpath: Configuration.getClass wraps the
      // ClassNotFoundException in a RuntimeException. With hadoop-aws but without the AWS
      // SDK, S3AFileSystem itself loads and fails on the first SDK class it needs.
      case e: UnsupportedFileSystemException => throw HadoopObjectStore.missingFileSystem(path, e)
      case e: RuntimeException if Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).exists(_.isInstanceOf[ClassNotFoundException]) =>
        throw HadoopObjectStore.missingFileSystem(path, e)
      case e: NoClassDefFoundError => throw HadoopObjectStore.missingFileSystem(path, e)
      case e: IOException => throw Errors.io(path.toString, "opening the file system", e)
    }

  override def size(path: String): Long = {
    val p = toPath(path)
    try fs(p).getFileStatus(p).getLen
    catch {
      case _: FileNotFoundException => throw Errors.fileNotFound(path, "reading its size")
      case e: IOException => throw Errors.io(path, "reading the file size", e)
    }
  }

  override def exists(path: String): Boolean = {
    val p = toPath(path)
    try { val st = fs(p).getFileStatus(p); st.isFile }
    catch {
      case _: FileNotFoundException => false
      case e: IOException => throw Errors.io(path, "checking existence", e)
    }
  }

  override def isDirectory(path: String): Boolean = {
    val p = toPath(path)
    try fs(p).getFileStatus(p).isDirectory
    catch {
      case _: FileNotFoundException => false
      case e: IOException => throw Errors.io(path, "checking existence", e)
    }
  }

  override def entryExists(path: String): Boolean = {
    val p = toPath(path)
    try { fs(p).getFileStatus(p); true }
    catch {
      case _: FileNotFoundException => false
      case e: IOException => throw Errors.io(path, "checking existence", e)
    }
  }

  override def list(dir: String): Seq[FileEntry] =
    statuses(dir).filter(_.isFile).map(s => FileEntry(s.getPath.getName, s.getPath.toString, s.getLen, Some(s.getModificationTime)))

  override def listNames(dir: String): Seq[String] = statuses(dir).map(_.getPath.getName)

  private def statuses(dir: String) = {
    val p = toPath(dir)
    try fs(p).listStatus(p).toSeq
    catch {
      case _: FileNotFoundException => Seq.empty
      case e: IOException => throw Errors.io(dir, "listing the directory", e)
    }
  }

  override def open(path: String, knownSize: Option[Long]): RangeReader = {
    val p = toPath(path)
    val f = fs(p)
    try f match {
      case local: RawLocalFileSystem =>
        val file = local.pathToFile(p).toPath
        val attrs = LocalRangeReader.regularFile(path, file)
        val modified = Some(attrs.lastModifiedTime.to(java.util.concurrent.TimeUnit.NANOSECONDS))
        // A file system built on the local one keeps its own streams (it may count or fail reads).
        if (local.getClass == classOf[RawLocalFileSystem]) LocalRangeReader.open(path, file, knownSize, modified)
        else { val size = knownSize.getOrElse(attrs.size); new HadoopRangeReader(path, openForRanges(f, p, size, None), size, modified) }
      case _ =>
        val (len, status) = knownSize match {
          case Some(n) => (n, None)
          case None => val st = f.getFileStatus(p); (st.getLen, Some(st))
        }
        if (status.exists(_.isDirectory)) throw Errors.notARegularFile(path, "a directory")
        new HadoopRangeReader(path, openForRanges(f, p, len, status), len, status.map(_.getModificationTime))
    } catch {
      case _: FileNotFoundException => throw Errors.fileNotFound(path, "opening it for reading")
      case e: IOException => throw Errors.io(path, "opening the file", e)
    }
  }

  /**
   * Opens `p` for positioned reads, telling the file system what it would otherwise ask the
   * store. `open(p)` on S3A sends a HEAD for the length (a second one when the status was just
   * fetched, a first one when the manifest gave the size); with the length (and the status,
   * whose ETag S3A checks reads against) there is none. Lance reads a footer, then metadata and
   * pages at offsets it found there, so the read policy is random: under the default policy
   * S3A's classic stream starts as if the file were read front to back, asking for everything
   * from the first offset to the end and dropping the connection on the first backward seek
   * (Hadoop 3.5.0's default analytics stream takes the policy as a hint). Both are Hadoop's standard
   * openFile() options (hadoop fs/filesystem/openfile.md); stores that do not know them ignore
   * them.
   */
  private def openForRanges(f: FileSystem, p: Path, length: Long, status: Option[FileStatus]): FSDataInputStream = {
    val builder = f.openFile(p)
      .opt(HadoopObjectStore.ReadPolicyOption, "random")
      .opt(HadoopObjectStore.LengthOption, length)
    status.foreach(builder.withFileStatus)
    FutureIO.awaitFuture(builder.build())
  }

  // ---- writes: each scheme's atomic primitive is chosen by WriteProtocol ----------------

  private def protocol(p: Path, path: String): WriteProtocol =
    try WriteProtocol.of(fs(p), p, conf)
    catch { case e: IOException => throw Errors.io(path, "asking the file system what it can write", e) }

  override def requireAtomicCreate(path: String): Unit = { val p = toPath(path); protocol(p, path).requireAtomicCreate(path) }

  override def create(path: String): FileSink = { val p = toPath(path); protocol(p, path).create(path, p) }

  override def putIfAbsent(path: String, bytes: Array[Byte]): PutResult = {
    val p = toPath(path)
    protocol(p, path).putIfAbsent(path, p, bytes)
  }

  override def replace(path: String, bytes: Array[Byte]): Unit = {
    val p = toPath(path)
    protocol(p, path).replace(path, p, bytes)
  }

  override def delete(path: String): Boolean = {
    val p = toPath(path)
    try fs(p).delete(p, false)
    catch {
      case _: FileNotFoundException => false
      case e: IOException => throw Errors.io(path, "deleting the file", e)
    }
  }

  override def makeDirectory(dir: String): Unit = {
    val p = toPath(dir)
    try if (!fs(p).mkdirs(p)) throw Errors.io(dir, "creating the folder", null)
    catch { case e: IOException => throw Errors.io(dir, "creating the folder", e) }
  }

  override def deleteDirectory(dir: String): Boolean = {
    val p = toPath(dir)
    try fs(p).delete(p, true)
    catch {
      case _: FileNotFoundException => false
      case e: IOException => throw Errors.io(dir, "deleting the folder", e)
    }
  }

  override def renameDirectory(from: String, to: String): Boolean = {
    val (a, b) = (toPath(from), toPath(to))
    try !fs(b).exists(b) && fs(a).rename(a, b)
    catch { case e: IOException => throw Errors.io(from, s"moving the folder to $to", e) }
  }

  private def walk(dir: String): Seq[FileEntry] = statuses(dir).flatMap { s =>
    if (s.isDirectory) walk(s.getPath.toString)
    else if (s.isFile) Seq(FileEntry(s.getPath.getName, s.getPath.toString, s.getLen, Some(s.getModificationTime)))
    else Nil
  }

  override def listRecursive(dir: String): Seq[FileEntry] = {
    val p = toPath(dir)
    try fs(p) match {
      // On a local disk, listFiles builds a LocatedFileStatus per file, which reads the file's
      // owner and permissions by running a shell command for each one (milliseconds a file: most
      // of a cleanup's time on a 1,000-version table); a walk of plain listings reads none.
      case _: org.apache.hadoop.fs.LocalFileSystem | _: RawLocalFileSystem => walk(dir)
      case f =>
        val it = f.listFiles(p, true)
        val out = Seq.newBuilder[FileEntry]
        while (it.hasNext) { val s = it.next(); out += FileEntry(s.getPath.getName, s.getPath.toString, s.getLen, Some(s.getModificationTime)) }
        out.result()
    } catch {
      case _: FileNotFoundException => Seq.empty
      case e: IOException => throw Errors.io(dir, "listing the directory recursively", e)
    }
  }
}

object HadoopObjectStore {

  // openFile() options of Hadoop 3.3.5+ (Options.OpenFileOptions), spelled out so that the
  // Hadoop 3.3.4 of Spark 3.5 compiles: as opt() (not must()), a release that lacks them ignores them.
  private val ReadPolicyOption = "fs.option.openfile.read.policy"
  private val LengthOption = "fs.option.openfile.length"

  /** Our error for a scheme without a file system, naming the jars that provide it. */
  private def missingFileSystem(path: Path, cause: Throwable) = {
    val scheme = Option(path.toUri.getScheme).getOrElse("file")
    val hadoop = org.apache.hadoop.util.VersionInfo.getVersion
    val jars = scheme match {
      case "s3a" | "s3" | "s3n" => s3aJars(hadoop)
      case "gs" => "Add Google's gcs-connector (com.google.cloud.bigdataoss:gcs-connector, hadoop3 build) to the classpath."
      case "abfs" | "abfss" | "wasb" | "wasbs" => s"Add org.apache.hadoop:hadoop-azure:$hadoop to the classpath."
      case other => s"Add a Hadoop file system for '$other' to the classpath, or set fs.$other.impl."
    }
    Errors.fileSystemMissing(path.toString, scheme, jars, cause)
  }

  /**
   * The jars s3a needs on `hadoop`, at the AWS SDK version that Hadoop release was built with
   * where it is the one this jar was built against (build.sbt, the line's Hadoop): from Hadoop 3.4
   * hadoop-aws without the SDK's 686 MB all-in-one bundle plus only the SDK v2 modules S3A loads;
   * before, the SDK v1 bundle it depends on.
   */
  private def s3aJars(hadoop: String): String = {
    val sdk = if (hadoop == BuildInfo.hadoop) BuildInfo.awsSdk else ""
    val sdkNamed = if (sdk.nonEmpty) sdk else "the version in that Hadoop release's hadoop-project pom"
    if (sdk.startsWith("1.") || hadoop.startsWith("3.3."))
      s"Add org.apache.hadoop:hadoop-aws:$hadoop (the Hadoop version Spark ships) with its dependency " +
        s"com.amazonaws:aws-java-sdk-bundle ($sdkNamed), e.g. spark-submit --packages org.apache.hadoop:hadoop-aws:$hadoop, " +
        "and configure s3a as usual (spark.hadoop.fs.s3a.*)."
    else {
      val v = if (sdk.nonEmpty) sdk else "<sdk>"
      s"Add org.apache.hadoop:hadoop-aws:$hadoop (the Hadoop version Spark ships) without its dependency " +
        s"software.amazon.awssdk:bundle, plus the AWS SDK modules software.amazon.awssdk:s3, s3-transfer-manager and sts " +
        s"at the SDK version that Hadoop release was built with ($sdkNamed), e.g. " +
        s"spark-submit --packages org.apache.hadoop:hadoop-aws:$hadoop,software.amazon.awssdk:s3:$v," +
        s"software.amazon.awssdk:s3-transfer-manager:$v,software.amazon.awssdk:sts:$v " +
        "--exclude-packages software.amazon.awssdk:bundle, and configure s3a as usual (spark.hadoop.fs.s3a.*)."
    }
  }

  /**
   * The raw local file system under Hadoop's checksumming wrapper, any other as it is: Lance
   * files carry no Hadoop .crc side files, and the wrapper would only slow every read down
   * (about 3x); writes go through the raw one's files ([[LocalWrites]]).
   */
  private[hadoop] def withoutChecksums(fs: FileSystem): FileSystem = fs match {
    case local: org.apache.hadoop.fs.LocalFileSystem => local.getRawFileSystem
    case other => other
  }

  /** Maps Lance's URI schemes to Hadoop's: `s3://` and `s3n://` go through S3A. */
  def toHadoopUri(p: String): URI = {
    val mapped =
      if (p.startsWith("s3://")) "s3a://" + p.stripPrefix("s3://")
      else if (p.startsWith("s3n://")) "s3a://" + p.stripPrefix("s3n://")
      else p
    new Path(mapped).toUri
  }
}

private final class HadoopRangeReader(val path: String, in: FSDataInputStream, val size: Long, override val modified: Option[Long])
    extends RangeReader {
  private var read0 = 0L

  override def read(offset: Long, length: Int): ByteBuffer = {
    RangeReader.checkRange(path, offset, length, size)
    val out = new Array[Byte](length)
    try in.readFully(offset, out)
    catch {
      // Opened with a known length, an object store first meets a missing object here.
      case _: FileNotFoundException => throw Errors.fileNotFound(path, "reading it")
      case e: java.io.EOFException => throw Errors.corrupt(path, offset, s"the file ended before $length bytes could be read", e)
      case e: IOException => throw Errors.io(path, s"reading $length bytes at offset $offset", e)
    }
    read0 += length
    ByteBuffer.wrap(out)
  }

  override def bytesRead: Long = read0

  override def close(): Unit = in.close()
}
