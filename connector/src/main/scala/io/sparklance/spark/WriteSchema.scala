package io.sparklance.spark

import scala.jdk.CollectionConverters._

import org.apache.arrow.vector.{FieldVector, ValueVector}
import org.apache.arrow.vector.complex.{BaseListVector, FixedSizeListVector, StructVector}
import org.apache.arrow.vector.types.{DateUnit, FloatingPointPrecision, TimeUnit}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}
import org.apache.spark.sql.types._

import io.sparklance.format.{LanceField, LanceSchema, LogicalType}
import io.sparklance.spark.compat.{Collations, SparkTime}
import io.sparklance.table.MetadataColumn
import io.sparklance.util.ScalaCompat._
import io.sparklance.util.{Errors, Json, LanceException}

// The schema a Spark DataFrame is written with: the inverse of SparkArrow's read mapping.
//
// A column read from Lance carries the Lance logical type Spark could not show in its field
// metadata (SparkArrow.LogicalTypeKey; the strings of rust/lance-core/src/datatypes.rs, as a
// Lance schema stores them), so writing it back restores the original type: uint32 stays
// uint32, fixed_size_list:float:128 stays a vector, timestamps keep unit and zone. Array items
// and map keys and values have no Spark field of their own, so their types ride on the
// nearest enclosing field under a key with a path of Spark's role names
// (`lance.logical_type.element`, `lance.logical_type.value.element`), as lance-spark bubbles
// its per-item encoding keys up to the enclosing field. A column without metadata is written
// as its Spark type's natural Arrow type.
//
// Vectors: a plain Spark array of fixed-width numbers becomes a fixed-size list when its field
// declares a dimension under `arrow.fixed-size-list.size` (a long), the key lance-spark reads
// (lance-format/lance-spark VectorUtils.ARROW_FIXED_SIZE_LIST_SIZE_KEY), so schemas written
// for either connector declare vectors the same way. Unlike lance-spark, any fixed-width
// number is allowed and nulls may appear (Lance stores null vectors and null items).

object WriteSchema {
  val VectorSizeKey = "arrow.fixed-size-list.size"

  /**
   * Columns Lance computes, which pylance refuses as stored columns (rust/lance-core/src/lib.rs
   * ROW_ID, ROW_ADDR, ROW_OFFSET, ROW_CREATED_AT_VERSION, ROW_LAST_UPDATED_AT_VERSION, checked
   * in rust/lance/src/dataset/write/insert.rs), and ours ([[MetadataColumn]]: `_fragid`).
   */
  val ReservedNames: Seq[String] = (Seq("_rowid", "_rowaddr", "_rowoffset", "_row_created_at_version",
    "_row_last_updated_at_version") ++ MetadataColumn.all.map(_.name)).distinct

  /**
   * Refuses column names a Lance table written from Spark cannot hold. At the top level: a
   * name Lance reserves, in any case (pylance compares them exactly, but Spark resolves names
   * without case, so a stored `_ROWADDR` would be read, and deleted by, as `_rowaddr`); a name
   * with a '.' (Lance: "Top level field cannot contain `.`", rust/lance-core/src/datatypes/schema.rs);
   * an empty name or one with a '`' (pylance 14 stores them but cannot read the table back: its
   * projection parser finds no such field). At every level: two names equal but for case.
   */
  def checkNames(schema: StructType, where: String): Unit = {
    schema.fields.foreach(f => checkColumnName(f.name, where))
    checkDuplicates(schema, "", where)
  }

  /** The top-level rules of [[checkNames]] for one column name (a new one: ADD or RENAME COLUMN). */
  def checkColumnName(name: String, where: String): Unit = {
    if (name.isEmpty) throw Errors.invalidColumnName(where, name, "has an empty name, which pylance cannot read back")
    ReservedNames.find(_.equalsIgnoreCase(name)).foreach(_ => throw Errors.reservedColumn(where, name, ReservedNames))
    if (name.contains('.'))
      throw Errors.invalidColumnName(where, name, "has a '.' in its name, which Lance refuses in a top-level column (a '.' " +
        "separates a struct's members)", "Rename the column, or make it a struct member if that is what the '.' meant")
    if (name.contains('`')) throw Errors.invalidColumnName(where, name, "has a '`' in its name, which pylance cannot read back")
  }

  /**
   * Refuses declarations a Lance column would drop without a word: a string collation other
   * than UTF8_BINARY (Lance strings carry none, so the column would read back as a plain
   * string and compare differently), and CHAR(n) / VARCHAR(n), whose length nothing would
   * check on write. Spark passes CHAR and VARCHAR columns to a catalog as strings with their
   * declared type in the field metadata (CharVarcharUtils, key [[CharVarcharKey]]).
   */
  private def checkDeclarable(dt: DataType, metadata: Metadata, column: String, where: String): Unit = {
    val declared = if (metadata.contains(CharVarcharKey)) Some(metadata.getString(CharVarcharKey)) else None
    (dt, declared) match {
      case (_, Some(t)) => throw Errors.unsupported(s"column '$column' of type ${t.toUpperCase(java.util.Locale.ROOT)} (Lance " +
        "checks no string length, so the declared length would be lost); declare it STRING", where)
      case (_: CharType | _: VarcharType, _) => throw Errors.unsupported(s"column '$column' of type ${dt.sql} (Lance checks no " +
        "string length, so the declared length would be lost); declare it STRING", where)
      case (s: StringType, _) if !Collations.plain(s) => throw Errors.unsupported(s"column '$column' of type ${s.sql} " +
        "(a Lance string has no collation, so the column would read back as STRING and compare differently); declare it " +
        "STRING (UTF8_BINARY) and compare with collate(...) in queries", where)
      case (st: StructType, _) => st.fields.foreach(f => checkDeclarable(f.dataType, f.metadata, s"$column.${f.name}", where))
      case (a: ArrayType, _) => checkDeclarable(a.elementType, Metadata.empty, s"$column.element", where)
      case (m: MapType, _) =>
        checkDeclarable(m.keyType, Metadata.empty, s"$column.key", where)
        checkDeclarable(m.valueType, Metadata.empty, s"$column.value", where)
      case _ => ()
    }
  }

  /** The field metadata key under which Spark keeps a CHAR(n) or VARCHAR(n) column's declared type. */
  private val CharVarcharKey = "__CHAR_VARCHAR_TYPE_STRING"

  private def checkDuplicates(s: StructType, path: String, where: String): Unit = {
    s.fields.groupBy(_.name.toLowerCase(java.util.Locale.ROOT)).valuesIterator.find(_.length > 1).foreach { same =>
      throw Errors.duplicateColumn(where, path + same(0).name, path + same(1).name)
    }
    s.fields.foreach(f => nestedStructs(f.dataType).foreach(checkDuplicates(_, s"$path${f.name}.", where)))
  }

  private def nestedStructs(dt: DataType): Seq[StructType] = dt match {
    case st: StructType => Seq(st)
    case a: ArrayType => nestedStructs(a.elementType)
    case m: MapType => nestedStructs(m.keyType) ++ nestedStructs(m.valueType)
    case _ => Nil
  }

  /** The Arrow schema of batches holding rows of `schema`. `where` names the write in errors. */
  def arrow(schema: StructType, where: String): Schema =
    new Schema(schema.fields.map(f => field(f, f.name, where)).toSeq.asJava)

  /**
   * The Lance schema `schema` is stored as: `arrow` with field ids, and dictionary-typed
   * columns (`dict:string:int32:false`) declared as such, which Arrow Java's schema cannot
   * carry without the dictionary itself (a dictionary field's type is its index type). Its
   * names pass [[checkNames]] and its types [[checkDeclarable]] first: every table schema we
   * create or extend (CREATE, CTAS, REPLACE, overwrite, ADD COLUMNS, mergeSchema) comes here.
   */
  def lance(schema: StructType, where: String): LanceSchema = {
    checkNames(schema, where)
    schema.fields.foreach(f => checkDeclarable(f.dataType, f.metadata, f.name, where))
    val base = LanceSchema.fromArrow(arrow(schema, where), where)
    base.copy(fields = base.fields.zip(schema.fields).map { case (lf, sf) => withDictionaries(lf, sf, where) })
  }

  /** The Arrow field of Spark field `sf`; `column` is its path for errors (`a.b` for a struct member). */
  def field(sf: StructField, column: String, where: String): Field = {
    val declared = declarations(sf, column, where)
    val f = node(sf.name, sf.dataType, sf.nullable, declared, "", column, where)
    vectorSize(sf, column, where) match {
      case None => f
      case Some(n) =>
        def mismatch(readsAs: Option[String]) =
          Errors.columnTypeMismatch(where, column, VectorSizeKey, s"fixed_size_list:<item>:$n", sf.dataType.simpleString, readsAs)
        f.getType match {
          case l: ArrowType.FixedSizeList => // declared by its logical type too: the two must agree
            if (l.getListSize != n) throw mismatch(Some(s"a vector of ${l.getListSize} by '${SparkArrow.LogicalTypeKey}'")); f
          case _: ArrowType.List => f.getChildren.get(0).getType match {
            case _: ArrowType.Int | _: ArrowType.FloatingPoint =>
              // Lance records no item nullability for fixed-size lists: their items read as nullable.
              val item = new Field("item", FieldType.nullable(f.getChildren.get(0).getType), java.util.Collections.emptyList[Field]())
              new Field(f.getName, new FieldType(f.isNullable, new ArrowType.FixedSizeList(n), null), java.util.Collections.singletonList(item))
            case _ => throw mismatch(Some("an array of fixed-width numbers"))
          }
          case _ => throw mismatch(Some("an array of fixed-width numbers"))
        }
    }
  }

  /** The logical type Spark type `dt` is written as when nothing is declared. */
  def naturalLogicalType(dt: DataType, where: String): String = dt match {
    case a: ArrayType => if (a.elementType.isInstanceOf[StructType]) "list.struct" else "list"
    case _ => LogicalType.of(new Field("value", FieldType.nullable(natural(dt, "value", where)), java.util.Collections.emptyList[Field]()), where)
  }

  /**
   * Checks that every non-null value of `source` stored as a fixed-size list in `target` (its
   * field in `arrow`) has the declared number of items. `source` is a batch column as Spark's
   * types build it (arrays as variable-size lists); the writer calls this on every batch before
   * converting it, at any depth (vectors in structs, arrays and maps).
   */
  def checkVectorSizes(source: FieldVector, target: Field, where: String): Unit =
    checkSizes(source, target, source.getName, where)

  private def checkSizes(v: ValueVector, t: Field, column: String, where: String): Unit = (v, t.getType) match {
    case (l: FixedSizeListVector, fsl: ArrowType.FixedSizeList) =>
      if (l.getListSize != fsl.getListSize && l.getValueCount > 0)
        throw Errors.vectorDimensionMismatch(where, column, 0, l.getListSize, fsl.getListSize)
      checkSizes(l.getDataVector, t.getChildren.get(0), s"$column.element", where)
    case (l: BaseListVector, fsl: ArrowType.FixedSizeList) =>
      var i = 0
      while (i < l.getValueCount) {
        if (!l.isNull(i)) {
          val length = l.getElementEndIndex(i).toLong - l.getElementStartIndex(i)
          if (length != fsl.getListSize) throw Errors.vectorDimensionMismatch(where, column, i, length, fsl.getListSize)
        }
        i += 1
      }
      checkSizes(l.getChildrenFromFields.get(0), t.getChildren.get(0), s"$column.element", where)
    case (s: StructVector, _: ArrowType.Struct) =>
      t.getChildren.asScala.zipWithIndex.foreach { case (c, k) =>
        checkSizes(s.getChildByOrdinal(k), c, s"$column.${c.getName}", where)
      }
    case (m: BaseListVector, _: ArrowType.Map) =>
      val entries = t.getChildren.get(0)
      val e = m.getChildrenFromFields.get(0).asInstanceOf[StructVector]
      checkSizes(e.getChildByOrdinal(0), entries.getChildren.get(0), s"$column.key", where)
      checkSizes(e.getChildByOrdinal(1), entries.getChildren.get(1), s"$column.value", where)
    case (l: BaseListVector, _: ArrowType.List | _: ArrowType.LargeList) =>
      checkSizes(l.getChildrenFromFields.get(0), t.getChildren.get(0), s"$column.element", where)
    case _ => ()
  }

  private def sub(path: String, role: String): String = if (path.isEmpty) role else s"$path.$role"

  /** The places below a field whose types its own metadata declares: "" (itself), "element", "key", ... */
  private def paths(dt: DataType, path: String): Seq[String] = path +: (dt match {
    case a: ArrayType => paths(a.elementType, sub(path, "element"))
    case m: MapType => paths(m.keyType, sub(path, "key")) ++ paths(m.valueType, sub(path, "value"))
    case _ => Nil
  })

  /** The logical types `sf`'s metadata declares, by path; a key naming no place in its type is refused. */
  private def declarations(sf: StructField, column: String, where: String): Map[String, String] = {
    val keys = Json.parse(sf.metadata.json) match {
      case m: Map[_, _] => m.keys.collect { case k: String if k == SparkArrow.LogicalTypeKey || k.startsWith(SparkArrow.LogicalTypeKey + ".") => k }
      case _ => Nil
    }
    val valid = paths(sf.dataType, "").map(p => SparkArrow.logicalTypeKey(p) -> p).toMap
    keys.map { k =>
      val lt = text(sf.metadata, k)
      val path = valid.getOrElse(k, throw Errors.invalidColumnMetadata(where, column, k, lt.merge,
        s"a key naming a place in ${sf.dataType.simpleString}: one of ${valid.keys.toSeq.sorted.mkString(", ")}"))
      path -> lt.getOrElse(throw Errors.invalidColumnMetadata(where, column, k, lt.merge, "a Lance logical type string"))
    }.toMap
  }

  /** The string under `key` (Right), or how the value is written when it is not one (Left). */
  private def text(metadata: Metadata, key: String): Either[String, String] =
    try Right(metadata.getString(key)) catch {
      case _: ClassCastException =>
        Left(try metadata.getLong(key).toString catch { case _: ClassCastException => "a value that is neither a string nor a long" })
    }

  /** The declared dimension of vector field `sf`, if any: a positive long (or its decimal string). */
  private def vectorSize(sf: StructField, column: String, where: String): Option[Int] =
    if (!sf.metadata.contains(VectorSizeKey)) None
    else {
      val raw = text(sf.metadata, VectorSizeKey).merge
      Some(raw.toIntOption.filter(_ > 0).getOrElse(
        throw Errors.invalidColumnMetadata(where, column, VectorSizeKey, raw, "a positive vector dimension below 2^31")))
    }

  /** The Arrow field of Spark type `dt` at `path` below a field whose declarations are `declared`. */
  private def node(name: String, dt: DataType, nullable: Boolean, declared: Map[String, String], path: String,
      column: String, where: String): Field = {
    val at = if (path.isEmpty) column else s"$column.$path"
    lazy val children: java.util.List[Field] = dt match {
      case s: StructType => s.fields.map(f => field(f, s"$at.${f.name}", where)).toSeq.asJava
      case a: ArrayType => java.util.Collections.singletonList(node("item", a.elementType, a.containsNull, declared, sub(path, "element"), column, where))
      case m: MapType =>
        val key = node("key", m.keyType, false, declared, sub(path, "key"), column, where)
        val value = node("value", m.valueType, m.valueContainsNull, declared, sub(path, "value"), column, where)
        java.util.Collections.singletonList(new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), java.util.List.of(key, value)))
      case _ => java.util.Collections.emptyList[Field]()
    }
    declared.get(path) match {
      case None => new Field(name, new FieldType(nullable, natural(dt, at, where), null), children)
      case Some(lt) =>
        val key = SparkArrow.logicalTypeKey(path)
        val parsed = try LanceField(-1, name, lt, nullable, Map.empty, IndexedSeq.empty).toArrow(where) catch {
          case _: LanceException => throw Errors.invalidColumnMetadata(where, column, key, lt,
            "a Lance logical type (uint32, halffloat, large_string, fixed_size_list:float:128, timestamp:ns:UTC, ...)")
        }
        def mismatch(readsAs: Option[String]) = Errors.columnTypeMismatch(where, at, key, lt, dt.simpleString, readsAs)
        (parsed.getType, dt) match {
          // Containers take the declared kind (large_list, list.struct) and their members from Spark.
          case (_: ArrowType.List | _: ArrowType.LargeList, _: ArrayType) | (_: ArrowType.Struct, _: StructType) | (_: ArrowType.Map, _: MapType) =>
            new Field(name, new FieldType(nullable, parsed.getType, null), children)
          case (_: ArrowType.List | _: ArrowType.LargeList | _: ArrowType.Struct | _: ArrowType.Map, _) => throw mismatch(None)
          case _ =>
            // A scalar or fixed-size list type fits if Spark reads it as this column's type.
            // (As TIME only on lines that have it: compat.SparkTime.)
            val readsAs = (false +: Seq(true).filter(_ => SparkTime.supported)).map(timeType => SparkArrow.sparkType(SparkArrow.readable(parsed, timeType), where))
            if (readsAs.exists(t => shape(t) == shape(dt))) parsed else throw mismatch(Some(readsAs.head.simpleString))
        }
    }
  }

  /** `dt` without what a declaration need not match: nullability, metadata, collations, interval fields. */
  private[spark] def shape(dt: DataType): DataType = dt match {
    case a: ArrayType => ArrayType(shape(a.elementType), containsNull = true)
    case m: MapType => MapType(shape(m.keyType), shape(m.valueType), valueContainsNull = true)
    case s: StructType => StructType(s.fields.map(f => StructField(f.name, shape(f.dataType))))
    case _: StringType => StringType
    case _: DayTimeIntervalType => DayTimeIntervalType()
    case other => other
  }

  /** The natural Arrow type of Spark type `dt` (one level: containers get their members elsewhere). */
  private def natural(dt: DataType, column: String, where: String): ArrowType = dt match {
    case BooleanType => ArrowType.Bool.INSTANCE
    case ByteType => new ArrowType.Int(8, true)
    case ShortType => new ArrowType.Int(16, true)
    case IntegerType => new ArrowType.Int(32, true)
    case LongType => new ArrowType.Int(64, true)
    case FloatType => new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)
    case DoubleType => new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)
    case _: StringType => ArrowType.Utf8.INSTANCE
    case BinaryType => ArrowType.Binary.INSTANCE
    case d: DecimalType => new ArrowType.Decimal(d.precision, d.scale, 128)
    case DateType => new ArrowType.Date(DateUnit.DAY)
    // Spark's timestamps are instants in microseconds; UTC is the zone-free way to say so.
    case TimestampType => new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")
    case TimestampNTZType => new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)
    case _: DayTimeIntervalType => new ArrowType.Duration(TimeUnit.MICROSECOND)
    // TIME(p) has at most microsecond precision (p <= 6).
    case SparkTime() => new ArrowType.Time(TimeUnit.MICROSECOND, 64)
    case NullType => ArrowType.Null.INSTANCE
    case _: ArrayType => ArrowType.List.INSTANCE
    case _: MapType => new ArrowType.Map(false)
    case _: StructType => ArrowType.Struct.INSTANCE
    case other => throw Errors.unsupported(s"column '$column' of Spark type ${other.simpleString} in a Lance table", where)
  }

  /** `lf` (from `arrow`) with the dictionary types `sf`'s metadata declares restored. */
  private def withDictionaries(lf: LanceField, sf: StructField, where: String): LanceField =
    restore(lf, sf.dataType, declarations(sf, sf.name, where), "", where)

  private def restore(lf: LanceField, dt: DataType, declared: Map[String, String], path: String, where: String): LanceField = {
    val logicalType = declared.get(path).filter(_.startsWith("dict:")).getOrElse(lf.logicalType)
    val children = (dt, lf.children) match {
      case (s: StructType, cs) => cs.zip(s.fields).map { case (c, f) => withDictionaries(c, f, where) }
      case (a: ArrayType, IndexedSeq(item)) => IndexedSeq(restore(item, a.elementType, declared, sub(path, "element"), where))
      case (m: MapType, IndexedSeq(entries)) if entries.children.length == 2 =>
        IndexedSeq(entries.copy(children = IndexedSeq(
          restore(entries.children(0), m.keyType, declared, sub(path, "key"), where),
          restore(entries.children(1), m.valueType, declared, sub(path, "value"), where))))
      case (_, cs) => cs
    }
    lf.copy(logicalType = logicalType, children = children)
  }
}
