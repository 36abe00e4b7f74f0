package io.sparklance.spark.procedures

import org.apache.spark.sql.connector.catalog.{CatalogPlugin, Identifier}

/**
 * A catalog that serves the Lance procedures, on Spark 3.5 (no stored-procedure API there: our
 * `CALL` statement, [[LanceCallParser]], finds them here). `tablesCatalog`: the catalog a table
 * name given to them resolves in when it names none (None: the session's current catalog).
 */
trait ServesLanceProcedures extends CatalogPlugin {
  protected def tablesCatalog: Option[String] = Some(name())
  def loadLanceProcedure(ident: Identifier): LanceProcedure = LanceProcedures.load(ident, tablesCatalog)
}
