import java.io.File

/**
 * The Spark lines the connector is built for, and what each ships: the jar is compiled against
 * exactly these (all provided by Spark at run time) and for the Java the line runs on.
 *
 * A build picks one line with `-DsparkLine=4.1` (default: the newest) and, for 3.5, the Scala
 * binary with `-DscalaBinary=2.12` (default: 2.13). Code that differs between lines lives in
 * overlay source folders beside the shared code, named for the lines they serve (see [[overlays]]).
 */
object SparkLines {

  /**
   * One line. `hadoop` is the Hadoop client the line's Spark ships; `awsSdk` the AWS SDK that
   * Hadoop release's hadoop-aws was built with (its hadoop-project pom: v1's bundle for 3.3, v2's
   * modules from 3.4), named in our error for a missing s3a and used by the S3 tests; `java` is
   * the release the classes target.
   */
  final case class Line(line: String, spark: String, scala: Map[String, String], hadoop: String, awsSdk: String, java: Int) {
    private def parts(v: String): (Int, Int) = v.split('.') match { case Array(a, b) => (a.toInt, b.toInt) }
    def order: (Int, Int) = parts(line)

    /** Whether the overlay folder `spark-<range>` serves this line: `4.2`, `4.0-4.1` or `4.1+`. */
    def serves(range: String): Boolean = range.split('-') match {
      case Array(only) if only.endsWith("+") => Ordering[(Int, Int)].gteq(order, parts(only.dropRight(1)))
      case Array(only) => order == parts(only)
      case Array(from, to) => Ordering[(Int, Int)].gteq(order, parts(from)) && Ordering[(Int, Int)].lteq(order, parts(to))
      case _ => sys.error(s"overlay folder spark-$range: name the lines it serves as spark-4.2, spark-4.0-4.1 or spark-4.1+")
    }
  }

  val all: Seq[Line] = Seq(
    Line("3.5", "3.5.8", Map("2.12" -> "2.12.18", "2.13" -> "2.13.8"), "3.3.4", "1.12.262", 11),
    // Hadoop 3.4.1 was built with SDK 2.24.6, a release s3-transfer-manager skipped: the next one.
    Line("4.0", "4.0.4", Map("2.13" -> "2.13.16"), "3.4.1", "2.24.8", 17),
    Line("4.1", "4.1.3", Map("2.13" -> "2.13.17"), "3.4.2", "2.29.52", 17),
    Line("4.2", "4.2.0", Map("2.13" -> "2.13.18"), "3.5.0", "2.35.4", 17)
  )

  val current: Line = {
    val name = sys.props.getOrElse("sparkLine", all.last.line)
    all.find(_.line == name).getOrElse(sys.error(s"-DsparkLine=$name: the Spark lines are ${all.map(_.line).mkString(", ")}"))
  }

  val scalaBinary: String = {
    val binary = sys.props.getOrElse("scalaBinary", "2.13")
    if (!current.scala.contains(binary))
      sys.error(s"-DscalaBinary=$binary: Spark ${current.line} is built for Scala ${current.scala.keys.toSeq.sorted.mkString(" and ")}")
    binary
  }

  val scalaVersion: String = current.scala(scalaBinary)

  /** The suffix of everything built for this line: `4.2_2.13`. */
  val suffix: String = s"${current.line}_$scalaBinary"

  /** The overlay folders under `dir` (e.g. connector/src/main) that serve the current line, in name order. */
  def overlays(dir: File): Seq[File] =
    Option(dir.listFiles()).toSeq.flatten.filter(f => f.isDirectory && f.getName.startsWith("spark-"))
      .filter(f => current.serves(f.getName.stripPrefix("spark-"))).sortBy(_.getName)
}
