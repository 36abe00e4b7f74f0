package io.sparklance.spark.write

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SaveMode, SQLContext}
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.plans.logical.{AppendData, OverwriteByExpression}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.sources.BaseRelation
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.spark.{LanceOptions, LanceTable}
import io.sparklance.storage.{ObjectStore, ObjectStoreFactory, Paths}
import io.sparklance.table.{Snapshot, VersionSpec}
import io.sparklance.util.{Errors, NotFoundException}

// `df.write.format("lance").mode(m).save(uri)`, every save mode through one DataSource V2 write.
//
// How Spark routes a save (org.apache.spark.sql.classic.DataFrameWriter.saveInternal, the same
// in Spark 3.5, 4.0 and 4.2): for a TableProvider whose table declares BATCH_WRITE, `append`
// becomes AppendData and `overwrite` OverwriteByExpression(true), but `errorifexists` (the
// default) and `ignore` fail with UNSUPPORTED_DATA_SOURCE_SAVE_MODE; only a provider that also
// implements SupportsCatalogOptions gets those, as a CREATE TABLE AS SELECT in a catalog it
// names. That catalog must be registered in the session's configuration, sees no options when
// it loads a table (so no s3a settings, no read options) and would take over reads as well.
// For a table that does not declare BATCH_WRITE, Spark hands every mode, with the mode, to the
// provider's CreatableRelationProvider.createRelation. That is the route taken here: the save
// mode is known exactly, the path may have no table yet, the options are all there, and the
// rows are then written by planning the same AppendData / OverwriteByExpression that
// DataFrameWriter plans, over a write-target table, so that every mode runs Spark's own V2
// write (tasks, commit coordination, abort, metrics) into one BatchWrite (LanceWrite).

object LanceSave {

  /** What Spark's DataFrameWriter passes for partitionBy / clusterBy (DataSourceUtils). */
  private val LayoutKeys = Seq("__partition_columns", "__clustering_columns")

  def run(context: SQLContext, mode: SaveMode, parameters: Map[String, String], data: DataFrame): BaseRelation = {
    val options = new CaseInsensitiveStringMap(parameters.asJava)
    val opts = LanceOptions.parse(options)
    val writeOptions = LanceWriteOptions.parse(options)
    LayoutKeys.find(options.containsKey).foreach { k =>
      throw Errors.unsupported(s"${if (k.contains("partition")) "partitionBy" else "clusterBy"} (a Lance table has no partitions; " +
        "write without it, and filter on the column: reads prune by zone maps and indices)", opts.path)
    }
    val stores = LanceTable.stores(parameters)
    save(mode, opts, writeOptions, stores, parameters, data)
    new BaseRelation {
      override def sqlContext: SQLContext = context
      override def schema: StructType = data.schema
    }
  }

  /** Writes `data` to the table at `opts.path` as `mode` asks, through `stores`. */
  private[write] def save(mode: SaveMode, opts: LanceOptions, writeOptions: LanceWriteOptions, stores: ObjectStoreFactory,
      parameters: Map[String, String], data: DataFrame): Unit = {
    val store = stores.create()
    store.requireAtomicCreate(opts.path)
    val found = latest(store, opts)
    val added = found.filter(_ => mode == SaveMode.Append && writeOptions.mergeSchema).flatMap(newColumns(_, data.schema))
    val existing = added.map(_.snapshot).orElse(found)
    (mode, existing) match {
      case (SaveMode.ErrorIfExists, Some(s)) => throw Errors.tableAlreadyExists(s.root, s.version)
      case (SaveMode.Ignore, Some(_)) => () // the table is there: nothing is written, as the mode promises
      case _ =>
        val writeMode = mode match {
          case SaveMode.ErrorIfExists => WriteMode.Create(ignoreIfExists = false)
          case SaveMode.Ignore => WriteMode.Create(ignoreIfExists = true)
          case _ => WriteMode.Append // overwrite: Spark truncates the builder
        }
        val table = new LanceTable(existing.toRight(Errors.notADataset(opts.path, "no table yet: this write creates it")), opts, stores,
          Some(WriteTarget(writeMode, existing, writeOptions, addedColumns = added)))
        val relation = DataSourceV2Relation.create(table, None, None, new CaseInsensitiveStringMap(parameters.asJava))
        val query = data.queryExecution.analyzed
        val plan =
          if (mode == SaveMode.Overwrite) OverwriteByExpression.byName(relation, query, Literal(true), parameters)
          else AppendData.byName(relation, query, parameters)
        data.sparkSession.sessionState.executePlan(plan).assertCommandExecuted()
    }
  }

  /**
   * `mergeSchema`: the DataFrame's columns the table lacks (by name, any case), added as nullable
   * columns; committed only once the rows are written ([[AddedColumns]]). None when there are none.
   */
  private def newColumns(s: Snapshot, input: StructType): Option[AddedColumns] = {
    val known = s.manifest.schema.fields.map(_.name.toLowerCase(java.util.Locale.ROOT)).toSet
    val extra = input.fields.filterNot(f => known(f.name.toLowerCase(java.util.Locale.ROOT))).toSeq
    if (extra.isEmpty) None else Some(AddedColumns(s, extra))
  }

  /**
   * The latest version of the main branch (or of the branch `opts` names), or None where there
   * is no table yet (nothing at the path, or a folder without manifests). A regular file at the
   * path is not a place to create one. A branch is never created by a write: one that does not
   * exist (or was deleted) is LANCE_REF_NOT_FOUND, before anything is written.
   */
  def latest(store: ObjectStore, opts: LanceOptions): Option[Snapshot] =
    try Some(Snapshot.resolve(store, opts.path, opts.branch, VersionSpec.Latest, opts.allowedBasePaths))
    catch {
      case e: NotFoundException if e.errorClass == "LANCE_DATASET_NOT_FOUND" && !store.exists(Paths.stripTrailingSlash(opts.path)) => None
    }
}
