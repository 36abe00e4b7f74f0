package io.sparklance.table.commit

import io.sparklance.table.commit.Operation._
import io.sparklance.util.ScalaCompat._

// Spec: lance-format/lance rust/lance/src/io/commit/conflict_resolver.rs, as of commit 01dd0bc
// (newer than the July 2026 mirror 5ba1e20: it adds DataOverlay, the nullability pre-check and
// the index-identity checks of CreateIndex), and rust/lance/src/dataset/transaction.rs
// (upsert_key_conflict, modifies_same_metadata). Where a Rust rule needs what only the
// committing process knows (the rows a delete affected, an in-memory fragment-reuse index,
// MemWAL index details), these rules take the answer Rust gives without it: a retryable
// conflict, never a silent rebase. The rows a delete or update deleted are the committer's to
// know: two of them in the same fragments get RebaseDeletions, which it turns into a rebase
// when it has those rows ([[DeletionRebase]]) and into a retryable conflict when it has not.

/** What a transaction already committed means for ours. */
sealed trait Verdict
object Verdict {
  /** Ours still applies on top of it (rebased: built on the newer manifest). */
  case object Compatible extends Verdict
  /**
   * Ours applies on top of it as `operation`: Lance adjusts some transactions while it checks
   * them (conflict_resolver.rs, check_create_index_txn over an Update prunes the new indices).
   */
  final case class Rebased(operation: Operation) extends Verdict
  /** Ours must be redone from the newer version (the write re-read). */
  final case class Retryable(why: String) extends Verdict
  /** The two cannot both apply. */
  final case class Incompatible(why: String) extends Verdict

  /**
   * Both deleted rows of the same fragments: ours applies if it can be rebased with the rows it
   * deleted in hand (conflict_resolver.rs, rebase of deletion vectors), else it is retryable.
   */
  final case class RebaseDeletions(why: String) extends Verdict
}

/**
 * Lance's conflict rules as data: one row per operation being committed ("mine"), one rule
 * per operation committed since its read version ("theirs"); a row's default covers the
 * operations it does not name.
 */
object ConflictRules {
  import Verdict._

  type Rule = (Operation, Operation) => Verdict

  private val FragReuseIndex = "__lance_frag_reuse"
  private val MemWalIndex = "__lance_mem_wal"

  private val ok: Rule = (_, _) => Compatible
  private def retry(why: String): Rule = (_, _) => Retryable(why)
  private def incompatible(why: String): Rule = (_, _) => Incompatible(why)
  private val replaces: Rule = (_, t) => Incompatible(s"the ${t.name} replaced the table this transaction read")
  private val memWal: Rule = incompatible("MemWAL state changes do not rebase over data changes")

  /** The decision for `mine` against `theirs`, committed after mine's read version. */
  def check(mine: Operation, theirs: Operation): Verdict =
    preCheck(mine, theirs).getOrElse {
      val (default, row) = rows.getOrElse(mine.productPrefix, (ok, Map.empty[String, Rule]))
      theirs match {
        case Unknown(n) => Incompatible(s"it is an operation (number $n) this writer does not know")
        case _ => row.getOrElse(theirs.productPrefix, default)(mine, theirs)
      }
    }

  // Both orders: a change of nullability was checked against the data of its read version
  // only, so rows written meanwhile may break it (conflict_resolver.rs, check_txn).
  private def preCheck(mine: Operation, theirs: Operation): Option[Verdict] =
    if ((mayAlterNullability(mine) && suppliesValues(theirs)) || (suppliesValues(mine) && mayAlterNullability(theirs)))
      Some(Retryable("one side changes the schema's nullability while the other writes values"))
    else if ((mine.isInstanceOf[Merge] && updatesSchemaOrFieldMetadata(theirs)) || (updatesSchemaOrFieldMetadata(mine) && theirs.isInstanceOf[Merge]))
      Some(Retryable("a merge carries a whole schema, which would drop the other side's metadata change"))
    else None

  private def mayAlterNullability(op: Operation): Boolean = op match {
    case p: Project => !p.preservesNullability
    case m: Merge => !m.preservesNullability
    case _ => false
  }

  private def suppliesValues(op: Operation): Boolean = op match {
    case _: Append | _: Update | _: DataReplacement | _: DataOverlay => true
    case _ => false
  }

  private def updatesSchemaOrFieldMetadata(op: Operation): Boolean = op match {
    case c: UpdateConfig => c.schemaMetadata.exists(_.changes) || c.fieldMetadata.values.exists(_.changes)
    case _ => false
  }

  // ---- facts the conditional rules look at -------------------------------------------------

  /** Fragments a transaction rewrites or removes (Rust's modified_fragment_ids). */
  private def modified(op: Operation): Set[Long] = op match {
    case d: Delete => (d.updatedFragments.map(_.id) ++ d.deletedFragmentIds).toSet
    case u: Update => (u.updatedFragments.map(_.id) ++ u.removedFragmentIds).toSet
    case r: Rewrite => r.groups.flatMap(_.oldFragmentIds).toSet
    case d: DataReplacement => d.replacements.map(_._1).toSet
    case d: DataOverlay => d.fragmentIds.toSet
    case m: Merge => m.fragmentIds.toSet
    case _ => Set.empty
  }

  private def upsertKeys(op: Operation): Set[String] = op match {
    case o: Overwrite => o.configUpserts.keySet
    case c: UpdateConfig => c.config.fold(Set.empty[String])(_.entries.collect { case (k, Some(_)) => k }.toSet)
    case _ => Set.empty
  }

  private def deleteKeys(op: Operation): Set[String] = op match {
    case c: UpdateConfig => c.config.fold(Set.empty[String])(_.entries.collect { case (k, None) => k }.toSet)
    case _ => Set.empty
  }

  /** One side upserts a config key the other upserts or deletes (transaction.rs, upsert_key_conflict). */
  private def upsertKeyConflict(a: Operation, b: Operation): Boolean =
    upsertKeys(a).exists(k => upsertKeys(b)(k) || deleteKeys(b)(k)) || upsertKeys(b).exists(k => deleteKeys(a)(k))

  private def modifiesSameMetadata(a: UpdateConfig, b: UpdateConfig): Boolean = {
    val tables = (a.tableMetadata, b.tableMetadata) match {
      case (Some(x), Some(y)) => x.replace || y.replace || x.entries.keySet.exists(y.entries.contains)
      case _ => false
    }
    tables || (a.schemaMetadata.isDefined && b.schemaMetadata.isDefined) || a.fieldMetadata.keySet.exists(b.fieldMetadata.contains)
  }

  private def overlapping(why: String)(a: Set[Long], b: Set[Long]): Verdict =
    if (a.exists(b)) Retryable(s"$why (fragments ${a.intersect(b).toSeq.sorted.mkString(", ")})") else Compatible

  /** Their change touches fragments mine modifies (for Delete, Update, Rewrite, DataReplacement mine). */
  private val touchesMine: Rule = (m, t) => overlapping(s"the ${t.name} changed fragments this transaction changes")(modified(m), modified(t))

  /** A delete or update touching the same fragments: Rust rebases only with the affected rows in hand. */
  private val deleteOverDelete: Rule = (m, t) => {
    val theirs = t match {
      case d: Delete => (d.updatedFragments.map(_.id) ++ d.deletedFragmentIds).toSet
      case u: Update => (u.updatedFragments.map(_.id) ++ u.removedFragmentIds).toSet
      case _ => Set.empty[Long]
    }
    val shared = modified(m).intersect(theirs)
    if (shared.isEmpty) Compatible
    else RebaseDeletions(s"the ${t.name} changed rows of fragments this transaction changes (fragments ${shared.toSeq.sorted.mkString(", ")})")
  }

  private def shardsConflict(committed: Seq[(String, Long)], mine: Seq[(String, Long)]): Verdict =
    committed.iterator.flatMap(c => mine.find(_._1 == c._1).map(m => (c, m))).nextOption() match {
      case Some(((shard, theirGen), (_, myGen))) =>
        if (theirGen >= myGen) Incompatible(s"MemWAL shard $shard was already merged up to generation $theirGen")
        else Retryable(s"MemWAL shard $shard was merged concurrently")
      case None => Compatible
    }

  private def indexNames(op: Operation): Set[String] = op match {
    case c: CreateIndex => c.newIndices.map(_.name).toSet
    case _ => Set.empty
  }

  /** A rewrite moved rows an index being created covers, or the index does not say what it covers. */
  private def indexOverRewrite(indices: CreateIndex, rewrite: Rewrite): Verdict = {
    val old = rewrite.groups.flatMap(_.oldFragmentIds).toSet
    val remapped = rewrite.rewrittenIndices.map(_.oldId).toSet
    // Lance (conflict_resolver.rs): an index the rewrite remapped that the other side replaces or drops.
    if (indices.removedIndices.exists(i => remapped(i.uuid))) Retryable("the compaction remapped an index that was replaced or dropped")
    else if (indices.newIndices.exists(_.fragments.isEmpty)) Retryable("an index being created does not record the fragments it covers")
    else if (indices.newIndices.exists(i => old.exists(id => i.fragments.get.contains(id.toInt))))
      Retryable("the rewrite moved rows the index covers")
    else Compatible
  }

  private val createIndexOverCreateIndex: Rule = {
    case (m: CreateIndex, t: CreateIndex) =>
      val mine = m.newIndices.map(_.name).toSet
      val theirs = t.newIndices.map(_.name).toSet
      val myRemoved = m.removedIndices.map(_.name).toSet
      val theirRemoved = t.removedIndices.map(_.name).toSet
      val regular = (mine -- Set(FragReuseIndex, MemWalIndex)).intersect(theirs)
      // An appended index segment next to a concurrent drop of that name, either way round.
      val appendDrop = mine.exists(n => !myRemoved(n) && theirRemoved(n)) || theirs.exists(n => !theirRemoved(n) && myRemoved(n))
      val sameSource = m.removedIndices.exists(r => t.removedIndices.exists(c => c.uuid == r.uuid &&
        (mine(r.name) || mine(c.name) || theirs(r.name) || theirs(c.name))))
      if ((mine(FragReuseIndex) && theirs(FragReuseIndex)) || (mine(MemWalIndex) && theirs(MemWalIndex)) || regular.nonEmpty || appendDrop || sameSource)
        Retryable("both transactions change the same index")
      else Compatible
    case _ => Compatible
  }

  private val fieldsOfNewIndices = (c: CreateIndex) => c.newIndices.flatMap(_.fields).toSet

  private val rows: Map[String, (Rule, Map[String, Rule])] = Map(
    "Append" -> (ok, Map(
      "Overwrite" -> replaces, "Restore" -> replaces, "UpdateMemWalState" -> memWal)),

    "Overwrite" -> (ok, Map(
      // Concurrent overwrites are retryable so that the user decides whether theirs still holds.
      "Overwrite" -> ((m, t) => if (upsertKeyConflict(m, t)) Incompatible("both set the same config keys")
        else Retryable("another overwrite committed first")),
      "UpdateConfig" -> ((m, t) => if (upsertKeyConflict(m, t)) Incompatible("both set the same config keys") else Compatible),
      "UpdateMemWalState" -> memWal)),

    "Delete" -> (ok, Map(
      "Rewrite" -> touchesMine, "DataReplacement" -> touchesMine,
      "Delete" -> deleteOverDelete, "Update" -> deleteOverDelete,
      "Merge" -> retry("a merge rewrote the fragment list"),
      "Overwrite" -> replaces, "Restore" -> replaces, "UpdateMemWalState" -> memWal)),

    "Update" -> (ok, Map(
      "Append" -> ((m, _) => m match {
        case u: Update if u.insertedRows.isDefined || u.insertsKeys => Retryable("appended rows may hold keys this merge-insert inserted")
        case _ => Compatible
      }),
      "Rewrite" -> touchesMine, "DataReplacement" -> touchesMine, "DataOverlay" -> touchesMine,
      "Delete" -> deleteOverDelete,
      "Update" -> ((m, t) => (m, t) match {
        // As Lance: keys recorded on both sides are compared; an update without them cannot be checked.
        case (Update(_, _, _, _, _, Some(mine), _, _), b: Update) => b.insertedRows match {
          case Some(theirs) if !mine.mayOverlap(theirs) => deleteOverDelete(m, t)
          case Some(_) => Retryable("both merge-inserts may have inserted the same keys")
          case None => Retryable("the other update wrote rows whose keys this merge-insert cannot check")
        }
        case (a: Update, b: Update) if a.insertsKeys && b.newFragments.nonEmpty =>
          Retryable("both may have inserted the same primary keys (this MERGE could not record its keys)")
        case _ => deleteOverDelete(m, t)
      }),
      "Merge" -> retry("a merge rewrote the fragment list"),
      "Overwrite" -> replaces, "Restore" -> replaces,
      "UpdateMemWalState" -> {
        case (u: Update, w: UpdateMemWalState) => shardsConflict(w.compactedShards, u.compactedShards)
        case _ => Compatible
      })),

    "CreateIndex" -> (ok, Map(
      "CreateIndex" -> createIndexOverCreateIndex,
      "Merge" -> ((m, _) => if (indexNames(m)(MemWalIndex)) Retryable("a merge changed the schema the MemWAL index checks") else Compatible),
      "Rewrite" -> {
        case (c: CreateIndex, r: Rewrite) => indexOverRewrite(c, r)
        case _ => Compatible
      },
      "DataReplacement" -> {
        case (c: CreateIndex, d: DataReplacement) =>
          if (d.replacements.exists(_._2.exists(fieldsOfNewIndices(c)))) Retryable("the replaced columns are indexed") else Compatible
        case _ => Compatible
      },
      // The update rewrote columns in place: the new indices stop covering its fragments
      // where they index a rewritten column, as the update did to the indices it found.
      "Update" -> {
        case (c: CreateIndex, u: Update) =>
          val pruned = IndexCoverage.withoutRewritten(c.newIndices, u.updatedFragments.map(_.id), u.fieldsModified)
          if (pruned == c.newIndices) Compatible else Rebased(c.copy(newIndices = pruned))
        case _ => Compatible
      },
      "UpdateMemWalState" -> ((m, _) => if (indexNames(m)(MemWalIndex)) Compatible else Incompatible("MemWAL state changed")),
      "Overwrite" -> replaces, "Restore" -> replaces)),

    "Rewrite" -> (ok, Map(
      "Delete" -> touchesMine, "Update" -> touchesMine, "DataOverlay" -> touchesMine,
      "Rewrite" -> touchesMine, "DataReplacement" -> touchesMine,
      "Merge" -> retry("a merge rewrote the fragment list"),
      "CreateIndex" -> {
        case (r: Rewrite, c: CreateIndex) =>
          if (indexNames(c)(FragReuseIndex)) {
            if (c.newIndices.length != 1 || c.removedIndices.length != 1) Incompatible("the fragment reuse index was committed with other indices")
            else Compatible
          } else indexOverRewrite(c, r)
        case _ => Compatible
      },
      "Overwrite" -> replaces, "Restore" -> replaces)),

    "Merge" -> (retry("the fragment list changed under the merge"), Map(
      "CreateIndex" -> ((_, t) => if (indexNames(t)(MemWalIndex)) Retryable("the MemWAL index was created") else Compatible),
      "ReserveFragments" -> ok, "Clone" -> ok, "UpdateConfig" -> ok, "UpdateBases" -> ok,
      "Overwrite" -> replaces, "Restore" -> replaces, "Project" -> incompatible("the schema was projected"),
      "UpdateMemWalState" -> memWal)),

    "Restore" -> (ok, Map("UpdateMemWalState" -> memWal)),

    "ReserveFragments" -> (ok, Map("Overwrite" -> replaces, "Restore" -> replaces)),

    "Project" -> (ok, Map(
      "Merge" -> retry("the schema changed"), "Project" -> retry("the schema changed"),
      "Overwrite" -> replaces, "Restore" -> replaces, "UpdateMemWalState" -> memWal)),

    "UpdateConfig" -> (ok, Map(
      "Overwrite" -> {
        case (c: UpdateConfig, o) =>
          if (c.schemaMetadata.isDefined || c.fieldMetadata.nonEmpty || upsertKeyConflict(c, o))
            Incompatible("the overwrite replaced the schema or config this update changes")
          else Compatible
        case _ => Compatible
      },
      "UpdateConfig" -> {
        case (a: UpdateConfig, b: UpdateConfig) =>
          if (upsertKeyConflict(a, b) || modifiesSameMetadata(a, b)) Incompatible("both change the same keys") else Compatible
        case _ => Compatible
      })),

    "DataReplacement" -> (ok, Map(
      "Project" -> {
        case (d: DataReplacement, p: Project) =>
          d.replacements.find(_._2.exists(f => f >= 0 && !p.schemaFieldIds(f))) match {
            case Some((frag, _)) => Incompatible(s"a replaced column of fragment $frag was dropped")
            case None => Compatible
          }
        case _ => Compatible
      },
      "Merge" -> retry("a merge rewrote the fragment list"),
      "Delete" -> {
        case (d: DataReplacement, x: Delete) =>
          d.replacements.find(r => x.deletedFragmentIds.contains(r._1)).fold[Verdict](Compatible)(r => Incompatible(s"fragment ${r._1} was removed"))
        case _ => Compatible
      },
      "Update" -> {
        case (d: DataReplacement, u: Update) =>
          d.replacements.iterator.map { case (frag, fields) =>
            if (u.removedFragmentIds.contains(frag)) Incompatible(s"fragment $frag was removed")
            else if (!u.updatedFragments.exists(_.id == frag)) Compatible
            else if ((u.newFragments.nonEmpty && !u.rewriteColumns) || fields.exists(f => f >= 0 && u.fieldsModified.contains(f)))
              Retryable(s"rows or columns of fragment $frag were rewritten")
            else Compatible
          }.find(_ != Compatible).getOrElse(Compatible)
        case _ => Compatible
      },
      "CreateIndex" -> {
        case (d: DataReplacement, c: CreateIndex) =>
          if (d.replacements.exists(_._2.exists(fieldsOfNewIndices(c)))) Retryable("the replaced columns are indexed") else Compatible
        case _ => Compatible
      },
      "Rewrite" -> touchesMine,
      "DataReplacement" -> {
        case (a: DataReplacement, b: DataReplacement) =>
          if (a.replacements.exists { case (f, fs) => b.replacements.exists { case (g, gs) => f == g && fs.exists(gs.contains) } })
            Retryable("both replace the same columns of a fragment")
          else Compatible
        case _ => Compatible
      },
      "Overwrite" -> replaces, "Restore" -> replaces, "UpdateMemWalState" -> memWal)),

    "DataOverlay" -> (ok, Map(
      "Delete" -> {
        case (o: DataOverlay, d: Delete) => overlapping("overlaid fragments were removed")(o.fragmentIds.toSet, d.deletedFragmentIds.toSet)
        case _ => Compatible
      },
      // Rust checks a row-moving update row by row; without those rows, any shared fragment conflicts.
      "Update" -> {
        case (o: DataOverlay, u: Update) =>
          val touched = u.removedFragmentIds.toSet ++ (if (u.newFragments.nonEmpty && !u.rewriteColumns) u.updatedFragments.map(_.id) else Nil)
          overlapping("the update moved or removed overlaid rows")(o.fragmentIds.toSet, touched)
        case _ => Compatible
      },
      "Rewrite" -> touchesMine,
      "Merge" -> retry("a merge rewrote the fragment list"),
      "Overwrite" -> replaces, "Restore" -> replaces, "UpdateMemWalState" -> memWal)),

    "UpdateMemWalState" -> (incompatible("MemWAL state changes do not rebase over data changes"), Map(
      "UpdateMemWalState" -> {
        case (a: UpdateMemWalState, b: UpdateMemWalState) => shardsConflict(b.compactedShards, a.compactedShards)
        case _ => Compatible
      },
      "Update" -> {
        case (a: UpdateMemWalState, u: Update) => shardsConflict(u.compactedShards, a.compactedShards)
        case _ => Compatible
      },
      // Rust compares the shards inside the MemWAL index's details, which are not parsed here.
      "CreateIndex" -> ((_, t) => if (indexNames(t)(MemWalIndex)) Retryable("the MemWAL index changed") else Compatible),
      "UpdateConfig" -> ok, "Rewrite" -> ok, "ReserveFragments" -> ok, "UpdateBases" -> ok)),

    "Clone" -> (ok, Map.empty),

    "UpdateBases" -> (ok, Map(
      "UpdateBases" -> {
        case (a: UpdateBases, b: UpdateBases) =>
          val clash = a.newBases.exists(n => b.newBases.exists(c =>
            (n.id != 0 && n.id == c.id) || (n.name.isDefined && n.name == c.name) || n.path == c.path))
          if (clash) Incompatible("both add a base path with the same id, name or path") else Compatible
        case _ => Compatible
      })))
}
