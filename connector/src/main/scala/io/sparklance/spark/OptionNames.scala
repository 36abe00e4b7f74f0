package io.sparklance.spark

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.internal.Logging
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.spark.write.LanceWriteOptions
import io.sparklance.util.Errors

// Spark hands a source every option of a read or write, its own (`path`) and the file
// system's (`fs.s3a.*`) among them, and sources ignore the keys they do not know; so a
// misspelt option of ours (`maxRowPerFile`) would be dropped without a word and the default
// used. A key that is not ours but differs from one of ours only in case, `_`/`-`, or a typo or
// two (edit distance, scaled to the name's length) is taken for a misspelling: a write refuses
// it, naming the option meant; a read logs a warning (a catalog table's stored options are read
// on every load, and must not make the table unreadable). Other keys pass as before.

object OptionNames extends Logging {
  /** Keys Spark itself passes to a source (DataFrameWriter and DataFrameReader). */
  private val SparkKeys = Set("path", "paths", "__partition_columns", "__clustering_columns")

  /** Every option name of ours, the aliases of write options included. */
  lazy val Ours: Seq[String] = LanceOptions.Names ++ LanceWriteOptions.Names

  /** Lower case without `_` and `-`: the spellings of one name Spark users mix. */
  private def normal(key: String): String = key.toLowerCase(Locale.ROOT).filterNot(c => c == '_' || c == '-')

  /**
   * The option of ours `key` seems meant as, or None: `key` is ours, or Spark's, or a dotted key
   * (a file system's, a Spark conf, `commitProperties.<name>`), or not close to any of ours.
   */
  def nearMiss(key: String): Option[String] = {
    if (key.contains('.') || SparkKeys(key.toLowerCase(Locale.ROOT)) || Ours.exists(_.equalsIgnoreCase(key))) None
    else {
      // Ties (a name and its alias differ only in case and `_`) go to the spelling closest as written.
      val (k, raw) = (normal(key), key.toLowerCase(Locale.ROOT))
      Ours.map(o => (o, distance(k, normal(o)), distance(raw, o.toLowerCase(Locale.ROOT))))
        .filter { case (o, d, _) => d <= allowed(normal(o).length) }
        .sortBy { case (_, d, r) => (d, r) }.headOption.map(_._1)
    }
  }

  /** Typos tolerated in a name of `n` characters: none in the shortest (`tag`), up to two in long ones. */
  private def allowed(n: Int): Int = if (n < 4) 0 else if (n < 8) 1 else 2

  /** Refuses a write's keys that are misspellings of our options. */
  def refuseNearMisses(options: CaseInsensitiveStringMap): Unit =
    options.asCaseSensitiveMap().asScala.keys.toSeq.sorted.foreach(k => nearMiss(k).foreach(m => throw Errors.misspeltOption(k, m)))

  /** Warns of a read's keys that are misspellings of our options. */
  def warnNearMisses(options: CaseInsensitiveStringMap): Unit =
    options.asCaseSensitiveMap().asScala.keys.toSeq.sorted.foreach { k =>
      nearMiss(k).foreach(m => logWarning(s"option '$k' is not an option of the Lance source and is ignored; did you mean '$m'?"))
    }

  /** Edit distance with adjacent transpositions (optimal string alignment). */
  private def distance(a: String, b: String): Int = {
    val d = Array.tabulate(a.length + 1, b.length + 1)((i, j) => if (i == 0) j else if (j == 0) i else 0)
    for (i <- 1 to a.length; j <- 1 to b.length) {
      val cost = if (a(i - 1) == b(j - 1)) 0 else 1
      d(i)(j) = math.min(math.min(d(i - 1)(j) + 1, d(i)(j - 1) + 1), d(i - 1)(j - 1) + cost)
      if (i > 1 && j > 1 && a(i - 1) == b(j - 2) && a(i - 2) == b(j - 1)) d(i)(j) = math.min(d(i)(j), d(i - 2)(j - 2) + 1)
    }
    d(a.length)(b.length)
  }
}
