package io.sparklance.table

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{FieldVector, LargeVarBinaryVector, UInt1Vector, UInt4Vector, UInt8Vector, VarCharVector}
import org.apache.arrow.vector.complex.StructVector
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}

import io.sparklance.format.{BlobBytes, FieldScanner, LanceField}
import io.sparklance.storage.ObjectStore
import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance/src/dataset/blob.rs (what `take_blobs` / `read_blobs`
// return). Blob columns read as descriptors by default, as pylance's to_table() returns
// them; with the `blobs = bytes` read option each descriptor is replaced by the bytes it
// points at (format.BlobBytes), a null blob by null, so that Spark sees a binary column.

/** How blob columns are read: as pylance's descriptor structs, or as their bytes. */
sealed trait BlobMode
object BlobMode {
  case object Descriptors extends BlobMode
  case object Bytes extends BlobMode

  val names: Map[String, BlobMode] = Map("descriptors" -> Descriptors, "bytes" -> Bytes)
}

object BlobFetch {

  /** The Arrow field `f` reads as under `mode`: a blob's bytes read as large_binary. */
  def arrowField(f: LanceField, mode: BlobMode, where: String): Field =
    if (mode == BlobMode.Bytes && f.blobVersion.isDefined)
      new Field(f.name, new FieldType(f.nullable, ArrowType.LargeBinary.INSTANCE, null), java.util.Collections.emptyList[Field]())
    else f.toArrow(where)

  /** `scanner` of a blob column stored in `dataFile`, returning each row's bytes instead of its descriptor. */
  def bytes(scanner: FieldScanner, store: ObjectStore, dataFile: String): FieldScanner = new FieldScanner {
    override def field: LanceField = scanner.field
    override def skip(n: Long): Unit = scanner.skip(n)
    override def next(n: Int, allocator: BufferAllocator): FieldVector = fetch(scanner.next(n, allocator), allocator)
    override def take(rows: Array[Long], allocator: BufferAllocator): FieldVector = fetch(scanner.take(rows, allocator), allocator)

    private def fetch(descriptors: FieldVector, allocator: BufferAllocator): FieldVector =
      try {
        val d = descriptors match {
          case s: StructVector => s
          case other => throw Errors.corrupt(dataFile, s"blob column '${field.name}' read as ${other.getField.getType}, not descriptors")
        }
        def u64(child: String, i: Int): Long = d.getChild(child).asInstanceOf[UInt8Vector].get(i)
        val n = d.getValueCount
        // Fetched first, so that the Arrow buffer is sized once from the real byte count.
        val values = Array.tabulate[Array[Byte]](n) { i =>
          if (d.isNull(i)) null
          else field.blobVersion match {
            case Some(1) => BlobBytes.v1(store, dataFile, u64("position", i), u64("size", i))
            case _ =>
              val uri = d.getChild("blob_uri").asInstanceOf[VarCharVector]
              BlobBytes.v2(store, dataFile, d.getChild("kind").asInstanceOf[UInt1Vector].get(i) & 0xff,
                u64("position", i), u64("size", i), d.getChild("blob_id").asInstanceOf[UInt4Vector].get(i) & 0xffffffffL,
                if (uri.isNull(i)) null else new String(uri.get(i), java.nio.charset.StandardCharsets.UTF_8))
          }
        }
        val out = new LargeVarBinaryVector(arrowField(field, BlobMode.Bytes, dataFile), allocator)
        try {
          out.allocateNew(values.iterator.filter(_ != null).map(_.length.toLong).sum, n)
          var i = 0
          while (i < n) { if (values(i) != null) out.set(i, values(i)); i += 1 }
          out.setValueCount(n)
          out
        } catch { case t: Throwable => out.close(); throw t }
      } finally descriptors.close()
  }
}
