package io.sparklance.spark.dml

import org.apache.spark.sql.catalyst.plans.logical.WriteDelta
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{DeltaWrite, DeltaWriteBuilder, LogicalWriteInfo, RowLevelOperation, SupportsDelta}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.spark.compat.ReinsertedRows
import io.sparklance.spark.{LanceScanBuilder, LanceTable}
import io.sparklance.table.MetadataColumn

/**
 * DELETE, UPDATE and MERGE INTO a Lance table, the Lance way: rows are addressed by `_rowaddr`
 * and never rewritten in place. Deleted rows get deletion files (fragments whose rows all go
 * are dropped); updated rows are deleted and written again in new fragments, as Lance's
 * Update with REWRITE_ROWS does; inserted rows go to new fragments. Spark reads the rows the
 * condition selects through the table's own scan (the condition pushed down prunes fragments
 * and zones first) at the version the statement loaded, which is the commit's read version.
 */
final class LanceRowLevelOperation(val table: LanceTable, command: Command) extends SupportsDelta {
  private var scan: Option[LanceScanBuilder] = None

  override def command(): Command = command

  override def description(): String = s"Lance ${command.name()} on ${table.name()}"

  /**
   * UPDATE and MERGE read every column of the rows they change, so a first query reading
   * only the condition's columns to find the fragments involved pays off; a DELETE reads only
   * the condition's columns itself, and a scan that gets the source's keys is narrowed by them
   * (see [[LanceScan]]).
   */
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    val b = new LanceScanBuilder(table, fragmentFilter = readsFragmentIds && !prunedBySourceKeys)
    scan = Some(b)
    b
  }

  override def rowId(): Array[NamedReference] = Array(Expressions.column(MetadataColumn.RowAddress.name))

  // An updated row moves to a new fragment: Spark 4 hands it as a delete and a reinsert,
  // Spark 3.5 whole (compat.ReinsertedRows).
  override def representUpdateAsDeleteAndInsert(): Boolean = ReinsertedRows.updateAsDeleteAndInsert

  /** Set by [[SourceKeyPruning]] when the scan gets the source's keys at run time. */
  @volatile private[dml] var prunedBySourceKeys = false

  /** The target columns a MERGE's ON condition equates with the source ([[MergeOnColumns]]), lower case. */
  @volatile private[dml] var onColumns: Set[String] = Set.empty

  /** Fixed at analysis, when Spark asks for the metadata columns; the rule runs later. */
  private def readsFragmentIds: Boolean = command != Command.DELETE

  /**
   * On a table with stable row ids an updated row keeps its id: Spark passes `_rowid` along
   * with it (first, where the writer looks for it). The scans narrowed by fragment read
   * `_fragid` too, which Spark's runtime query must find in the scan's output.
   */
  override def requiredMetadataAttributes(): Array[NamedReference] =
    (if (table.snapshot.manifest.stableRowIds) Array(Expressions.column(MetadataColumn.RowId.name))
    else Array.empty[NamedReference]) ++
      (if (readsFragmentIds) Array(Expressions.column(MetadataColumn.FragmentId.name)) else Array.empty[NamedReference])

  override def newWriteBuilder(info: LogicalWriteInfo): DeltaWriteBuilder = new DeltaWriteBuilder {
    override def build(): DeltaWrite = LanceDeltaWrite.plan(table, command, info, scan.map(_.pushedSql).getOrElse(""), onColumns)
  }
}

object LanceRowLevelOperation {
  /**
   * The read relation of a Lance row-level operation's rewritten plan, with the operation. The
   * table written is Spark's RowLevelOperationTable (package-private), a case class holding it.
   */
  def in(w: WriteDelta): Option[(DataSourceV2Relation, LanceRowLevelOperation)] = w.table match {
    case written: DataSourceV2Relation => written.table match {
      case table: Product => table.productIterator.collectFirst { case op: LanceRowLevelOperation => op }.flatMap { op =>
        w.query.collectFirst { case r: DataSourceV2Relation if r.table eq written.table => r }.map(_ -> op)
      }
      case _ => None
    }
    case _ => None
  }
}
