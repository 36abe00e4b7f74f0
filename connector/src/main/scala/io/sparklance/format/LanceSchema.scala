package io.sparklance.format

import scala.jdk.CollectionConverters._

import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, TimeUnit}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}

import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

// Spec: lance-format/lance protos/file.proto `Field` and docs/src/format/table/schema.md.
// A Lance schema is a flat, depth-first pre-order list of fields linked by parent ids; this
// file rebuilds the tree and maps each field's logical type string to an Arrow type.

/**
 * One field of a Lance schema. `id` is the dataset-wide field id that data files and
 * indices refer to; `logicalType` is Lance's type string (for example `int64`,
 * `timestamp:us:UTC`, `fixed_size_list:float:128`, `list.struct`).
 */
final case class LanceField(
    id: Int,
    name: String,
    logicalType: String,
    nullable: Boolean,
    metadata: Map[String, String],
    children: IndexedSeq[LanceField]) {

  /** This field and every descendant, pre-order. */
  def preOrder: Iterator[LanceField] = Iterator.single(this) ++ children.iterator.flatMap(_.preOrder)

  def isStruct: Boolean = logicalType == "struct"
  def isList: Boolean = LanceField.listTypes.contains(logicalType)
  def isMap: Boolean = logicalType == "map"
  def isNested: Boolean = isStruct || isList || isMap

  /**
   * False for structs stored in one column of their own (packed structs, blob
   * descriptors), which cannot be read member by member.
   */
  def columnsOwnedByLeaves: Boolean =
    !metadata.get("lance-encoding:packed").orElse(metadata.get("packed")).contains("true") && blobVersion.isEmpty

  /** A blob column (bytes stored out of line; read as descriptors): v1 marker or the v2 extension. */
  def blobVersion: Option[Int] =
    if (metadata.get("ARROW:extension:name").contains(LanceField.BlobV2Extension)) Some(2)
    else if (metadata.contains(LanceField.BlobMarker) && (logicalType == "large_binary" || logicalType == "binary")) Some(1)
    else None

  /** The Arrow field this Lance field reads as. `where` names the schema for errors. */
  def toArrow(where: String): Field = blobVersion match {
    case Some(v) => BlobDescriptors.field(name, nullable, v)
    case None => plainArrow(where, _.toArrow(where))
  }

  /** The Arrow field a writer takes for this Lance field: blob fields as their bytes. */
  def toArrowForWrite(where: String): Field = plainArrow(where, _.toArrowForWrite(where))

  private def plainArrow(where: String, child: LanceField => Field): Field = {
    val arrowChildren = children.map(child)
    val meta = if (metadata.isEmpty) null else metadata.asJava
    if (LanceField.isFixedSizeListOfLists(logicalType)) {
      val (item, n) = LanceField.fixedSizeListItem(logicalType, where, name)
      return new Field(name, new FieldType(nullable, new ArrowType.FixedSizeList(n), null, meta), java.util.Collections.singletonList(item))
    }
    LogicalType.parse(logicalType, where, name) match {
      case LogicalType.Plain(t) =>
        new Field(name, new FieldType(nullable, t, null, meta), arrowChildren.asJava)
      case LogicalType.FixedSizeList(item, n) =>
        val itemField = new Field("item", FieldType.nullable(item), java.util.Collections.emptyList[Field]())
        new Field(name, new FieldType(nullable, new ArrowType.FixedSizeList(n), null, meta), java.util.Collections.singletonList(itemField))
    }
  }
}

object LanceField {
  val BlobMarker = "lance-encoding:blob"
  val BlobV2Extension = "lance.blob.v2"
  private val listTypes = Set("list", "list.struct", "large_list", "large_list.struct")

  // A fixed-size list of fixed-size lists (`fixed_size_list:fixed_size_list:int16:2:3`, which
  // pylance writes in every 2.x format) has no child fields in the schema; LogicalType.parse
  // describes one level, so the nesting is unwrapped here.
  private def isFixedSizeListOfLists(lt: String): Boolean = lt.startsWith("fixed_size_list:fixed_size_list:")

  /** The item field and size of fixed-size list type `lt`, items of any depth. */
  private def fixedSizeListItem(lt: String, where: String, name: String): (Field, Int) = {
    val parts = lt.split(':')
    val n = parts.last.toIntOption.filter(_ > 0)
      .getOrElse(throw Errors.corrupt(where, s"field '$name' has malformed logical type '$lt'"))
    val itemType = parts.slice(1, parts.length - 1).mkString(":")
    val item =
      if (itemType.startsWith("fixed_size_list:")) {
        val (inner, m) = fixedSizeListItem(itemType, where, name)
        new Field("item", FieldType.nullable(new ArrowType.FixedSizeList(m)), java.util.Collections.singletonList(inner))
      } else LogicalType.parse(itemType, where, name) match {
        case LogicalType.Plain(t) => new Field("item", FieldType.nullable(t), java.util.Collections.emptyList[Field]())
        case _ => throw Errors.unsupported(s"logical type '$lt' of field '$name'", where)
      }
    (item, n)
  }

  /**
   * Rebuilds the field tree from the flat pre-order list of a manifest or file schema.
   * A field with parent id -1 is top level; every other field must follow its parent.
   */
  def buildTree(flat: Seq[FlatField], where: String): IndexedSeq[LanceField] = {
    val childrenOf = scala.collection.mutable.LinkedHashMap.empty[Int, scala.collection.mutable.ArrayBuffer[FlatField]]
    val seen = scala.collection.mutable.HashSet.empty[Int]
    val roots = scala.collection.mutable.ArrayBuffer.empty[FlatField]
    flat.foreach { f =>
      if (!seen.add(f.id)) throw Errors.corrupt(where, s"field id ${f.id} ('${f.name}') appears twice in the schema")
      if (f.parentId == -1) roots += f
      else if (!seen.contains(f.parentId) || f.parentId == f.id)
        throw Errors.corrupt(where, s"field '${f.name}' (id ${f.id}) names parent id ${f.parentId}, which does not precede it")
      else childrenOf.getOrElseUpdate(f.parentId, scala.collection.mutable.ArrayBuffer.empty) += f
    }
    def build(f: FlatField): LanceField =
      LanceField(f.id, f.name, f.logicalType, f.nullable, f.metadata,
        childrenOf.getOrElse(f.id, Seq.empty).map(build).toIndexedSeq)
    roots.map(build).toIndexedSeq
  }
}

/** A schema field as stored (flat, with its parent id), before the tree is rebuilt. */
final case class FlatField(
    id: Int,
    parentId: Int,
    name: String,
    logicalType: String,
    nullable: Boolean,
    metadata: Map[String, String])

/** A Lance schema: top-level fields plus schema-level metadata. */
final case class LanceSchema(fields: IndexedSeq[LanceField], metadata: Map[String, String]) {

  /** The highest field id in the schema (-1 for none): a new field takes the next one. */
  def maxId: Int = if (fields.isEmpty) -1 else fields.iterator.flatMap(_.preOrder).map(_.id).max

  /** The fields flat, depth-first pre-order with parent ids, as manifests and data files store them. */
  def flatFields: IndexedSeq[FlatField] = {
    def flat(f: LanceField, parent: Int): Iterator[FlatField] =
      Iterator.single(FlatField(f.id, parent, f.name, f.logicalType, f.nullable, f.metadata)) ++ f.children.iterator.flatMap(flat(_, f.id))
    fields.iterator.flatMap(flat(_, -1)).toIndexedSeq
  }

  lazy val byId: Map[Int, LanceField] = fields.iterator.flatMap(_.preOrder).map(f => f.id -> f).toMap

  def field(name: String): Option[LanceField] = fields.find(_.name == name)

  def toArrow(where: String): org.apache.arrow.vector.types.pojo.Schema =
    new org.apache.arrow.vector.types.pojo.Schema(fields.map(_.toArrow(where)).asJava,
      if (metadata.isEmpty) null else metadata.asJava)

  /** The Arrow schema a writer takes: as `toArrow`, but blob fields as their bytes. */
  def toArrowForWrite(where: String): org.apache.arrow.vector.types.pojo.Schema =
    new org.apache.arrow.vector.types.pojo.Schema(fields.map(_.toArrowForWrite(where)).asJava,
      if (metadata.isEmpty) null else metadata.asJava)
}

object LanceSchema {

  /**
   * The Lance schema of an Arrow schema, field ids assigned depth first from `firstId`
   * (rust/lance-core/src/datatypes/schema.rs: a new dataset numbers its fields 0, 1, ...).
   * Fixed-size lists have no child field in a Lance schema; their item type is in the logical
   * type. `where` names the schema in errors.
   */
  def fromArrow(schema: org.apache.arrow.vector.types.pojo.Schema, where: String, firstId: Int = 0): LanceSchema = {
    var next = firstId
    def convert(f: Field): LanceField = {
      val id = next
      next += 1
      val children = f.getType match {
        case _: ArrowType.FixedSizeList => IndexedSeq.empty
        case _ => f.getChildren.asScala.map(convert).toIndexedSeq
      }
      val meta = Option(f.getMetadata).map(_.asScala.toMap).getOrElse(Map.empty[String, String])
      LanceField(id, f.getName, LogicalType.of(f, where), f.isNullable, meta, children)
    }
    val fields = schema.getFields.asScala.map(convert).toIndexedSeq
    LanceSchema(fields, Option(schema.getCustomMetadata).map(_.asScala.toMap).getOrElse(Map.empty))
  }
}

/** Lance logical type strings (rust/lance-core/src/datatypes.rs) as Arrow types, and back. */
object LogicalType {

  private def unitName(u: TimeUnit): String = u match {
    case TimeUnit.SECOND => "s"
    case TimeUnit.MILLISECOND => "ms"
    case TimeUnit.MICROSECOND => "us"
    case TimeUnit.NANOSECOND => "ns"
  }

  /** The logical type string of an Arrow field, as `LogicalType::try_from(&DataType)` spells it. */
  def of(f: Field, where: String): String = f.getType match {
    case _ if f.getDictionary != null =>
      throw Errors.unsupported(s"writing the dictionary-encoded Arrow field '${f.getName}'; decode it to its value type first", where)
    case _: ArrowType.Null => "null"
    case _: ArrowType.Bool => "bool"
    case i: ArrowType.Int => s"${if (i.getIsSigned) "" else "u"}int${i.getBitWidth}"
    case fp: ArrowType.FloatingPoint => fp.getPrecision match {
      case FloatingPointPrecision.HALF => "halffloat"
      case FloatingPointPrecision.SINGLE => "float"
      case FloatingPointPrecision.DOUBLE => "double"
    }
    case d: ArrowType.Decimal => s"decimal:${d.getBitWidth}:${d.getPrecision}:${d.getScale}"
    case _: ArrowType.Utf8 => "string"
    case _: ArrowType.Binary => "binary"
    case _: ArrowType.LargeUtf8 => "large_string"
    case _: ArrowType.LargeBinary => "large_binary"
    case d: ArrowType.Date => if (d.getUnit == DateUnit.DAY) "date32:day" else "date64:ms"
    case t: ArrowType.Time => s"time${t.getBitWidth}:${unitName(t.getUnit)}"
    case t: ArrowType.Timestamp => s"timestamp:${unitName(t.getUnit)}:${Option(t.getTimezone).getOrElse("-")}"
    case d: ArrowType.Duration => s"duration:${unitName(d.getUnit)}"
    case _: ArrowType.Struct => "struct"
    case _: ArrowType.List => if (f.getChildren.get(0).getType.isInstanceOf[ArrowType.Struct]) "list.struct" else "list"
    case _: ArrowType.LargeList => if (f.getChildren.get(0).getType.isInstanceOf[ArrowType.Struct]) "large_list.struct" else "large_list"
    case l: ArrowType.FixedSizeList => s"fixed_size_list:${of(f.getChildren.get(0), where)}:${l.getListSize}"
    case b: ArrowType.FixedSizeBinary => s"fixed_size_binary:${b.getByteWidth}"
    case m: ArrowType.Map =>
      if (m.getKeysSorted) throw Errors.unsupported(s"map field '${f.getName}' with sorted keys (Lance stores maps with unsorted keys only)", where)
      "map"
    case other => throw Errors.unsupported(s"Arrow type $other of field '${f.getName}'", where)
  }

  sealed trait Parsed
  final case class Plain(arrow: ArrowType) extends Parsed
  final case class FixedSizeList(item: ArrowType, size: Int) extends Parsed

  private def unit(u: String, lt: String, where: String, field: String): TimeUnit = u match {
    case "s" => TimeUnit.SECOND
    case "ms" => TimeUnit.MILLISECOND
    case "us" => TimeUnit.MICROSECOND
    case "ns" => TimeUnit.NANOSECOND
    case _ => throw unknown(lt, where, field)
  }

  private def unknown(lt: String, where: String, field: String) =
    Errors.unsupported(s"logical type '$lt' of field '$field'", where)

  private def positiveInt(s: String, lt: String, where: String, field: String): Int =
    s.toIntOption.filter(_ > 0).getOrElse(throw Errors.corrupt(where, s"field '$field' has malformed logical type '$lt'"))

  def parse(lt: String, where: String, field: String): Parsed = lt match {
    case "null" => Plain(ArrowType.Null.INSTANCE)
    case "bool" => Plain(ArrowType.Bool.INSTANCE)
    case "int8" => Plain(new ArrowType.Int(8, true))
    case "int16" => Plain(new ArrowType.Int(16, true))
    case "int32" => Plain(new ArrowType.Int(32, true))
    case "int64" => Plain(new ArrowType.Int(64, true))
    case "uint8" => Plain(new ArrowType.Int(8, false))
    case "uint16" => Plain(new ArrowType.Int(16, false))
    case "uint32" => Plain(new ArrowType.Int(32, false))
    case "uint64" => Plain(new ArrowType.Int(64, false))
    case "halffloat" => Plain(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF))
    case "float" => Plain(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))
    case "double" => Plain(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))
    case "string" => Plain(ArrowType.Utf8.INSTANCE)
    case "large_string" => Plain(ArrowType.LargeUtf8.INSTANCE)
    case "binary" => Plain(ArrowType.Binary.INSTANCE)
    case "large_binary" | "json" => Plain(ArrowType.LargeBinary.INSTANCE)
    case "date32:day" => Plain(new ArrowType.Date(DateUnit.DAY))
    case "date64:ms" => Plain(new ArrowType.Date(DateUnit.MILLISECOND))
    case "struct" => Plain(ArrowType.Struct.INSTANCE)
    case "list" | "list.struct" => Plain(ArrowType.List.INSTANCE)
    case "large_list" | "large_list.struct" => Plain(ArrowType.LargeList.INSTANCE)
    case "map" => Plain(new ArrowType.Map(false))
    case _ =>
      val parts = lt.split(':')
      parts(0) match {
        case "timestamp" if parts.length >= 3 =>
          // The time zone may itself contain ':' (e.g. "+05:30"); everything after the unit is the zone.
          val tz = parts.drop(2).mkString(":")
          Plain(new ArrowType.Timestamp(unit(parts(1), lt, where, field), if (tz == "-") null else tz))
        case "time32" if parts.length == 2 => Plain(new ArrowType.Time(unit(parts(1), lt, where, field), 32))
        case "time64" if parts.length == 2 => Plain(new ArrowType.Time(unit(parts(1), lt, where, field), 64))
        case "duration" if parts.length == 2 => Plain(new ArrowType.Duration(unit(parts(1), lt, where, field)))
        case "fixed_size_binary" if parts.length == 2 =>
          Plain(new ArrowType.FixedSizeBinary(positiveInt(parts(1), lt, where, field)))
        case "decimal" if parts.length == 4 && (parts(1) == "128" || parts(1) == "256") =>
          val p = positiveInt(parts(2), lt, where, field)
          val s = parts(3).toIntOption.getOrElse(throw Errors.corrupt(where, s"field '$field' has malformed logical type '$lt'"))
          Plain(new ArrowType.Decimal(p, s, parts(1).toInt))
        case "fixed_size_list" if parts.length >= 3 =>
          val item = parts.slice(1, parts.length - 1).mkString(":")
          val n = positiveInt(parts.last, lt, where, field)
          parse(item, where, field) match {
            case Plain(t) => FixedSizeList(t, n)
            case _ => throw unknown(lt, where, field)
          }
        case "dict" if parts.length >= 4 =>
          // Dictionary columns are read as their value type: the decoder materialises the
          // values (Spark has no dictionary type), and the key type is only a storage detail.
          parse(parts.slice(1, parts.length - 2).mkString(":"), where, field)
        case _ => throw unknown(lt, where, field)
      }
  }
}

/**
 * Blob columns read as descriptors of where each value's bytes are, as pylance returns them:
 * v1 (file format 2.1) `struct<position: uint64, size: uint64>`; v2 (2.2)
 * `struct<kind: uint8, position: uint64, size: uint64, blob_id: uint32, blob_uri: string>`.
 * The bytes themselves are fetched on request (format.BlobBytes).
 */
object BlobDescriptors {
  def field(name: String, nullable: Boolean, version: Int): Field = {
    def child(n: String, t: ArrowType, childNullable: Boolean) =
      new Field(n, new FieldType(childNullable, t, null), java.util.Collections.emptyList[Field]())
    val children =
      if (version == 1) java.util.List.of(child("position", new ArrowType.Int(64, false), true), child("size", new ArrowType.Int(64, false), true))
      else java.util.List.of(
        child("kind", new ArrowType.Int(8, false), false),
        child("position", new ArrowType.Int(64, false), false),
        child("size", new ArrowType.Int(64, false), false),
        child("blob_id", new ArrowType.Int(32, false), false),
        child("blob_uri", ArrowType.Utf8.INSTANCE, false))
    val meta = new java.util.HashMap[String, String]()
    meta.put(LanceField.BlobMarker, "true")
    if (version == 2) meta.put("lance-encoding:packed", "true")
    new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null, meta), children)
  }
}
