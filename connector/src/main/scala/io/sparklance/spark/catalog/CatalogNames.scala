package io.sparklance.spark.catalog

/** How table names are shown: parts joined by dots, back-quoted where SQL needs it (as Spark's quoteIfNeeded). */
object CatalogNames {
  private val Plain = "[A-Za-z_][A-Za-z0-9_]*".r

  def quoted(parts: Seq[String]): String = parts.map {
    case p @ Plain() => p
    case p => "`" + p.replace("`", "``") + "`"
  }.mkString(".")
}
