package io.sparklance.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import io.sparklance.spark.maintenance.Compaction
import io.sparklance.table.maintenance.CompactionOptions

/**
 * `CALL <catalog>.system.compact(table => ..., target_rows_per_fragment => 1048576,
 * max_rows_per_group => 1024, materialize_deletions => true, materialize_deletions_threshold => 0.1)`:
 * pylance's `compact_files` from Spark ([[Compaction]]). One row: the fragments and files removed
 * and added, the live rows rewritten, and the version committed (the version compacted when no
 * fragment qualified and nothing was committed).
 */
final class CompactProcedure(context: ProcedureContext) extends LanceProcedure(context) {
  import LanceProcedure._

  private val defaults = CompactionOptions()

  override protected def params: Seq[Param] = Seq(
    TableParam,
    optional("target_rows_per_fragment", LongType, "rows per new fragment; smaller fragments are compacted", defaults.targetRowsPerFragment.toString),
    optional("max_rows_per_group", IntegerType, "rows read and written per batch", defaults.maxRowsPerGroup.toString),
    optional("materialize_deletions", BooleanType, "rewrite fragments with many deleted rows", defaults.materializeDeletions.toString),
    optional("materialize_deletions_threshold", DoubleType, "the deleted share of a fragment's rows that makes it rewritten",
      defaults.materializeDeletionsThreshold.toString))

  override def output: StructType = new StructType()
    .add("fragments_removed", IntegerType, nullable = false)
    .add("fragments_added", IntegerType, nullable = false)
    .add("files_removed", IntegerType, nullable = false)
    .add("files_added", IntegerType, nullable = false)
    .add("rows", LongType, nullable = false)
    .add("version", LongType, nullable = false)

  override protected def run(args: ProcedureArgs): Seq[InternalRow] = {
    val options = CompactionOptions(
      args.long("target_rows_per_fragment").getOrElse(defaults.targetRowsPerFragment),
      args.int("max_rows_per_group").getOrElse(defaults.maxRowsPerGroup),
      args.boolean("materialize_deletions").getOrElse(defaults.materializeDeletions),
      args.double("materialize_deletions_threshold").getOrElse(defaults.materializeDeletionsThreshold))
    val r = Compaction.run(args.table(), options)
    Seq(InternalRow(r.fragmentsRemoved, r.fragmentsAdded, r.filesRemoved, r.filesAdded, r.rows, r.version))
  }
}
