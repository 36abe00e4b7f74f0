package io.sparklance.table.commit

import io.sparklance.format.LanceSchema
import io.sparklance.table.{BasePath, Fragment, IndexMetadata}
import io.sparklance.util.ScalaCompat._

// Spec: protos/lance/transaction.proto and lance-format/lance rust/lance/src/dataset/transaction.rs
// (Operation). What one Lance transaction did. Append and Overwrite are what this project
// commits; the other operations are read from transactions other writers committed, with
// what Lance's conflict rules look at ([[ConflictRules]]), so that a commit can decide whether
// it may rebase onto them. Later issues give them a write side.

sealed trait Operation extends Product {
  /** Lance's name of the operation, as its errors and `lance.debug` print it. */
  def name: String = productPrefix
}

object Operation {

  /** New fragments (ids 0 = assigned at commit) added to the table. */
  final case class Append(fragments: IndexedSeq[Fragment]) extends Operation

  /**
   * A new table content and schema (also how a table is created). `configUpserts` are
   * written into the table config; the fragments get ids from 0.
   */
  final case class Overwrite(fragments: IndexedSeq[Fragment], schema: LanceSchema, configUpserts: Map[String, String] = Map.empty)
      extends Operation

  /** Rows deleted: fragments with new deletion files and fragments removed whole. */
  final case class Delete(updatedFragments: IndexedSeq[Fragment], deletedFragmentIds: IndexedSeq[Long], predicate: String)
      extends Operation

  /**
   * Rows updated or merge-inserted. `rewriteColumns`: columns rewritten in place (else rows
   * moved to `newFragments`); `insertedRows`: the keys a merge-insert on the primary key
   * inserted; `compactedShards`: MemWAL shards (id, generation) merged by this update.
   * `insertsKeys` is this writer's own, never stored: a MERGE that inserted rows into a table with
   * an unenforced primary key but could not record their keys (its ON condition is not on the
   * key, or the key's type is one Lance does not hash), which the conflict rules treat more
   * strictly than one with a filter.
   */
  final case class Update(
      removedFragmentIds: IndexedSeq[Long],
      updatedFragments: IndexedSeq[Fragment],
      newFragments: IndexedSeq[Fragment],
      fieldsModified: IndexedSeq[Int],
      rewriteColumns: Boolean,
      insertedRows: Option[KeyExistenceFilter],
      compactedShards: IndexedSeq[(String, Long)],
      insertsKeys: Boolean = false) extends Operation

  final case class CreateIndex(newIndices: IndexedSeq[IndexMetadata], removedIndices: IndexedSeq[IndexMetadata]) extends Operation

  /**
   * Compaction: each group's old fragments (as the writer read them) replaced by new ones, whose
   * ids are assigned at commit (0) or reserved before (pylance reserves them).
   */
  final case class Rewrite(groups: IndexedSeq[RewriteGroup], rewrittenIndices: IndexedSeq[RewrittenIndex] = IndexedSeq.empty) extends Operation

  /**
   * An index the compaction rewrote with its rows' new addresses (tables without stable row
   * ids): the index `oldId` of the version read is replaced by `newId`, the same index (name,
   * fields, dataset version) with new files, `details` (the details message's value) and
   * `indexVersion`, covering the rewritten groups' new fragments (transaction.proto, RewrittenIndex).
   */
  final case class RewrittenIndex(oldId: String, newId: String, kind: String, details: ArraySeq[Byte],
      indexVersion: Int, fileSizes: Map[String, Long])
  final case class RewriteGroup(oldFragments: IndexedSeq[Fragment], newFragments: IndexedSeq[Fragment]) {
    def oldFragmentIds: IndexedSeq[Long] = oldFragments.map(_.id)
    def newFragmentIds: IndexedSeq[Long] = newFragments.map(_.id)
  }

  /**
   * Columns added: the whole new fragment list and schema (field ids of the schema kept). An
   * ADD COLUMNS that writes no data keeps every fragment as it is: readers fill the new columns
   * with nulls where a fragment has no file for them.
   */
  final case class Merge(fragments: IndexedSeq[Fragment], schema: LanceSchema, preservesNullability: Boolean) extends Operation {
    def fragmentIds: IndexedSeq[Long] = fragments.map(_.id)
    def schemaFieldIds: Set[Int] = schema.flatFields.map(_.id).toSet
  }

  final case class Restore(version: Long) extends Operation
  final case class ReserveFragments(count: Int) extends Operation

  /** Columns removed or renamed: the new schema (data files untouched). */
  final case class Project(schema: LanceSchema, preservesNullability: Boolean) extends Operation {
    def schemaFieldIds: Set[Int] = schema.flatFields.map(_.id).toSet
  }

  /**
   * Config, table metadata, schema metadata or field metadata changed. Each map update is
   * key -> new value (None: removed), and whether it replaces the whole map.
   */
  final case class UpdateConfig(
      config: Option[MapUpdate],
      tableMetadata: Option[MapUpdate],
      schemaMetadata: Option[MapUpdate],
      fieldMetadata: Map[Int, MapUpdate]) extends Operation
  final case class MapUpdate(entries: Map[String, Option[String]], replace: Boolean) {
    def changes: Boolean = replace || entries.nonEmpty
  }

  /** Data files of some columns swapped in place: (fragment id, field ids of the new file). */
  final case class DataReplacement(replacements: IndexedSeq[(Long, IndexedSeq[Int])]) extends Operation

  /** Overlay files attached to fragments. */
  final case class DataOverlay(fragmentIds: IndexedSeq[Long]) extends Operation

  /** MemWAL state: (shard id, generation) of the SSTables it records as compacted. */
  final case class UpdateMemWalState(compactedShards: IndexedSeq[(String, Long)]) extends Operation

  /**
   * A table (or a branch, when `branch` is set) made from version `refVersion` of the dataset at
   * `refPath`; a shallow one names the source's files through a base path. `refName`: the
   * source's branch (or tag), if any.
   */
  final case class Clone(shallow: Boolean, refVersion: Long, refPath: String, branch: Option[String], refName: Option[String] = None)
      extends Operation

  final case class UpdateBases(newBases: IndexedSeq[BasePath]) extends Operation

  /** An operation of a newer writer (its field number in the Transaction message). */
  final case class Unknown(fieldNumber: Int) extends Operation {
    override def name: String = s"unknown operation $fieldNumber"
  }
}
