package io.sparklance.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import io.sparklance.spark.procedures.LanceProcedure.{optional, required, str, TableParam}
import io.sparklance.table.{BasePath, BaseWrites, Restores, ShallowClone}

// Restore, shallow clone and base paths from SQL (the table layer does the work: table.Restores,
// table.ShallowClone, table.BaseWrites). The table may be named as `t.branch_<name>`: its
// branch is then the one changed or cloned.

/** `restore(table, version => NULL, tag => NULL)`: commits a new version with the content of the given one. */
final class RestoreProcedure(context: ProcedureContext) extends LanceProcedure(context) {
  protected val params = Seq(
    TableParam,
    optional("version", LongType, "version to restore"),
    optional("tag", StringType, "tag naming the version to restore"))
  val output: StructType = new StructType()
    .add("restored_version", LongType, nullable = false)
    .add("new_version", LongType, nullable = false)
  protected def run(args: ProcedureArgs): Seq[InternalRow] = {
    val t = args.table()
    val (store, root) = RefProcedures.where(t)
    val r = Restores.restore(store, root, t.options.branch, args.long("version"), args.string("tag"))
    Seq(InternalRow(r.restored, r.version))
  }
}

/**
 * `clone(table, target, version => NULL, tag => NULL, branch => NULL)`: a shallow clone of a
 * version (the latest when NULL) at `target`, an empty or new folder.
 */
final class CloneProcedure(context: ProcedureContext) extends LanceProcedure(context) {
  protected val params = Seq(
    TableParam,
    required("target", StringType, "path of the clone: an empty or new folder"),
    optional("version", LongType, "version to clone (NULL: the latest)"),
    optional("tag", StringType, "tag naming the version to clone"),
    optional("branch", StringType, "branch of that version (NULL: the main branch)"))
  val output: StructType = new StructType()
    .add("source_version", LongType, nullable = false)
    .add("version", LongType, nullable = false)
    .add("target", StringType, nullable = false)
  protected def run(args: ProcedureArgs): Seq[InternalRow] = {
    val t = args.table()
    val (store, root) = RefProcedures.where(t)
    val r = ShallowClone.clone(store, root, args.need("target", args.string), args.string("branch").orElse(t.options.branch),
      args.long("version"), args.string("tag"))
    Seq(InternalRow(r.sourceVersion, r.version, str(r.target)))
  }
}

/**
 * `add_bases(table, bases => map('name', 'path', ...), is_dataset_root => false)`: adds named
 * base paths (one UpdateBases version). One row per base added.
 */
final class AddBasesProcedure(context: ProcedureContext) extends LanceProcedure(context) {
  protected val params = Seq(
    TableParam,
    required("bases", MapType(StringType, StringType), "base name -> path"),
    optional("is_dataset_root", BooleanType, "the bases are dataset roots (files under <path>/data/)", "false"))
  val output: StructType = new StructType()
    .add("id", IntegerType, nullable = false)
    .add("name", StringType, nullable = false)
    .add("path", StringType, nullable = false)
    .add("is_dataset_root", BooleanType, nullable = false)
    .add("version", LongType, nullable = false)
  protected def run(args: ProcedureArgs): Seq[InternalRow] = {
    val t = args.table()
    val (store, root) = RefProcedures.where(t)
    val datasetRoot = args.boolean("is_dataset_root").getOrElse(false)
    val bases = args.need("bases", args.stringMap).toSeq.sortBy(_._1).map { case (n, p) => BasePath(0, Some(n), datasetRoot, p) }
    val (added, version) = BaseWrites.addBases(store, root, t.options.branch, bases)
    added.sortBy(_.id).map(b => InternalRow(b.id, str(b.name.get), str(b.path), b.isDatasetRoot, version))
  }
}
