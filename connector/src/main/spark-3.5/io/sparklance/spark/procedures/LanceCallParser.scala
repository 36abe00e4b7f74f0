package io.sparklance.spark.procedures

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{DataType, StructType}

import io.sparklance.spark.LanceSparkException

/**
 * Spark 3.5's SQL parser with `CALL <catalog>.system.<name>(args)` added, as Spark 4 has it: a
 * statement whose first word is CALL ([[CallSyntax]]) becomes a [[LanceCall]]; every other
 * statement, and every expression, name and type, goes to Spark's parser unchanged (`delegate`).
 * Spark's own parser rejects any statement starting with CALL, so none is taken from it.
 */
final class LanceCallParser(session: SparkSession, delegate: ParserInterface) extends ParserInterface {

  override def parsePlan(sqlText: String): LogicalPlan =
    LanceSparkException.boundary(CallSyntax.parse(sqlText)).map(LanceCall.plan(session, delegate, _))
      .getOrElse(delegate.parsePlan(sqlText))

  override def parseQuery(sqlText: String): LogicalPlan = delegate.parseQuery(sqlText)
  override def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)
  override def parseTableIdentifier(sqlText: String): TableIdentifier = delegate.parseTableIdentifier(sqlText)
  override def parseFunctionIdentifier(sqlText: String): FunctionIdentifier = delegate.parseFunctionIdentifier(sqlText)
  override def parseMultipartIdentifier(sqlText: String): Seq[String] = delegate.parseMultipartIdentifier(sqlText)
  override def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)
  override def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)
}
