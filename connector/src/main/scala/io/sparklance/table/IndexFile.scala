package io.sparklance.table

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector

import io.sparklance.format.{LanceField, LanceFileReader}
import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance-index/src/scalar/lance_format.rs (LanceIndexStore).
// Scalar indices keep their data in ordinary Lance 2.x files in the index directory, one
// top-level primitive column per field; they are read here with the format layer's
// reader, by column name, whole or by row ranges.

/**
 * One open file of an index. Vectors are allocated from `allocator` and owned by the
 * caller; closing releases the storage handle.
 */
final class IndexFile private (val path: String, reader: LanceFileReader, allocator: BufferAllocator) extends AutoCloseable {
  private val fields = LanceField.buildTree(reader.descriptor.fields, path)
  // 2.x files own one column per leaf, in schema order.
  private val leafIds = fields.flatMap(_.preOrder).filter(_.children.isEmpty).map(_.id)

  def numRows: Long = reader.numRows

  /** The file's schema metadata, where indices keep their parameters. */
  def metadata: Map[String, String] = reader.descriptor.schemaMetadata

  def bytesRead: Long = reader.bytesRead

  /** Which file this is, for [[IndexCache]]. */
  def identity: io.sparklance.format.FileIdentity = reader.identity

  def hasColumn(name: String): Boolean = fields.exists(_.name == name)

  /** Global buffer `index` of the file, at most `maxBytes` long. */
  def globalBuffer(index: Int, maxBytes: Long): io.sparklance.util.Bytes = reader.globalBuffer(index, maxBytes)

  private def scanner(name: String) = {
    val f = fields.find(_.name == name).getOrElse(throw Errors.corrupt(path, s"the index file has no '$name' column"))
    reader.scan(f, id => Some(leafIds.indexOf(id)).filter(_ >= 0))
  }

  /** All rows of column `name`. */
  def column(name: String): FieldVector = {
    if (numRows > Int.MaxValue) throw Errors.unsupported(s"an index file of $numRows rows", path)
    checked(scanner(name).next(numRows.toInt, allocator), numRows)
  }

  private def checked(v: FieldVector, rows: Long): FieldVector = {
    if (v.getValueCount != rows) {
      v.close()
      throw Errors.corrupt(path, s"column '${v.getName}' returned ${v.getValueCount} rows where $rows were expected")
    }
    v
  }

  /**
   * Rows `[from, until)` of column `name` for each of `ranges` (ascending, disjoint, inside
   * the file), one vector per range; only the pages and chunks holding them are read.
   */
  def ranges(name: String, ranges: Seq[(Long, Long)]): IndexedSeq[FieldVector] = {
    val s = scanner(name)
    var at = 0L
    val out = IndexedSeq.newBuilder[FieldVector]
    try ranges.foreach { case (from, until) =>
      if (from < at || until < from || until > numRows)
        throw Errors.invalidArgument(s"rows [$from, $until) of $path: ranges must be ascending and inside its $numRows rows")
      if (until - from > Int.MaxValue) throw Errors.unsupported(s"reading ${until - from} index rows at once", path)
      s.skip(from - at)
      out += checked(s.next((until - from).toInt, allocator), until - from)
      at = until
    }
    catch { case t: Throwable => out.result().foreach(_.close()); throw t }
    out.result()
  }

  /** The given rows (ascending) of column `name`. */
  def take(name: String, rows: Array[Long]): FieldVector = checked(scanner(name).take(rows, allocator), rows.length)

  override def close(): Unit = reader.close()
}

object IndexFile {
  /**
   * Opens file `name` of the index in `indexDir`, using the size the manifest recorded for
   * it, if any; `sparse` when only some row ranges of it will be read.
   */
  def open(store: ObjectStore, indexDir: String, index: IndexMetadata, name: String, allocator: BufferAllocator,
           sparse: Boolean = false): IndexFile = {
    val path = Paths.join(indexDir, name)
    new IndexFile(path, LanceFileReader.open(store, path, index.fileSizes.get(name), sparse), allocator)
  }
}
