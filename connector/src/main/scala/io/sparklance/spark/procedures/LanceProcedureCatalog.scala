package io.sparklance.spark.procedures

import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * A catalog holding only the Lance procedures, so that `CALL lance.system.<name>(table => ...)`
 * works in a session whatever its other catalogs are (the table is named as the session names
 * it, or given by path). `pyspark_lance.configure` registers it as `lance`.
 */
final class LanceProcedureCatalog extends ServesLanceProcedures {
  private var catalogName: String = "lance"
  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = catalogName = name
  override def name(): String = catalogName
  override protected def tablesCatalog: Option[String] = None
}
