package io.sparklance.spark.write

import org.apache.arrow.vector.types.pojo.ArrowType
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{BinaryType, DataType, IntegerType, LongType, StringType, StructType}

import io.sparklance.table.Manifest
import io.sparklance.table.commit.KeyExistenceFilter
import io.sparklance.table.proto.ManifestCodec
import io.sparklance.table.write.InsertedKeys

/**
 * Where a MERGE's written rows hold the table's primary key, and how each part becomes the
 * bytes Lance hashes (rust/lance/src/dataset/write/merge_insert/inserted_rows.rs, KeyValue):
 * signed 32- and 64-bit integers and unsigned 32-bit ones as a 64-bit little-endian integer,
 * strings as UTF-8, binaries as they are. `fieldIds` and `ordinals` are in key order.
 */
final case class InsertedKeyColumns(fieldIds: IndexedSeq[Int], ordinals: IndexedSeq[Int], kinds: IndexedSeq[InsertedKeyColumns.Kind]) {

  /** The key of `row` into `keys`; a row with a null key part has no key (as in Lance). */
  def add(row: InternalRow, keys: InsertedKeys): Unit =
    if (!ordinals.exists(row.isNullAt)) {
      val parts = ordinals.indices.map(i => kinds(i) match {
        case InsertedKeyColumns.Int32 => InsertedKeys.longBytes(row.getInt(ordinals(i)).toLong)
        case InsertedKeyColumns.Int64 => InsertedKeys.longBytes(row.getLong(ordinals(i)))
        case InsertedKeyColumns.Utf8 => row.getUTF8String(ordinals(i)).getBytes
        case InsertedKeyColumns.Bytes => row.getBinary(ordinals(i))
      })
      keys.add(if (parts.length == 1) parts.head else InsertedKeys.composite(parts))
    }

  /** The filter of the keys every task inserted (each task's bits; a union is their OR). */
  def filter(tasks: Iterator[Array[Byte]]): KeyExistenceFilter = {
    val all = new InsertedKeys()
    tasks.foreach(all.addAll)
    all.filter(fieldIds)
  }
}

object InsertedKeyColumns {
  /**
   * The write option by which an insert-only MERGE tells its append which columns its ON
   * condition equates (comma-separated, lower case); set by the optimizer rule that turns the
   * MERGE into the append, never by users.
   */
  val MergeOnOption = "__lance_merge_on"

  sealed trait Kind
  case object Int32 extends Kind
  case object Int64 extends Kind
  case object Utf8 extends Kind
  case object Bytes extends Kind

  /**
   * The key columns of a MERGE into a table with an unenforced primary key whose ON condition
   * equates exactly the key's columns (`onColumns`, lower case), when every part is of a type
   * Lance hashes; None otherwise (Lance records no keys then, or records none for such a part).
   */
  def of(manifest: Manifest, rows: StructType, onColumns: Set[String], where: String): Option[InsertedKeyColumns] = {
    val topLevel = manifest.schema.fields.map(f => f.id -> f).toMap
    val ids = ManifestCodec.primaryKeyFields(manifest)
    if (ids.isEmpty || !ids.forall(topLevel.contains)) return None
    val key = ids.map(topLevel)
    if (key.map(_.name.toLowerCase(java.util.Locale.ROOT)).toSet != onColumns) return None
    val columns: Seq[Option[(Int, Kind)]] = key.map { f =>
      val ordinal = rows.fieldNames.indexWhere(_.equalsIgnoreCase(f.name))
      if (ordinal < 0) None else kind(f.toArrow(where).getType, rows(ordinal).dataType).map(ordinal -> _)
    }
    if (columns.exists(_.isEmpty)) None
    else Some(InsertedKeyColumns(ids.toIndexedSeq, columns.map(_.get._1).toIndexedSeq, columns.map(_.get._2).toIndexedSeq))
  }

  private def kind(arrow: ArrowType, spark: DataType): Option[Kind] = (arrow, spark) match {
    case (i: ArrowType.Int, IntegerType) if i.getBitWidth == 32 && i.getIsSigned => Some(Int32)
    case (i: ArrowType.Int, LongType) if i.getBitWidth == 64 && i.getIsSigned || i.getBitWidth == 32 && !i.getIsSigned => Some(Int64)
    case (_: ArrowType.Utf8 | _: ArrowType.LargeUtf8, StringType) => Some(Utf8)
    case (_: ArrowType.Binary | _: ArrowType.LargeBinary, BinaryType) => Some(Bytes)
    case _ => None
  }
}
