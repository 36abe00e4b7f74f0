package io.sparklance.spark.procedures

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.spark.{LanceOptions, LanceTable}
import io.sparklance.spark.catalog.CatalogNames
import io.sparklance.util.Errors

/**
 * The table a procedure's `table` argument names. A path (absolute, or a URI) opens the table
 * there with the session's settings. Anything else is a table name as SQL resolves it: in the
 * calling catalog when the name does not start with a catalog, else as the session resolves it
 * (`db.t`, `cat.db.t`, and the names below a table such as `` t.`branch_dev` ``).
 */
private[procedures] object ProcedureTables {

  def isPath(arg: String): Boolean = arg.startsWith("/") || arg.contains("://") || arg.startsWith("file:")

  def resolve(context: ProcedureContext, arg: String): LanceTable = {
    val where = s"CALL ${context.catalog.getOrElse("lance")}.${LanceProcedures.Namespace}.${context.name}"
    if (arg.trim.isEmpty) throw Errors.invalidArgument(s"$where: 'table' is empty; give a table name or a path")
    if (isPath(arg)) {
      val t = LanceTable.open(new CaseInsensitiveStringMap(Map(LanceOptions.Path -> arg).asJava))
      if (!t.exists) t.snapshot // raises LANCE_DATASET_NOT_FOUND naming the path
      t
    } else {
      val spark = SparkSession.active
      val parts = spark.sessionState.sqlParser.parseMultipartIdentifier(arg)
      val qualified = context.catalog match {
        case Some(c) if !(parts.length > 1 && catalogNamed(spark, parts.head)) => c +: parts
        case _ => parts
      }
      val plan = spark.table(CatalogNames.quoted(qualified)).queryExecution.analyzed
      plan.collectFirst { case r: DataSourceV2Relation => r.table }.collect { case t: LanceTable => t }
        .getOrElse(throw Errors.invalidArgument(s"$where: '$arg' is not a Lance table"))
    }
  }

  private def catalogNamed(spark: SparkSession, name: String): Boolean =
    name.equalsIgnoreCase("spark_catalog") || spark.conf.getOption(s"spark.sql.catalog.$name").isDefined
}
