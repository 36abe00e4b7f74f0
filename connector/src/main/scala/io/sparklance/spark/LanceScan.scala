package io.sparklance.spark

import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReaderFactory, Scan}
import org.apache.spark.sql.types.StructType

import io.sparklance.format.LanceField
import io.sparklance.table.{ScanPlanner, ScanTask}

/**
 * A scan of one pinned version. Scans compare by value (table version, columns,
 * options), as Spark's file sources do, so that Spark can reuse exchanges.
 */
final class LanceScan(table: LanceTable, val fields: IndexedSeq[LanceField], schema: StructType)
    extends Scan with Batch {

  private lazy val tasks: IndexedSeq[ScanTask] = ScanPlanner.plan(table.snapshot)

  override def readSchema(): StructType = schema

  override def toBatch: Batch = this

  override def planInputPartitions(): Array[InputPartition] =
    tasks.map(t => LanceInputPartition(t): InputPartition).toArray

  override def createReaderFactory(): PartitionReaderFactory =
    LanceReaderFactory(table.stores, fields, table.options.batchSize, table.options.taskMemoryBytes)

  override def description(): String =
    s"LanceScan ${table.snapshot.root} version=${table.snapshot.version} columns=[${fields.map(_.name).mkString(", ")}]"

  private def key = (table.snapshot.root, table.snapshot.version, fields, table.options)

  override def equals(other: Any): Boolean = other match {
    case s: LanceScan => s.key == key
    case _ => false
  }

  override def hashCode(): Int = key.hashCode()
}

/** The work of one Spark task: a row range of one fragment, every file already located. */
final case class LanceInputPartition(task: ScanTask) extends InputPartition
