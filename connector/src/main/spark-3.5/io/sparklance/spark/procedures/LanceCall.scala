package io.sparklance.spark.procedures

import scala.util.control.NonFatal

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow, QueryPlanningTracker}
import org.apache.spark.sql.catalyst.analysis.{AnsiTypeCoercion, TypeCoercion}
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeReference, Cast, EvalMode, Expression, Literal}
import org.apache.spark.sql.catalyst.parser.{ParseException, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, OneRowRelation, Project}
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.NullType

import io.sparklance.spark.LanceSparkException
import io.sparklance.util.Errors

/**
 * A `CALL` on Spark 3.5, made ready to run when the statement is parsed, as Spark 4 analyses its
 * own: the catalog (the first name part when it is a catalog of the session, else the current
 * catalog, as Spark resolves names) must serve the Lance procedures; the procedure is looked up
 * there; the arguments are bound to its parameters ([[CallBinding]]); each value is parsed by
 * Spark's expression parser, analysed, must be a constant, and is converted to its parameter's
 * type where Spark would convert it implicitly (a value that does not fit, e.g. 'abc' for a
 * bigint, is an error, never NULL); a parameter not given takes its default (a SQL literal, read
 * the same way). Nothing runs until the statement does: [[LanceCallCommand]].
 */
object LanceCall {

  def plan(session: SparkSession, parser: ParserInterface, call: CallStatement): LogicalPlan = LanceSparkException.boundary {
    val procedure = load(session, call)
    val values = procedure.parameters.zip(CallBinding.bind(call, procedure)).map {
      case (p, Some(arg)) => value(session, parser, call, procedure, p, arg.value, arg.at)
      case (p, None) => value(session, parser, call, procedure, p, p.default, call.nameAt)
    }
    LanceCallCommand(procedure, InternalRow.fromSeq(values),
      procedure.output.map(f => AttributeReference(f.name, f.dataType, f.nullable, f.metadata)()))
  }

  /**
   * The procedure `call` names, from a catalog that serves ours; else an error naming the catalog.
   * Catalog names are matched exactly, as Spark matches them (`LANCE.system.x` is not `lance`'s).
   */
  private def load(session: SparkSession, call: CallStatement): LanceProcedure = {
    val catalogs = session.sessionState.catalogManager
    val (catalogName, path) = call.name match {
      case Seq(c, rest @ _*) if rest.nonEmpty && (catalogs.isCatalogRegistered(c) || c.equalsIgnoreCase("spark_catalog")) => (c, rest)
      case parts => (catalogs.currentCatalog.name(), parts)
    }
    catalogs.catalog(catalogName) match {
      case c: ServesLanceProcedures => c.loadLanceProcedure(Identifier.of(path.init.toArray, path.last))
      case other => throw CallSyntax.error(call.text, call.nameAt,
        s"catalog '$catalogName' (${other.getClass.getName}) serves no Lance procedures; call them in a catalog of ours: " +
          s"CALL lance.${LanceProcedures.Namespace}.<name> (io.sparklance.spark.procedures.LanceProcedureCatalog), or a catalog " +
          "configured as io.sparklance.spark.catalog.LanceCatalog or LanceSessionCatalog")
    }
  }

  /** The value `text` gives parameter `p`, in its type (null: NULL). */
  private def value(session: SparkSession, parser: ParserInterface, call: CallStatement, procedure: LanceProcedure,
                    p: LanceProcedure.Param, text: String, at: Int): Any = {
    def fail(detail: String): Nothing = throw CallSyntax.error(call.text, at, s"system.${procedure.name}: '${p.name}' $detail")
    val parsed = try parser.parseExpression(text) catch {
      case e: ParseException => fail(s"is not a SQL expression: ${e.getMessage.linesIterator.next()}")
    }
    val analysed = session.sessionState.analyzer.executeAndCheck(Project(Seq(Alias(parsed, p.name)()), OneRowRelation()),
      new QueryPlanningTracker) match {
      case Project(Seq(Alias(e, _)), _) => e
      case other => fail(s"could not be read as a value: ${other.simpleString(100)}")
    }
    if (!analysed.foldable) fail(s"must be a constant, not $text")
    val typed: Expression = analysed.dataType match {
      case t if t == p.dataType => analysed
      case NullType => Literal(null, p.dataType)
      case t =>
        val coercion = if (session.sessionState.conf.ansiEnabled) AnsiTypeCoercion else TypeCoercion
        if (coercion.implicitCast(analysed, p.dataType).isEmpty) fail(s"takes ${p.dataType.sql}, not ${t.sql} ($text)")
        // Converted strictly: a value that does not fit is an error, not a NULL (which would mean the default).
        Cast(analysed, p.dataType, Some(session.sessionState.conf.sessionLocalTimeZone), EvalMode.ANSI)
    }
    try typed.eval() catch {
      case NonFatal(e) if e.isInstanceOf[SparkThrowable] || e.isInstanceOf[ArithmeticException] || e.isInstanceOf[NumberFormatException] =>
        fail(s"takes ${p.dataType.sql}; $text cannot be read as one: ${e.getMessage.linesIterator.next()}")
    }
  }
}

/** A bound `CALL` (Spark 3.5): runs the procedure and returns its rows, as Spark 4's CALL does. */
final case class LanceCallCommand(procedure: LanceProcedure, input: InternalRow, override val output: Seq[Attribute])
    extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    val toRow = CatalystTypeConverters.createToScalaConverter(procedure.output)
    procedure.execute(input).map(r => toRow(r).asInstanceOf[Row])
  }

  override def simpleString(maxFields: Int): String = s"CALL system.${procedure.name}"
}
