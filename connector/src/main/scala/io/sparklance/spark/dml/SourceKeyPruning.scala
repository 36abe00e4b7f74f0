package io.sparklance.spark.dml

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.planning.ExtractEquiJoinKeys
import org.apache.spark.sql.catalyst.plans.{Inner, JoinType, LeftOuter, LeftSemi, RightOuter}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, Join, LogicalPlan, WriteDelta}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

import io.sparklance.spark.{SessionSettings, SparkFilters}
import io.sparklance.spark.compat.DynamicPruning
import io.sparklance.table.{BTreeIndex, BitmapIndex, ZoneMapIndex}

/**
 * Prunes the target of a MERGE INTO (or of an UPDATE/DELETE whose condition is a join) by the
 * source's keys, before any target row is read: for an equality `target.k = source.e` of the
 * ON condition, Spark computes the source's distinct keys first and hands them to the target's
 * scan as `k IN (...)` (Spark's dynamic pruning, which on its own prunes only where the source
 * has a selective filter), so that zone maps and BTREE/BITMAP indices on `k` skip every
 * fragment and zone holding none of them. A MERGE of a few keys then reads a few zones of a
 * large table instead of all of it.
 *
 * Only where skipping unmatched target rows cannot change the result: the target must not be
 * a preserved side of the join (no WHEN NOT MATCHED BY SOURCE clause); and only on a key
 * column with a ZONEMAP, BTREE or BITMAP index, the statistics that can use the keys. The source is computed
 * once more for its keys (unless Spark reuses its broadcast), so sources larger than
 * `spark.sql.lance.sourceKeyPruning.maxSourceBytes` (estimated; 256 MiB by default, -1 turns
 * the rule off) are left alone. With the keys at hand the scan does not also ask for Spark's
 * runtime query by fragment ([[LanceRowLevelOperation]]).
 *
 * Runs before Spark pushes filters into scans (an optimizer rule injected by [[io.sparklance.spark.LanceExtensions]]).
 */
final case class SourceKeyPruning(session: SparkSession) extends Rule[LogicalPlan] {
  import SourceKeyPruning._

  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    case w: WriteDelta if maxSourceBytes >= 0 => LanceRowLevelOperation.in(w) match {
      case Some((relation, operation)) if !operation.prunedBySourceKeys =>
        var pruned = false
        val query = w.query.transformUp {
          case j: Join if !pruned => prune(j, relation, operation).map { p => pruned = true; p }.getOrElse(j)
        }
        if (pruned) { operation.prunedBySourceKeys = true; w.withNewQuery(query) } else w
      case _ => w
    }
    case other => other
  }

  private def maxSourceBytes: Long =
    SessionSettings.long(session, MaxSourceBytes, DefaultMaxSourceBytes, min = -1)

  private def prune(join: Join, relation: DataSourceV2Relation, operation: LanceRowLevelOperation): Option[Join] = join match {
    case ExtractEquiJoinKeys(joinType, leftKeys, rightKeys, _, _, left, right, _) =>
      val onLeft = left.exists(_ eq relation)
      val onRight = !onLeft && right.exists(_ eq relation)
      val (targetKeys, sourceKeys, source) = if (onLeft) (leftKeys, rightKeys, right) else (rightKeys, leftKeys, left)
      val key = targetKeys.indices.find(i => targetKeys(i) match {
        case a: Attribute => relation.outputSet.contains(a) && SparkFilters.takesRuntimeValues(a.dataType) && indexed(operation.table, a.name)
        case _ => false
      })
      if (!(onLeft && prunableLeft(joinType) || onRight && prunableRight(joinType)) || key.isEmpty) None
      else {
        val built = session.sessionState.optimizer.execute(source)
        if (built.stats.sizeInBytes > BigInt(maxSourceBytes)) None
        else {
          val i = key.get
          val filter = DynamicPruning.filter(targetKeys(i), built, sourceKeys(i))
          val narrowed: LogicalPlan => LogicalPlan = _.transformUp { case r if r eq relation => Filter(filter, r) }
          Some(if (onLeft) join.copy(left = narrowed(left)) else join.copy(right = narrowed(right)))
        }
      }
    case _ => None
  }
}

object SourceKeyPruning {
  val MaxSourceBytes = "spark.sql.lance.sourceKeyPruning.maxSourceBytes"
  val DefaultMaxSourceBytes: Long = 256L << 20

  /**
   * Whether a ZONEMAP, BTREE or BITMAP index on top-level `column` can prune by its values;
   * without one the keys would prune nothing, and Spark's runtime query by fragment is better.
   */
  private def indexed(table: io.sparklance.spark.LanceTable, column: String): Boolean = {
    val m = table.snapshot.manifest
    m.schema.fields.find(_.name == column).exists { f =>
      m.indices.exists(i => i.fields == IndexedSeq(f.id) && PruningKinds.contains(i.kind))
    }
  }

  private val PruningKinds = Set(ZoneMapIndex.Kind, BTreeIndex.Kind, BitmapIndex.Kind)

  // The target's rows that match no source key may be skipped only on a side the join does not preserve.
  private def prunableLeft(t: JoinType): Boolean = t == Inner || t == LeftSemi || t == RightOuter
  private def prunableRight(t: JoinType): Boolean = t == Inner || t == LeftOuter
}
