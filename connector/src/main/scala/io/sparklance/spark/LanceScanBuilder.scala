package io.sparklance.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.expressions.aggregate.{Aggregation, CountStar}
import org.apache.spark.sql.connector.read.{LocalScan, Scan, ScanBuilder, SupportsPushDownAggregates, SupportsPushDownFilters, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{ArrayType, DataType, LongType, MapType, StructField, StructType}

import io.sparklance.format.LanceField
import io.sparklance.table.MetadataColumn

/**
 * Collects what Spark pushes down and builds the scan. Column pruning reaches into nested
 * fields: only the struct members Spark asks for are read (their leaves own the columns).
 */
final class LanceScanBuilder(table: LanceTable)
    extends ScanBuilder with SupportsPushDownRequiredColumns with SupportsPushDownAggregates with SupportsPushDownFilters {
  private var required: StructType = table.schema()
  private var countStar = false
  private var pushed: Array[Filter] = Array.empty
  private var predicate: Option[io.sparklance.table.expr.Expr] = None

  /**
   * Filters that translate are used to prune fragments and zones with statistics; all of
   * them are handed back, since statistics only say which rows may match.
   */
  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    val translated = filters.flatMap(f => SparkFilters.toExpr(f, table.schema()).map(f -> _))
    pushed = translated.map(_._1)
    predicate = translated.map(_._2).reduceOption(io.sparklance.table.expr.Expr.And)
    filters
  }

  override def pushedFilters(): Array[Filter] = pushed

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

  private def isCountStar(agg: Aggregation): Boolean =
    agg.groupByExpressions().isEmpty && agg.aggregateExpressions().toSeq.forall(_.isInstanceOf[CountStar]) &&
      agg.aggregateExpressions().nonEmpty

  override def supportCompletePushDown(agg: Aggregation): Boolean = isCountStar(agg) && countFromManifest.isDefined

  override def pushAggregation(agg: Aggregation): Boolean = {
    countStar = isCountStar(agg) && countFromManifest.isDefined
    countStar
  }

  override def build(): Scan = {
    if (countStar) return new LanceCountScan(table.snapshot.root, table.snapshot.version, countFromManifest.get)
    val byName = table.snapshot.manifest.schema.fields.map(f => f.name -> f).toMap
    val (meta, data) = required.fields.toIndexedSeq.partition(f => !byName.contains(f.name) && MetadataColumn.byName(f.name).isDefined)
    val fields = data.map(f => LanceScanBuilder.prune(byName(f.name), f.dataType))
    val metadata = meta.map(f => MetadataColumn.byName(f.name).get)
    val where = table.snapshot.manifestPath
    val schema = StructType(fields.map(f => SparkArrow.sparkField(f.toArrow(where), where)) ++
      metadata.map(m => StructField(m.name, LongType, nullable = false)))
    new LanceScan(table, fields, metadata, schema, predicate, pushed.toSeq)
  }
}

object LanceScanBuilder {
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

/** COUNT(*) answered from the manifest, on the driver, reading no data file. */
final class LanceCountScan(root: String, version: Long, count: Long) extends LocalScan {
  override def rows(): Array[InternalRow] = Array(InternalRow(count))
  override def readSchema(): StructType = StructType(Seq(StructField("count(*)", LongType, nullable = false)))
  override def description(): String = s"LanceCountScan $root version=$version count=$count (from the manifest)"
}
