package io.sparklance.format.legacy

import java.io.{ByteArrayOutputStream, File}
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.{Files, Path}

import org.apache.arrow.memory.BufferAllocator
import org.apache.hadoop.conf.Configuration

import io.sparklance.format.{FixedWidths, LanceField, LogicalType}
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{ScanPlanner, Snapshot}
import io.sparklance.testutil.{Canonical, Golden}

/** Legacy data files for tests: the golden ones, rewritten copies of them, and whole-file reads. */
object LegacyFiles {
  val store = new HadoopObjectStore(new Configuration())

  /** The data files of a golden dataset version, in fragment order, with each one's first dataset row. */
  def dataFiles(dataset: String, version: Long): IndexedSeq[(String, Long)] = {
    val snapshot = Snapshot.open(store, Golden.dataset(dataset).uri, Some(version))
    val tasks = ScanPlanner.plan(store, snapshot)
    val starts = tasks.scanLeft(0L)((at, t) => at + t.numRows)
    tasks.zip(starts).map { case (t, start) =>
      assert(t.files.length == 1, "one data file per fragment")
      (t.files.head.path, start)
    }
  }

  def open(path: String): LegacyFileReader = LegacyFileReader.open(store, path)

  /** Every top-level field of the file's own schema, read in slices of `slice` rows, as canonical rows. */
  def readAll(file: LegacyFileReader, slice: Int, allocator: BufferAllocator): IndexedSeq[IndexedSeq[Any]] = {
    val fields = file.fileSchema.schema.fields
    val scanners = fields.map(f => file.scan(f, _ => None))
    val out = IndexedSeq.newBuilder[IndexedSeq[Any]]
    var at = 0L
    while (at < file.numRows) {
      val vectors = scala.collection.mutable.ArrayBuffer.empty[org.apache.arrow.vector.FieldVector]
      try {
        scanners.foreach(s => vectors += s.next(slice, allocator))
        val n = vectors.head.getValueCount
        (0 until n).foreach(i => out += vectors.map(v => Canonical.cell(v, i)).toIndexedSeq)
        at += n
      } finally vectors.foreach(_.close())
    }
    out.result()
  }

  def write(dir: Path, name: String, bytes: Array[Byte]): String = {
    val f = dir.resolve(name)
    Files.write(f, bytes)
    f.toString
  }

  def bytes(path: String): Array[Byte] = Files.readAllBytes(new File(path).toPath)

  // ---- re-batching ----------------------------------------------------------------------

  /**
   * A copy of a one-batch legacy file whose rows are split into batches starting at `starts`
   * (each a multiple of 8, so boolean bitmaps split on byte boundaries). The pages stay
   * where pylance wrote them: the new page table points into them, then a new Metadata
   * (without statistics, which have one row per batch) and footer follow the old ones.
   */
  def rebatch(path: String, starts: Seq[Int]): Array[Byte] = {
    val original = bytes(path)
    val file = open(path)
    try {
      assert(file.numBatches == 1, "rebatch expects a one-batch file")
      val rows = file.numRows.toInt
      assert(starts.head == 0 && starts.forall(_ % 8 == 0) && starts.last < rows)
      val bounds = starts :+ rows
      val table = file.pageTable
      val entries = scala.collection.mutable.Map.empty[(Int, Int), (Long, Long)] // (field id, batch) -> (position, length)

      def keepOriginal(f: LanceField, batch: Int): Unit = f.preOrder.foreach { g =>
        val p = table.page(g.id, 0)
        entries((g.id, batch)) = (p.position, p.length.toLong)
      }
      def split(f: LanceField, batch: Int, r0: Int, k: Int): Unit = {
        val p = table.page(f.id, 0)
        def at(bytesPerRow: Long, len: Long = k.toLong): Unit = entries((f.id, batch)) = (p.position + r0 * bytesPerRow, len)
        val lt = f.logicalType
        if (lt.startsWith("dict:")) {
          val key = lt.split(':').reverse(1)
          at(FixedWidths.bytes(LogicalType.parse(key, "test", f.name).asInstanceOf[LogicalType.Plain].arrow).get.toLong)
        } else if (f.isStruct) f.children.foreach(c => split(c, batch, r0, k))
        else if (f.isList) {
          at(if (lt.startsWith("large_list")) 8 else 4, k + 1L)
          f.children.foreach(c => keepOriginal(c, batch)) // raw offsets index the whole child page
        } else LogicalType.parse(lt, "test", f.name) match {
          case LogicalType.Plain(org.apache.arrow.vector.types.pojo.ArrowType.Null.INSTANCE) => at(0)
          case LogicalType.Plain(org.apache.arrow.vector.types.pojo.ArrowType.Bool.INSTANCE) =>
            entries((f.id, batch)) = (p.position + r0 / 8, k.toLong)
          case LogicalType.Plain(t) if ColumnReader.isBinaryLike(t) => at(8)
          case LogicalType.Plain(t) => at(FixedWidths.bytes(t).get.toLong)
          case LogicalType.FixedSizeList(org.apache.arrow.vector.types.pojo.ArrowType.Bool.INSTANCE, n) =>
            entries((f.id, batch)) = (p.position + r0.toLong * n / 8, k.toLong)
          case LogicalType.FixedSizeList(item, n) => at(n.toLong * FixedWidths.bytes(item).get)
        }
      }
      bounds.indices.dropRight(1).foreach { b =>
        file.fileSchema.schema.fields.foreach(f => split(f, b, bounds(b), bounds(b + 1) - bounds(b)))
      }

      val out = new ByteArrayOutputStream()
      out.write(original)
      val tablePos = out.size().toLong
      val le = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
      for (id <- table.minFieldId to table.maxFieldId; b <- 0 until bounds.length - 1) {
        val (pos, len) = entries.getOrElse((id, b), (0L, 0L))
        le.clear(); le.putLong(pos).putLong(len); out.write(le.array())
      }
      val meta = metadataMessage(file.metadata.manifestPosition.get, bounds, tablePos)
      val metaPos = out.size().toLong
      le.clear(); le.putInt(meta.length); out.write(le.array(), 0, 4)
      out.write(meta)
      le.clear(); le.putLong(metaPos).putShort(0).putShort(2).put("LANC".getBytes("US-ASCII")); out.write(le.array())
      out.toByteArray
    } finally file.close()
  }

  /** protos/lance/file.proto Metadata{manifest_position = 1, batch_offsets = 2 (packed), page_table_position = 3}. */
  def metadataMessage(manifestPosition: Long, batchOffsets: Seq[Int], pageTablePosition: Long): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    def varint(v: Long): Unit = {
      var x = v
      while ((x & ~0x7fL) != 0) { out.write(((x & 0x7f) | 0x80).toInt); x >>>= 7 }
      out.write(x.toInt)
    }
    out.write(0x08); varint(manifestPosition)
    val packed = new ByteArrayOutputStream()
    batchOffsets.foreach { o =>
      var x = o.toLong
      while ((x & ~0x7fL) != 0) { packed.write(((x & 0x7f) | 0x80).toInt); x >>>= 7 }
      packed.write(x.toInt)
    }
    out.write(0x12); varint(packed.size().toLong); out.write(packed.toByteArray)
    out.write(0x18); varint(pageTablePosition)
    out.toByteArray
  }
}
