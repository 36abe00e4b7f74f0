package io.sparklance.spark.catalog

/**
 * How table names are shown (parts joined by dots, back-quoted where SQL needs it, as Spark's
 * quoteIfNeeded) and which names a catalog can turn into folders.
 */
object CatalogNames {
  private val Plain = "[A-Za-z_][A-Za-z0-9_]*".r

  def quoted(parts: Seq[String]): String = parts.map {
    case p @ Plain() => p
    case p => "`" + p.replace("`", "``") + "`"
  }.mkString(".")

  /**
   * Whether `name` can be one folder below a catalog's root: not empty, '.' or '..', without a
   * path separator ('/', '\\'), and without control characters (a NUL is no file name anywhere).
   */
  def isFolderName(name: String): Boolean =
    name.nonEmpty && name != "." && name != ".." && !name.exists(c => c == '/' || c == '\\' || Character.isISOControl(c))

  /** What [[isFolderName]] takes, as error messages say it. */
  val FolderNameRule = "names are folders: not empty, '.' or '..', without '/', '\\' or control characters"
}
