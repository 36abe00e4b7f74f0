package io.sparklance

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import org.apache.spark.sql.connector.catalog.Identifier
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.spark.OptionNames
import io.sparklance.spark.procedures.LanceProcedures
import io.sparklance.util.ErrorStates

/**
 * Keeps the documentation true to the code: every procedure and parameter, error class, option
 * and session setting the connector has is documented in its page under docs/, and every
 * relative link of README.md and docs/ points to a file that exists.
 */
class DocsSuite extends AnyFunSuite {

  /** The repository's root: the working directory (sbt runs tests from it or from connector/) or a parent. */
  private lazy val root: File =
    Iterator.iterate(new File(".").getAbsoluteFile)(_.getParentFile).takeWhile(_ != null)
      .find(d => new File(d, "build.sbt").isFile && new File(d, "docs").isDirectory)
      .getOrElse(fail(s"repository root (build.sbt and docs/) not found above ${new File(".").getAbsolutePath}"))

  private def read(f: File): String = new String(Files.readAllBytes(f.toPath), StandardCharsets.UTF_8)
  private def doc(name: String): String = read(new File(root, s"docs/$name"))

  private lazy val mainSources: Seq[String] = {
    def walk(d: File): Seq[File] =
      Option(d.listFiles()).toSeq.flatten.flatMap(f => if (f.isDirectory) walk(f) else Seq(f).filter(_.getName.endsWith(".scala")))
    walk(new File(root, "connector/src/main")).map(read)
  }

  /** Every match of `regex`'s first group in the main sources. */
  private def inSources(regex: String): Set[String] =
    mainSources.flatMap(s => regex.r.findAllMatchIn(s).map(_.group(1))).toSet

  /** `name` as a whole word of `text` (not a part of a longer name). */
  private def mentions(text: String, name: String): Boolean =
    ("(?<![A-Za-z0-9_.])" + java.util.regex.Pattern.quote(name) + "(?![A-Za-z0-9_])").r.findFirstIn(text).isDefined

  test("every procedure and each of its parameters is in docs/sql.md") {
    val sql = doc("sql.md")
    assert(LanceProcedures.names.length >= 9)
    val missing = LanceProcedures.names.flatMap { n =>
      val params = LanceProcedures.load(Identifier.of(Array(LanceProcedures.Namespace), n), None).parameters.map(_.name)
      assert(params.nonEmpty)
      // A procedure's section is headed by its name; its parameters are named after it (before the next procedure's).
      val at = sql.indexOf(s"### `$n`")
      if (at < 0) Seq(s"procedure $n (a heading ### `$n`)")
      else {
        val end = sql.indexOf("\n### ", at + 1) match { case -1 => sql.length; case e => e }
        params.filterNot(p => mentions(sql.substring(at, end), p)).map(p => s"parameter $p of $n")
      }
    }
    assert(missing.isEmpty, s"not documented in docs/sql.md: ${missing.mkString(", ")}")
  }

  test("every error class the code can raise is a heading in docs/errors.md") {
    val classes = ErrorStates.byClass.keySet ++ inSources("\"(LANCE_[A-Z_]+)\"")
    assert(classes.size >= 27 && classes("LANCE_COMMIT_CONFLICT"))
    val headings = doc("errors.md").linesIterator.filter(_.startsWith("#")).mkString("\n")
    val missing = classes.toSeq.sorted.filterNot(c => mentions(headings, c))
    assert(missing.isEmpty, s"error classes without a heading in docs/errors.md: ${missing.mkString(", ")}")
  }

  test("every option and session setting is in docs/options.md") {
    val options = doc("options.md")
    val confs = inSources("\"(spark\\.sql\\.lance\\.[A-Za-z0-9_.]+)\"")
    assert(OptionNames.Ours.length >= 20 && confs.nonEmpty)
    val missing = (OptionNames.Ours ++ confs.toSeq.sorted).filterNot(n => options.contains(s"`$n`"))
    assert(missing.isEmpty, s"options or session settings not in docs/options.md: ${missing.mkString(", ")}")
  }

  test("every relative link of README.md and docs/ points to an existing file") {
    val pages = new File(root, "README.md") +: Option(new File(root, "docs").listFiles()).toSeq.flatten.filter(_.getName.endsWith(".md"))
    assert(pages.length >= 9)
    val link = """\]\(([^)\s]+)\)""".r
    val broken = for {
      page <- pages
      target <- link.findAllMatchIn(read(page)).map(_.group(1)).toSeq
      if !target.matches("^[a-z][a-z0-9+.-]*:.*") && !target.startsWith("#")
      file = target.takeWhile(_ != '#')
      if !new File(page.getParentFile, file).exists()
    } yield s"${root.toPath.relativize(page.toPath)} -> $target"
    assert(broken.isEmpty, s"links to files that do not exist: ${broken.mkString(", ")}")
  }
}
