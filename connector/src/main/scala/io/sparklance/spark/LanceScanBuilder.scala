package io.sparklance.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.expressions.NamedReference
import org.apache.spark.sql.connector.expressions.aggregate.{AggregateFunc, Aggregation, CountStar, Max, Min}
import org.apache.spark.sql.connector.read.{LocalScan, Scan, ScanBuilder, SupportsPushDownAggregates, SupportsPushDownFilters, SupportsPushDownLimit, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types._

import io.sparklance.format.LanceField
import io.sparklance.table.{BlobFetch, ColumnBounds, ExactBounds, MetadataColumn}
import io.sparklance.util.Redaction

/**
 * Collects what Spark pushes down and builds the scan. Column pruning reaches into nested
 * fields: only the struct members Spark asks for are read (their leaves own the columns).
 * `fragmentFilter` builds a scan Spark may narrow to fragments at run time (see [[LanceScan]]);
 * `driverLookups` lets a point look-up be read on the driver ([[LanceDriverScan]]), for queries.
 */
final class LanceScanBuilder(table: LanceTable, fragmentFilter: Boolean = false, driverLookups: Boolean = false)
    extends ScanBuilder with SupportsPushDownRequiredColumns with SupportsPushDownAggregates with SupportsPushDownFilters
    with SupportsPushDownLimit {
  private var required: StructType = table.schema()
  private var aggregate: Option[LanceAggregateScan] = None
  private var limit: Option[Long] = None
  private var pushed: Array[Filter] = Array.empty
  private var predicate: Option[io.sparklance.table.expr.Expr] = None

  /**
   * Filters that translate are used to prune fragments and zones with statistics and to
   * look rows up in scalar indices; all of them are handed back, since statistics only say
   * which rows may match and fragments no index covers are read whole.
   */
  override def pushFilters(filters: Array[Filter]): Array[Filter] = LanceSparkException.boundary {
    val translated = filters.flatMap(f => SparkFilters.toExpr(f, table.schema()).map(f -> _))
    pushed = translated.map(_._1)
    predicate = translated.map(_._2).reduceOption(io.sparklance.table.expr.Expr.And)
    filters
  }

  override def pushedFilters(): Array[Filter] = pushed

  /** The filters pushed so far, in SQL (what a Delete transaction records as its predicate). */
  def pushedSql: String = pushed.map(SparkFilters.sql).mkString(" AND ")

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  /**
   * COUNT(*) with no grouping is answered from the manifest: physical rows minus each
   * deletion file's recorded count, without opening a data file. Old deletion files that
   * did not record their count make the count unknown, and Spark counts the rows instead.
   */
  private def countFromManifest: Option[Long] = {
    val fragments = table.snapshot.manifest.fragments
    if (fragments.exists(f => f.physicalRows <= 0 || f.deletionFile.exists(_.numDeletedRows <= 0))) None
    else Some(fragments.iterator.map(_.liveRows).sum)
  }

  private val boundsCache = scala.collection.mutable.Map.empty[String, Option[ColumnBounds]]

  /** MIN/MAX of a top-level column, when a zone map makes them exact. */
  private def bounds(column: String): Option[ColumnBounds] = boundsCache.getOrElseUpdate(column,
    table.snapshot.manifest.schema.fields.find(_.name == column)
      .flatMap(f => ExactBounds.fromZoneMap(table.stores.create(), table.snapshot, f)))

  /**
   * An aggregation with no grouping whose every function is known without reading rows:
   * COUNT(*) from the manifest, MIN and MAX of a column from an exact zone map.
   */
  private def answer(agg: Aggregation): Option[LanceAggregateScan] = {
    val funcs = agg.aggregateExpressions().toSeq
    if (!agg.groupByExpressions().isEmpty || funcs.isEmpty) return None
    def column(f: AggregateFunc): Option[String] = f.children().toSeq match {
      case Seq(r: NamedReference) if r.fieldNames().length == 1 => Some(r.fieldNames()(0))
      case _ => None
    }
    def extreme(f: AggregateFunc, name: String, pick: ColumnBounds => Option[Any]): Option[(StructField, Any)] =
      for {
        c <- column(f)
        b <- bounds(c)
        dataType <- table.schema().find(_.name == c).map(_.dataType)
      } yield (StructField(s"$name($c)", dataType), pick(b).map(LanceScanBuilder.internal(_, dataType)).orNull)
    val answered = funcs.map {
      case _: CountStar => countFromManifest.map(n => (StructField("count(*)", LongType, nullable = false), n: Any))
      case m: Min => extreme(m, "min", _.min)
      case m: Max => extreme(m, "max", _.max)
      case _ => None
    }
    if (answered.exists(_.isEmpty)) None
    else {
      val (fields, values) = answered.flatten.unzip
      Some(new LanceAggregateScan(table.snapshot.root, table.snapshot.version, StructType(fields), values))
    }
  }

  override def supportCompletePushDown(agg: Aggregation): Boolean = LanceSparkException.boundary(answer(agg).isDefined)

  override def pushAggregation(agg: Aggregation): Boolean = LanceSparkException.boundary {
    aggregate = answer(agg)
    aggregate.isDefined
  }

  /** Spark pushes a LIMIT only when no filter is left to apply after the scan. */
  override def pushLimit(n: Int): Boolean = {
    limit = Some(n.toLong)
    true
  }

  override def build(): Scan = LanceSparkException.boundary(aggregate.getOrElse {
    val scan = buildScan()
    val maxRows = SessionSettings.long(org.apache.spark.sql.SparkSession.active, LanceDriverScan.MaxRows, LanceDriverScan.DefaultMaxRows, min = 0)
    if (driverLookups && maxRows > 0 && scan.lookupOfAtMost(maxRows)) new LanceDriverScan(scan) else scan
  })

  private def buildScan(): LanceScan = {
    val byName = table.snapshot.manifest.schema.fields.map(f => f.name -> f).toMap
    val (meta, data) = required.fields.toIndexedSeq.partition(f => !byName.contains(f.name) && MetadataColumn.byName(f.name).isDefined)
    val fields = data.map(f => LanceScanBuilder.prune(byName(f.name), f.dataType))
    val metadata = meta.map(f => MetadataColumn.byName(f.name).get)
    val where = table.snapshot.manifestPath
    val schema = StructType(fields.map(f => SparkArrow.sparkField(BlobFetch.arrowField(f, table.blobs, where), where, table.timeType, Some(f))) ++
      metadata.map(m => StructField(m.name, LongType, nullable = false)))
    new LanceScan(table, fields, metadata, schema, predicate, pushed.toSeq, limit, fragmentFilter)
  }
}

object LanceScanBuilder {
  /**
   * A zone-map bound (Long for integers, dates and timestamps in microseconds; Double for
   * floats) as Spark's internal value of `dataType`, the Spark type of its column.
   */
  private def internal(bound: Any, dataType: DataType): Any = (bound, dataType) match {
    case (n: Number, ByteType) => n.byteValue
    case (n: Number, ShortType) => n.shortValue
    case (n: Number, IntegerType | DateType) => Math.toIntExact(n.longValue)
    case (n: Number, LongType | TimestampType | TimestampNTZType) => n.longValue
    case (n: Number, FloatType) => n.floatValue
    case (n: Number, DoubleType) => n.doubleValue
    case _ => throw new IllegalStateException(s"no exact bound of Spark type $dataType")
  }

  /** `field` keeping only the nested members present in Spark's `required` type. */
  def prune(field: LanceField, required: DataType): LanceField = (required, field) match {
    case (s: StructType, f) if f.isStruct && f.columnsOwnedByLeaves =>
      val keep = s.fields.map(_.name).toSet
      f.copy(children = f.children.filter(c => keep.contains(c.name)).map(c => prune(c, s(c.name).dataType)))
    case (ArrayType(elem, _), f) if f.isList => f.copy(children = f.children.map(prune(_, elem)))
    case (MapType(_, _, _), f) => f
    case _ => field
  }
}

/**
 * An aggregation answered on the driver from metadata alone (COUNT(*) from the manifest,
 * MIN/MAX from exact zone maps): one row, no data file opened.
 */
final class LanceAggregateScan(root: String, version: Long, schema: StructType, values: Seq[Any]) extends LocalScan {
  override def rows(): Array[InternalRow] = Array(InternalRow.fromSeq(values))
  override def readSchema(): StructType = schema
  override def description(): String =
    s"LanceAggregateScan ${Redaction(root)} version=$version ${schema.fieldNames.zip(values).map { case (n, v) => s"$n=$v" }.mkString(" ")} (from metadata)"
}
