package io.sparklance.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import io.sparklance.spark.{LanceSparkException, LanceTable}
import io.sparklance.util.Errors

/**
 * One of the `system.*` procedures every Lance catalog serves (`CALL <catalog>.system.<name>(table
 * => ..., ...)`). A procedure declares its parameters and its result columns, and runs on the
 * driver: what it does to a table goes through the transaction manager like any write. Its result
 * is one small table (the versions, files and bytes it touched), which `CALL` returns as rows.
 *
 * This is the part every Spark line shares. How a line's `CALL` reaches it: Spark 4's stored
 * procedures (the adapter beside `ServesLanceProcedures` in the spark-4.0+ overlay), or on Spark
 * 3.5, which has no `CALL`, our own statement ([[CallSyntax]], [[CallBinding]] and the spark-3.5 overlay).
 */
abstract class LanceProcedure(context: ProcedureContext) {

  final def name: String = context.name

  /** The parameters in call order; `table` (a name or a path) comes first by convention. */
  protected def params: Seq[LanceProcedure.Param]

  /** The columns of the result. */
  def output: StructType

  /** Does the work: `args` holds the call's values by parameter name. */
  protected def run(args: ProcedureArgs): Seq[InternalRow]

  final def parameters: Seq[LanceProcedure.Param] = params

  /**
   * Runs the procedure on `input`, one value per parameter in [[parameters]] order (NULL: absent,
   * the procedure's default applies), and returns its result rows (of [[output]]).
   */
  final def execute(input: InternalRow): Seq[InternalRow] = LanceSparkException.boundary {
    run(new ProcedureArgs(context, params, input)).toVector
  }
}

object LanceProcedure {

  /** A parameter: required, or optional with a default given as a SQL literal (`NULL`: absent). */
  final case class Param(name: String, dataType: DataType, required: Boolean, default: String = "NULL", comment: String = "")

  /** The first parameter of every procedure: the table, by name (resolved as SQL resolves it) or by path. */
  val TableParam: Param = Param("table", StringType, required = true, comment = "the table: a name or a path")

  def required(name: String, dataType: DataType, comment: String): Param = Param(name, dataType, required = true, comment = comment)
  def optional(name: String, dataType: DataType, comment: String, default: String = "NULL"): Param =
    Param(name, dataType, required = false, default, comment)

  def str(s: String): UTF8String = if (s == null) null else UTF8String.fromString(s)
}

/** A procedure's name and the catalog that serves it (None: the procedure-only catalog). */
final case class ProcedureContext(name: String, catalog: Option[String])

/** The values of one call, by parameter name, with the checks every procedure needs. */
final class ProcedureArgs(context: ProcedureContext, params: Seq[LanceProcedure.Param], input: InternalRow) {
  private def procedure = context.name

  /** The table a string argument names: a path, or a table name as the calling catalog resolves it. */
  def table(name: String = "table"): LanceTable = ProcedureTables.resolve(context, need(name, string))
  private val index: Map[String, (Int, DataType)] = params.zipWithIndex.map { case (p, i) => p.name -> (i, p.dataType) }.toMap

  private def at(name: String): (Int, DataType) =
    index.getOrElse(name, throw new IllegalArgumentException(s"procedure $procedure has no parameter '$name'"))

  private def present(name: String): Option[Int] = {
    val (i, _) = at(name)
    if (input.isNullAt(i)) None else Some(i)
  }

  def string(name: String): Option[String] = present(name).map(i => input.getUTF8String(i).toString)
  def long(name: String): Option[Long] = present(name).map(i => input.getLong(i))
  def int(name: String): Option[Int] = present(name).map(i => input.getInt(i))
  def boolean(name: String): Option[Boolean] = present(name).map(i => input.getBoolean(i))
  def double(name: String): Option[Double] = present(name).map(i => input.getDouble(i))

  /** A timestamp argument, in microseconds since the epoch (Spark's TIMESTAMP). */
  def timestampMicros(name: String): Option[Long] = present(name).map(i => input.getLong(i))

  /** An array<string> argument. */
  def strings(name: String): Option[Seq[String]] = present(name).map { i =>
    val a = input.getArray(i)
    (0 until a.numElements()).map { j =>
      if (a.isNullAt(j)) throw Errors.invalidArgument(s"CALL $procedure: '$name' holds a NULL element; give names or paths")
      a.getUTF8String(j).toString
    }
  }

  /** A map<string,string> argument. */
  def stringMap(name: String): Option[Map[String, String]] = present(name).map { i =>
    val m = input.getMap(i)
    val (k, v) = (m.keyArray(), m.valueArray())
    (0 until m.numElements()).map(j => k.getUTF8String(j).toString -> (if (v.isNullAt(j)) null else v.getUTF8String(j).toString)).toMap
  }

  /** A value the call must give (binding enforces required parameters; this catches an explicit NULL). */
  def need[A](name: String, value: String => Option[A]): A =
    value(name).getOrElse(throw Errors.invalidArgument(s"CALL $procedure: '$name' may not be NULL"))
}
