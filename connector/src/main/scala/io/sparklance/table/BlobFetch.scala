package io.sparklance.table

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{FieldVector, LargeVarBinaryVector, UInt1Vector, UInt4Vector, UInt8Vector, VarCharVector}
import org.apache.arrow.vector.complex.StructVector
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}

import io.sparklance.format.{BlobBytes, BlobLocation, FieldScanner, LanceField}
import io.sparklance.storage.{ObjectStore, RangeReader}
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance/src/dataset/blob.rs (what `take_blobs` / `read_blobs`
// return). Blob columns read as descriptors by default, as pylance's to_table() returns
// them; with the `blobs = bytes` read option each descriptor is replaced by the bytes it
// points at (format.BlobBytes), a null blob by null, so that Spark sees a binary column.

/** How blob columns are read: as pylance's descriptor structs, or as their bytes. */
sealed trait BlobMode
object BlobMode {
  case object Descriptors extends BlobMode

  /**
   * Each blob's bytes. An external blob is read from the absolute URI its descriptor names,
   * like a base path trusted as the table names it; with `allowedExternal` (prefixes in
   * [[BasePaths.canonical]] form, the table's folder among them: [[BasePaths.prefixes]])
   * only from under one of them.
   */
  final case class Bytes(allowedExternal: Option[Seq[String]] = None) extends BlobMode
}

object BlobFetch {

  /** The Arrow field `f` reads as under `mode`: a blob's bytes read as large_binary. */
  def arrowField(f: LanceField, mode: BlobMode, where: String): Field =
    if (mode.isInstanceOf[BlobMode.Bytes] && f.blobVersion.isDefined)
      new Field(f.name, new FieldType(f.nullable, ArrowType.LargeBinary.INSTANCE, null), java.util.Collections.emptyList[Field]())
    else f.toArrow(where)

  /**
   * `scanner` of a blob column stored in `dataFile`, returning each row's bytes instead of
   * its descriptor. The files blobs are read from stay open until the scanner is closed.
   */
  def bytes(scanner: FieldScanner, store: ObjectStore, dataFile: String, mode: BlobMode.Bytes): FieldScanner with AutoCloseable =
    new BlobBytesScanner(scanner, store, dataFile, mode)
}

private final class BlobBytesScanner(scanner: FieldScanner, store: ObjectStore, dataFile: String, mode: BlobMode.Bytes)
    extends FieldScanner with AutoCloseable {
  override def field: LanceField = scanner.field
  override def skip(n: Long): Unit = scanner.skip(n)
  override def next(n: Int, allocator: BufferAllocator): FieldVector = fetch(scanner.next(n, allocator), allocator)
  override def take(rows: Array[Long], allocator: BufferAllocator): FieldVector = fetch(scanner.take(rows, allocator), allocator)

  /** Open files, by path: the data file, its sidecars, external files. */
  private val readers = scala.collection.mutable.Map.empty[String, RangeReader]
  /** External URIs already checked. */
  private val checked = scala.collection.mutable.Set.empty[String]

  private def reader(path: String): RangeReader = readers.getOrElseUpdate(path, store.open(path))

  override def close(): Unit = {
    readers.valuesIterator.foreach(_.close())
    readers.clear()
  }

  /**
   * An external blob's URI must be absolute (pylance refuses to write a relative one, and
   * each executor would resolve it against its own working directory) and, when the
   * reader lists allowed prefixes, under one of them.
   */
  private def checkExternal(uri: String): Unit = if (uri != null && uri.nonEmpty && checked.add(uri)) {
    if (BasePaths.isRelative(uri))
      throw Errors.corrupt(dataFile, s"blob column '${field.name}' names the relative external URI $uri; Lance writes only absolute ones")
    mode.allowedExternal.foreach { allowed =>
      if (!BasePaths.isAllowed(uri, allowed)) throw Errors.locationNotAllowed(dataFile, "a blob of this file is stored at", uri, allowed)
    }
  }

  private def location(d: StructVector, i: Int): BlobLocation = {
    def u64(child: String): Long = d.getChild(child).asInstanceOf[UInt8Vector].get(i)
    field.blobVersion match {
      case Some(1) => BlobBytes.v1(dataFile, u64("position"), u64("size"))
      case _ =>
        val uriVector = d.getChild("blob_uri").asInstanceOf[VarCharVector]
        val uri = if (uriVector.isNull(i)) null else new String(uriVector.get(i), java.nio.charset.StandardCharsets.UTF_8)
        val kind = d.getChild("kind").asInstanceOf[UInt1Vector].get(i) & 0xff
        if (kind == BlobBytes.External) checkExternal(uri)
        BlobBytes.v2(dataFile, kind, u64("position"), u64("size"), d.getChild("blob_id").asInstanceOf[UInt4Vector].get(i) & 0xffffffffL, uri)
    }
  }

  /** The bytes a location spans, checked against its file's size. */
  private def span(l: BlobLocation): (Long, Long) = {
    val size = reader(l.path).size
    if (l.whole) (0L, size)
    else {
      if (l.position > size - l.size)
        throw Errors.corrupt(l.path, l.position, s"a blob of ${l.size} bytes would end past the $size-byte file")
      (l.position, l.size)
    }
  }

  private def fetch(descriptors: FieldVector, allocator: BufferAllocator): FieldVector =
    try {
      val d = descriptors match {
        case s: StructVector => s
        case other => throw Errors.corrupt(dataFile, s"blob column '${field.name}' read as ${other.getField.getType}, not descriptors")
      }
      val n = d.getValueCount
      val locations = Array.tabulate(n)(i => if (d.isNull(i)) null else location(d, i))
      val spans = locations.map(l => if (l == null) null else span(l))
      // The whole batch's bytes go into one Arrow buffer: sized first, refused when the
      // task's memory cannot hold it, so that large blobs fail with advice, not an OOM.
      val total = spans.iterator.filter(_ != null).map(_._2).foldLeft(0L)(Math.addExact)
      if (total > allocator.getHeadroom)
        throw Errors.unsupported(s"a batch of $n blobs holding $total bytes, more than the task's remaining " +
          s"${allocator.getHeadroom}-byte memory (lower the read option batchSize or raise taskMemoryBytes)", dataFile)
      val out = new LargeVarBinaryVector(BlobFetch.arrowField(field, mode, dataFile), allocator)
      try {
        out.allocateNew(math.max(total, 1L), n)
        var i = 0
        while (i < n) {
          if (spans(i) != null) {
            val (position, size) = spans(i)
            if (size > Int.MaxValue - 8) throw Errors.unsupported(s"a blob of $size bytes", locations(i).path)
            val bytes = reader(locations(i).path).read(position, size.toInt)
            out.set(i, bytes, bytes.position(), size.toInt)
          }
          i += 1
        }
        out.setValueCount(n)
        out
      } catch { case t: Throwable => out.close(); throw t }
    } finally descriptors.close()
}
