package io.sparklance.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import io.sparklance.spark.LanceTable
import io.sparklance.spark.procedures.LanceProcedure.{optional, required, str, TableParam}
import io.sparklance.table.{RefChange, RefWrites}

// Tags and branches from SQL (table.RefWrites does the work; files as pylance 14 writes them).
// The table may be named as `t.branch_<name>`: its branch is then the default one.

private object RefProcedures {
  val tagOutput: StructType = StructType(Seq(
    StructField("tag", StringType, nullable = false), StructField("version", LongType, nullable = false), StructField("branch", StringType)))
  val branchOutput: StructType = StructType(Seq(
    StructField("branch", StringType, nullable = false), StructField("version", LongType, nullable = false),
    StructField("parent_branch", StringType)))

  def row(c: RefChange): Seq[InternalRow] = Seq(InternalRow(str(c.name), c.version, c.branch.map(str).orNull))

  /** The table's store and the root of its main line (refs live there, whichever branch the name chose). */
  def where(t: LanceTable) = (t.stores.create(), t.options.path)
}

/**
 * `create_tag(table, tag, version => NULL, branch => NULL, replace => false)`: tags a version
 * (the latest when NULL) of the main line or of `branch`; `replace` moves an existing tag.
 */
final class CreateTagProcedure(context: ProcedureContext) extends LanceProcedure(context) {
  protected val params = Seq(
    TableParam,
    required("tag", StringType, "tag name"),
    optional("version", LongType, "version to tag (NULL: the latest)"),
    optional("branch", StringType, "branch of that version (NULL: the main branch)"),
    optional("replace", BooleanType, "move the tag if it exists", "false"))
  val output: StructType = RefProcedures.tagOutput
  protected def run(args: ProcedureArgs): Seq[InternalRow] = {
    val t = args.table()
    val (store, root) = RefProcedures.where(t)
    RefProcedures.row(RefWrites.createTag(store, root, args.need("tag", args.string), args.string("branch").orElse(t.options.branch),
      args.long("version"), args.boolean("replace").getOrElse(false)))
  }
}

/** `delete_tag(table, tag)`: the tag's file goes; the version it named stays. */
final class DeleteTagProcedure(context: ProcedureContext) extends LanceProcedure(context) {
  protected val params = Seq(TableParam, required("tag", StringType, "tag name"))
  val output: StructType = RefProcedures.tagOutput
  protected def run(args: ProcedureArgs): Seq[InternalRow] = {
    val (store, root) = RefProcedures.where(args.table())
    RefProcedures.row(RefWrites.deleteTag(store, root, args.need("tag", args.string)))
  }
}

/**
 * `create_branch(table, branch, version => NULL, tag => NULL, from_branch => NULL)`: a branch
 * from a version (the latest when NULL) of the main line or of `from_branch`, or from a tag.
 */
final class CreateBranchProcedure(context: ProcedureContext) extends LanceProcedure(context) {
  protected val params = Seq(
    TableParam,
    required("branch", StringType, "name of the new branch"),
    optional("version", LongType, "version to branch from (NULL: the latest)"),
    optional("tag", StringType, "tag to branch from"),
    optional("from_branch", StringType, "branch to branch from (NULL: the main branch)"))
  val output: StructType = RefProcedures.branchOutput
  protected def run(args: ProcedureArgs): Seq[InternalRow] = {
    val t = args.table()
    val (store, root) = RefProcedures.where(t)
    val tag = args.string("tag")
    RefProcedures.row(RefWrites.createBranch(store, root, args.need("branch", args.string),
      args.string("from_branch").orElse(if (tag.isEmpty) t.options.branch else None), args.long("version"), tag))
  }
}

/** `delete_branch(table, branch)`: refused while other branches are based on it or tags name its versions. */
final class DeleteBranchProcedure(context: ProcedureContext) extends LanceProcedure(context) {
  protected val params = Seq(TableParam, required("branch", StringType, "branch to delete"))
  val output: StructType = RefProcedures.branchOutput
  protected def run(args: ProcedureArgs): Seq[InternalRow] = {
    val (store, root) = RefProcedures.where(args.table())
    RefProcedures.row(RefWrites.deleteBranch(store, root, args.need("branch", args.string)))
  }
}
