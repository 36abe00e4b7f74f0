package io.sparklance.table

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.{BigIntVector, FieldVector}

import io.sparklance.storage.ObjectStore
import io.sparklance.table.proto.RowIdCodec
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/row_id_lineage.md. Every row has an
// address, (fragment id << 32) | offset in the fragment; tables with stable row ids (reader
// flag 2) also give each row an id that survives updates and compaction. Without stable
// row ids a row's id is its address.

/** A per-row column that is not stored in the data files. */
sealed abstract class MetadataColumn(val name: String) extends Serializable // Serializable itself: see FileVersion (Scala 2.12)
object MetadataColumn {
  case object RowId extends MetadataColumn("_rowid")
  case object RowAddress extends MetadataColumn("_rowaddr")
  case object FragmentId extends MetadataColumn("_fragid")
  val all: Seq[MetadataColumn] = Seq(RowId, RowAddress, FragmentId)
  def byName(name: String): Option[MetadataColumn] = all.find(_.name == name)
}

/** Where a task's stable row ids are (resolved on the driver), if the table has them. */
final case class RowIdLocation(inline: Option[Array[Byte]], external: Option[ExternalFile], externalPath: Option[String])

object MetadataColumns {

  /** Values of `column` for the rows at physical `offsets` of the task's fragment. */
  def vector(column: MetadataColumn, task: ScanTask, offsets: Array[Long], rowIds: => Array[Long],
             allocator: BufferAllocator): FieldVector = {
    val v = new BigIntVector(column.name, allocator)
    v.allocateNew(offsets.length)
    var i = 0
    while (i < offsets.length) {
      val o = offsets(i)
      v.set(i, column match {
        case MetadataColumn.RowAddress => (task.fragmentId << 32) | o
        case MetadataColumn.FragmentId => task.fragmentId
        case MetadataColumn.RowId => if (task.rowIds.isEmpty) (task.fragmentId << 32) | o else rowIds(o.toInt)
      })
      i += 1
    }
    v.setValueCount(offsets.length)
    v
  }

  /** The stable row ids of a task's fragment, in physical order. */
  def rowIds(store: ObjectStore, task: ScanTask): Array[Long] = task.rowIds match {
    case None => null
    case Some(loc) =>
      val where = s"row ids of fragment ${task.fragmentId}"
      val bytes = loc.inline.getOrElse {
        val f = loc.external.get
        val r = store.open(loc.externalPath.get)
        try {
          if (f.offset < 0 || f.size < 0 || f.size > Int.MaxValue || f.offset > r.size - f.size)
            throw Errors.corrupt(loc.externalPath.get, f.offset, s"row ids of ${f.size} bytes lie outside the ${r.size}-byte file")
          val b = r.read(f.offset, f.size.toInt)
          val a = new Array[Byte](b.remaining()); b.get(a); a
        } finally r.close()
      }
      RowIdCodec.decode(bytes, task.physicalRows, where)
  }
}
