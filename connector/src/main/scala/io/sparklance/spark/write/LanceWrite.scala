package io.sparklance.spark.write

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}
import org.apache.spark.sql.connector.write.{BatchWrite, DataWriterFactory, PhysicalWriteInfo, Write, WriterCommitMessage}
import org.apache.spark.sql.types.StructType

import io.sparklance.format.{FileVersion, LanceSchema}
import io.sparklance.format.write.FileWriterOptions
import io.sparklance.spark.compat.DriverMetrics
import io.sparklance.spark.{LanceMetrics, LanceSparkException, LanceTable, WriteSchema}
import io.sparklance.storage.Paths
import io.sparklance.table.Fragment
import io.sparklance.table.commit.{CommitRequest, NewTable, Operation, TableCommitter}
import io.sparklance.table.write.{FragmentWriter, FragmentWriterOptions, FragmentZoneMaps, ZoneMapTarget, ZoneMapWriter}
import io.sparklance.util.{CommitStateUnknownException, Errors, LanceException, Redaction}

// One DataSource V2 write, planned on the driver before any file is written, with one small
// BatchWrite per kind of commit (as Iceberg's SparkWrite has BatchAppend, DynamicOverwrite, ...).
// Planning pins the read version (the latest when the write was planned, or None: no table
// yet), checks the DataFrame's columns, chooses the schema with its field ids and the file
// format, and checks an idempotent write's (txnAppId, txnVersion) against the table. Tasks
// write fragments ([[LanceDataWriter]]); the driver commits what their messages name
// ([[TableCommitter]]). Abort deletes the written files only when the commit definitely did not
// happen: never after CommitStateUnknownException, never after a successful commit.
//
// An append to a table with ZONEMAP indices extends them over its new fragments, as pylance's
// optimize_indices does after an append (rust/lance/src/index/append.rs): the tasks compute the
// new fragments' zones while writing, and right after the data commit (version V) the driver
// commits one CreateIndex read at V that replaces each zone map by one covering the new
// fragments too. Lance's Append carries no index changes, so one user write is then two
// versions. The second commit is best effort: the data is committed, and a table whose zone
// maps do not cover some fragments is complete (readers scan the uncovered fragments).

/** What the driver decided for a write: everything the tasks and the commit need. */
final case class WritePlan(
    root: String,
    readVersion: Option[Long],
    schema: LanceSchema,
    fileVersion: FileVersion,
    stableRowIds: Boolean,
    input: StructType,
    ordinals: IndexedSeq[Int],
    options: LanceWriteOptions,
    tableConfig: Map[String, String]) {
  def where: String = WritePlan.where(root)
}

object WritePlan {
  /** How errors name a write: by the table it writes. */
  def where(root: String): String = s"the write to $root"
}

final class LanceWrite private (plan: WritePlan, batch: LanceWrite.Batch) extends Write with DriverMetrics {

  override def description(): String =
    s"LanceWrite ${batch.kind} ${Redaction(plan.root)} readVersion=${plan.readVersion.fold("none")(_.toString)}"

  override def toBatch: BatchWrite = batch

  override def supportedCustomMetrics(): Array[CustomMetric] = LanceMetrics.write

  override protected def driverMetrics: Array[CustomTaskMetric] = batch.driverMetrics
}

object LanceWrite extends Logging {

  /**
   * Bytes of buffered values after which a task hands its rows to the file writer as one batch
   * (as do `batchSize` rows): bounds a task's Arrow memory for wide rows such as vectors.
   */
  val BatchBytes: Long = 32L << 20

  /**
   * What the driver decides before any row is written: the schema with its field ids and the
   * input column of each field, the file format, stable row ids, the read version.
   */
  def decide(table: LanceTable, target: WriteTarget, overwrite: Boolean, input: StructType): WritePlan = {
    val opts = target.options
    val root = writeRoot(table, target)
    val existing = target.existing.map(_.manifest)
    val where = WritePlan.where(root)
    val appending = existing.isDefined && !overwrite
    val (schema, ordinals) = existing match {
      case Some(m) if appending =>
        WriteSchema.checkNames(input, where)
        (m.schema, WriteColumns.ordinals(m.schema, input, where))
      case _ => (WriteSchema.lance(input, where), input.fields.indices) // checks the names too
    }
    // rust/lance/src/dataset/write/insert.rs (resolve_context): an append keeps the table's file
    // format, an overwrite keeps it unless asked otherwise, a new table takes the default.
    val tableVersion = existing.flatMap(_.fileVersion(where))
    val fileVersion = (tableVersion, opts.fileFormatVersion) match {
      case (Some(v), Some(asked)) if appending && asked != v =>
        throw Errors.invalidOption(LanceWriteOptions.FileFormatVersion, asked.name,
          s"$v, the file format of the table's files: an append keeps it (overwrite the table to change it)")
      case (t, asked) => asked.orElse(t).getOrElse(FileVersion.V2_2)
    }
    val tableStableRowIds = existing.map(_.stableRowIds)
    (tableStableRowIds, opts.enableStableRowIds) match {
      case (Some(has), Some(want)) if has != want =>
        throw Errors.invalidOption(LanceWriteOptions.EnableStableRowIds, want.toString,
          s"$has, as the table has it: stable row ids are chosen when a table is created")
      case _ => ()
    }
    WritePlan(root, target.existing.map(_.version), schema, fileVersion,
      tableStableRowIds.orElse(opts.enableStableRowIds).getOrElse(false), input, ordinals, opts, target.tableConfig)
  }

  private def writeRoot(table: LanceTable, target: WriteTarget): String =
    target.existing.fold(Paths.stripTrailingSlash(table.options.path))(_.root)

  def plan(table: LanceTable, target: WriteTarget, overwrite: Boolean, input: StructType): LanceWrite = {
    val opts = target.options
    val existing = target.existing.map(_.manifest)
    val plan = decide(table, target, overwrite, input)
    // Checked before anything is written: a retried job whose pair is committed writes nothing.
    val duplicate = for (app <- opts.app; _ <- existing if committer(table, plan).alreadyCommitted(app)) yield app
    val batch = duplicate match {
      case Some(app) =>
        logInfo(s"${plan.where}: application ${app.appId} version ${app.version} is already committed; nothing is written")
        new AlreadyCommitted
      case None if overwrite => new OverwriteBatch(table, plan)
      case None => target.mode match {
        case WriteMode.Append =>
          // An overwrite drops the indices; a table created meanwhile has none.
          val zoneMaps = target.existing.filter(_ => opts.updateZoneMaps).fold(IndexedSeq.empty[ZoneMapTarget])(s =>
            ZoneMapWriter.targets(table.stores.create(), plan.root, s.manifest, plan.schema))
          new AppendBatch(table, plan, zoneMaps, target.addedColumns)
        case WriteMode.Create(ignore) => new CreateBatch(table, plan, ignore)
        case WriteMode.Replace => throw new IllegalStateException("a replace is always an overwrite")
      }
    }
    new LanceWrite(plan, batch)
  }

  private def committer(table: LanceTable, plan: WritePlan) = new TableCommitter(table.stores.create(), plan.root)

  /** The executors' writers of `plan`'s rows, computing zones for `zoneMaps`. */
  def writerFactory(table: LanceTable, plan: WritePlan, zoneMaps: IndexedSeq[ZoneMapTarget] = IndexedSeq.empty): LanceDataWriterFactory =
    LanceDataWriterFactory(table.executorStores, plan.root, plan.schema, plan.input, plan.ordinals,
      FragmentWriterOptions(
        FileWriterOptions(plan.fileVersion),
        plan.options.maxRowsPerFile.getOrElse(FragmentWriterOptions.DefaultMaxRowsPerFile),
        plan.options.maxBytesPerFile.getOrElse(FragmentWriterOptions.DefaultMaxBytesPerFile),
        WriteTargets(table, plan)),
      table.options.batchSize, BatchBytes, table.options.taskMemoryBytes, zoneMaps)

  /** A write's BatchWrite: its kind (for EXPLAIN and logs) and the commit metrics it reports. */
  private[write] sealed abstract class Batch extends BatchWrite {
    def kind: String
    def driverMetrics: Array[CustomTaskMetric]
  }

  /** The commit every kind of write shares; each kind says what it commits and how it settles "already exists". */
  private abstract class Committing(table: LanceTable, plan: WritePlan) extends Batch {
    private val tracking = new CommitTracking(plan.where, WriteTargets(table, plan))

    protected def newTable: Option[NewTable] =
      if (plan.readVersion.isEmpty) Some(NewTable(plan.schema, plan.fileVersion, plan.stableRowIds, plan.tableConfig, plan.options.initialBases))
      else None

    protected def request(fragments: IndexedSeq[Fragment]): CommitRequest

    /** The zone map indices the tasks compute zones for (none but for an append). */
    protected def zoneMapTargets: IndexedSeq[ZoneMapTarget] = IndexedSeq.empty

    /** Called once the write is committed as version `version` (not a duplicate). */
    protected def committed(version: Long, messages: Array[WriterCommitMessage]): Unit = ()

    /** Versions committed after the data commit (zone map updates). */
    protected var extraVersions = 0

    /**
     * Another writer created the table after this write was planned (the committer's
     * LANCE_TABLE_ALREADY_EXISTS): true to commit again (the request has been re-planned),
     * false when the write is settled without a commit; or throw.
     */
    protected def onAlreadyExists(e: LanceException, fragments: IndexedSeq[Fragment]): Boolean = throw e

    override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory = writerFactory(table, plan, zoneMapTargets)

    // Only the messages of the task attempts Spark committed reach here (one per partition).
    override def commit(messages: Array[WriterCommitMessage]): Unit = LanceSparkException.boundary {
      val fragments = LanceWrite.fragments(messages)
      tracking.timed {
        var again = true
        while (again) {
          again = false
          try {
            // A duplicate: the same (txnAppId, txnVersion) was committed while this write ran.
            val outcome = tracking.settle(table.stores.create(), plan.root, fragments)(committer(table, plan).commit(request(fragments)))
            if (!outcome.duplicate) committed(outcome.version, messages)
          } catch {
            case e: LanceException if e.errorClass == "LANCE_TABLE_ALREADY_EXISTS" => tracking.refused(); again = onAlreadyExists(e, fragments)
          }
        }
      }
    }

    override def abort(messages: Array[WriterCommitMessage]): Unit =
      tracking.abort(table.stores.create(), plan.root, LanceWrite.fragments(messages))

    override def driverMetrics: Array[CustomTaskMetric] =
      tracking.driverMetrics :+ LanceMetrics.task(LanceMetrics.ZoneMapVersions, extraVersions)
  }

  /** Rows added as a new version; a table absent at planning is created (or, created meanwhile with the same columns, appended to). */
  private final class AppendBatch(table: LanceTable, plan: WritePlan, targets: IndexedSeq[ZoneMapTarget], added: Option[AddedColumns])
      extends Committing(table, plan) {
    val kind = if (added.isDefined) "append with new columns" else "append"
    private var readVersion = plan.readVersion
    private var columnsToAdd = added

    /** The new columns of a `mergeSchema` append are committed first, once every row is written. */
    protected def request(fragments: IndexedSeq[Fragment]): CommitRequest = {
      columnsToAdd.foreach { a =>
        val v = a.commit(table.stores.create(), table.options, plan.options.commitProperties)
        logInfo(s"${plan.where}: version $v adds the columns ${a.columns.map(_.name).mkString(", ")} for this append")
        readVersion = Some(v)
        columnsToAdd = None
      }
      CommitRequest(readVersion, Operation.Append(fragments), plan.options.commitProperties, plan.options.app, newTable)
    }
    override protected def zoneMapTargets: IndexedSeq[ZoneMapTarget] = targets

    /** Extends the zone maps over the committed fragments; nothing here fails the write: the data is committed. */
    override protected def committed(version: Long, messages: Array[WriterCommitMessage]): Unit = if (targets.nonEmpty) {
      val written = LanceWrite.zoneMaps(messages)
      if (written.nonEmpty && written.forall(_._2.columns.length == targets.length))
        try ZoneMapWriter.extend(table.stores.create(), plan.root, committer(table, plan), version, targets, written).foreach { v =>
          extraVersions += 1
          logInfo(s"${plan.where}: version $v extends the zone maps over the fragments of version $version")
        } catch {
          case e: CommitStateUnknownException =>
            logWarning(s"${plan.where}: the zone map commit after version $version may or may not have happened; its files are kept", e)
          case NonFatal(e) =>
            logWarning(s"${plan.where}: the zone maps were not extended over the fragments of version $version; " +
              "the data is committed and readable", e)
        }
    }
  }

  /**
   * A new version holding only these rows, with the DataFrame's schema. A table created by
   * another writer after planning is overwritten too: the commit is retried from its version.
   */
  private final class OverwriteBatch(table: LanceTable, plan: WritePlan) extends Committing(table, plan) {
    val kind = "overwrite"
    private var readVersion = plan.readVersion
    protected def request(fragments: IndexedSeq[Fragment]): CommitRequest =
      CommitRequest(readVersion, Operation.Overwrite(fragments, plan.schema, plan.tableConfig), plan.options.commitProperties, plan.options.app,
        if (readVersion.isEmpty) newTable else None)
    override protected def onAlreadyExists(e: LanceException, fragments: IndexedSeq[Fragment]): Boolean = {
      // Files written to initial bases name base ids the table created meanwhile does not have.
      if (plan.options.initialBases.nonEmpty) throw e
      readVersion = Some(LanceSave.latest(table.stores.create(), table.options).fold(throw e)(_.version))
      true
    }
  }

  /** Save modes `errorifexists` and `ignore`: create the table, or find that another writer did first. */
  private final class CreateBatch(table: LanceTable, plan: WritePlan, ignoreIfExists: Boolean) extends Committing(table, plan) {
    val kind = if (ignoreIfExists) "create (ignore if exists)" else "create"
    protected def request(fragments: IndexedSeq[Fragment]): CommitRequest =
      CommitRequest(None, Operation.Overwrite(fragments, plan.schema, plan.tableConfig), plan.options.commitProperties, plan.options.app,
        newTable)
    override protected def onAlreadyExists(e: LanceException, fragments: IndexedSeq[Fragment]): Boolean =
      if (!ignoreIfExists) throw e
      else {
        logInfo(s"${plan.where}: another writer created the table first; save mode ignore leaves it as it is")
        FragmentWriter.discard(table.stores.create(), plan.root, fragments, WriteTargets(table, plan))
        false
      }
  }

  /** A retried idempotent write already in the table: tasks write nothing, the commit does nothing. */
  private final class AlreadyCommitted extends Batch {
    val kind = "already committed"
    override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory = SkippingWriterFactory
    override def commit(messages: Array[WriterCommitMessage]): Unit = ()
    override def abort(messages: Array[WriterCommitMessage]): Unit = ()
    override def driverMetrics: Array[CustomTaskMetric] = Array.empty
  }

  /** The fragments the tasks' messages name. */
  private[spark] def fragments(messages: Array[WriterCommitMessage]): IndexedSeq[Fragment] =
    messages.iterator.collect { case m: LanceCommitMessage => m.fragments }.flatten.toIndexedSeq

  /** The written fragments with their zones; empty when some task computed none (it wrote no fragment, or no zones). */
  private def zoneMaps(messages: Array[WriterCommitMessage]): IndexedSeq[(Fragment, FragmentZoneMaps)] = {
    val ms = messages.iterator.collect { case m: LanceCommitMessage => m }.toIndexedSeq
    if (ms.exists(m => m.fragments.length != m.zoneMaps.length)) IndexedSeq.empty
    else ms.flatMap(m => m.fragments.zip(m.zoneMaps))
  }
}
