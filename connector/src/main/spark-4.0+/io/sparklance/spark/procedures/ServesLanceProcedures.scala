package io.sparklance.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.{Identifier, ProcedureCatalog}
import org.apache.spark.sql.connector.catalog.procedures.{BoundProcedure, ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.connector.read.{LocalScan, Scan}
import org.apache.spark.sql.types.StructType

/**
 * A catalog that serves the Lance procedures, through Spark 4's stored-procedure API
 * (`ProcedureCatalog`; Spark parses `CALL`, binds the arguments and calls [[SparkProcedure]]).
 * `tablesCatalog`: the catalog a table name given to them resolves in when it names none (None:
 * the session's current catalog).
 */
trait ServesLanceProcedures extends ProcedureCatalog {
  protected def tablesCatalog: Option[String] = Some(name())
  override def loadProcedure(ident: Identifier): UnboundProcedure = new SparkProcedure(LanceProcedures.load(ident, tablesCatalog))
  // Spark 4.1's SHOW PROCEDURES (absent from 4.0's interface, hence no `override`).
  def listProcedures(namespace: Array[String]): Array[Identifier] = LanceProcedures.list(namespace)
}

/**
 * A [[LanceProcedure]] as Spark 4 calls it: Spark binds the call's arguments to [[parameters]]
 * (its errors for a missing, unknown or repeated one; the defaults, SQL literals, filled in) and
 * hands them over as one row in parameter order, which is what [[LanceProcedure.execute]] takes.
 */
final class SparkProcedure(procedure: LanceProcedure) extends UnboundProcedure with BoundProcedure {
  // Bound and unbound at once: the parameters never depend on the call's input types.
  // (Spark 4.2's SimpleProcedure says the same; 4.0 and 4.1 lack it.)
  override def bind(inputType: StructType): BoundProcedure = this

  override def name(): String = procedure.name

  override def parameters(): Array[ProcedureParameter] = procedure.parameters.map { p =>
    val b = ProcedureParameter.in(p.name, p.dataType).comment(p.comment)
    (if (p.required) b else b.defaultValue(p.default)).build()
  }.toArray

  // A procedure changes a table (or reads refs that may change): never folded or cached.
  override def isDeterministic(): Boolean = false

  override def call(input: InternalRow): java.util.Iterator[Scan] = {
    val result = procedure.execute(input).toArray
    val scan: Scan = new LocalScan {
      override def rows(): Array[InternalRow] = result
      override def readSchema(): StructType = procedure.output
      override def description(): String = s"LanceProcedureResult ${procedure.name}"
    }
    java.util.Collections.singletonList(scan).iterator()
  }
}
