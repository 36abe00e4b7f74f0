package io.sparklance.storage.hadoop

import java.io.{IOException, OutputStream}
import java.net.URI
import java.util.concurrent.atomic.AtomicInteger

import org.apache.hadoop.fs.{CreateFlag, FSDataOutputStream, FSDataOutputStreamBuilder, FileAlreadyExistsException, Path}

import io.sparklance.util.ScalaCompat._

/**
 * Local files under the scheme `faulty:` that commit as S3A does (the conditional-create
 * capability, so the store takes [[ConditionalWrites]]) and whose writes fail as a network
 * fails, by [[StorageFaults]]'s rules: a file stored and then answered with "already exists"
 * (S3A's retry of a PUT whose response was lost meets the stored object with 412), stored and
 * then an error (the response lost for good), or refused before anything is stored (503).
 * Register with `fs.faulty.impl`; paths are local paths under `faulty://`.
 */
final class FaultyFileSystem extends LocalFileSystemAs(URI.create("faulty:///")) {

  override def hasPathCapability(path: Path, capability: String): Boolean =
    capability == WriteProtocol.ConditionalCreate || super.hasPathCapability(path, capability)

  /** A builder that takes the conditional-create option (the local one refuses unknown mandatory keys). */
  override def createFile(path: Path): ConditionalBuilder = new ConditionalBuilder(path)

  final class ConditionalBuilder(p: Path) extends FSDataOutputStreamBuilder[FSDataOutputStream, ConditionalBuilder](this, p) {
    override def getThisBuilder: ConditionalBuilder = this
    override def build(): FSDataOutputStream =
      FaultyFileSystem.this.create(p, getPermission, getFlags.contains(CreateFlag.OVERWRITE), getBufferSize, getReplication, getBlockSize, getProgress)
  }

  override protected def created(f: Path, out: FSDataOutputStream): FSDataOutputStream = {
    val fault = StorageFaults.take(f.toUri.getPath)
    if (fault.isEmpty) out
    else new FSDataOutputStream(new OutputStream {
      override def write(b: Int): Unit = out.write(b)
      override def write(b: Array[Byte], off: Int, len: Int): Unit = out.write(b, off, len)
      override def close(): Unit = {
        out.close()
        fault.get match {
          case StorageFaults.StoredThenExists => throw new FileAlreadyExistsException(s"$f: 412 Precondition Failed (retried PUT)")
          case StorageFaults.StoredThenLost => throw new IOException(s"$f: connection reset after the request was sent")
          case StorageFaults.NotStored =>
            FaultyFileSystem.this.delete(f, false)
            throw new IOException(s"$f: 503 Slow Down")
        }
      }
    }, null)
  }
}

/** The faults [[FaultyFileSystem]] injects: each rule fails the next `times` writes of files whose path matches. */
object StorageFaults {
  sealed trait Fault
  case object StoredThenExists extends Fault
  case object StoredThenLost extends Fault
  case object NotStored extends Fault

  private final case class Rule(pattern: scala.util.matching.Regex, fault: Fault, left: AtomicInteger, hits: AtomicInteger)
  @volatile private var rules = List.empty[Rule]

  val Manifest = """.*/_versions/[^/]*\.manifest""".r
  val DataFile = """.*/data/[^/]*\.lance""".r
  val DeletionFile = """.*/_deletions/[^/]*""".r
  val IndexFile = """.*/_indices/.*""".r

  /** Fails the next `times` writes matching `pattern` with `fault`; returns how many were failed so far. */
  def inject(pattern: scala.util.matching.Regex, fault: Fault, times: Int = 1): () => Int = synchronized {
    val r = Rule(pattern, fault, new AtomicInteger(times), new AtomicInteger())
    rules = rules :+ r
    () => r.hits.get
  }

  def clear(): Unit = synchronized { rules = Nil }

  private[hadoop] def take(path: String): Option[StorageFaults.Fault] = synchronized {
    rules.find(r => r.pattern.matches(path) && r.left.get > 0).map { r => r.left.decrementAndGet(); r.hits.incrementAndGet(); r.fault }
  }
}
