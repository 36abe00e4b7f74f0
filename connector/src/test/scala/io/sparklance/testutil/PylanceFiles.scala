package io.sparklance.testutil

import java.io.{File, FileOutputStream}
import java.nio.charset.StandardCharsets.UTF_8

import org.apache.arrow.vector.VectorSchemaRoot
import org.apache.arrow.vector.ipc.ArrowFileWriter

import io.sparklance.util.Json

/**
 * pylance as the oracle of the files our writer produces: `dev/golden/read_file.py` reads each
 * data file with `lance.file.LanceFileReader` and compares it, value by value and type by type,
 * with the Arrow IPC file of what was written. One Python process checks many files.
 */
object PylanceFiles {

  /** What pylance made of one file: equal or not, why not, and the page encodings per column. */
  final case class Verdict(file: String, equal: Boolean, error: Option[String], diff: Seq[String], pageEncodings: Seq[Seq[String]],
      columnBytes: Seq[Long]) {
    def problem: String = error.getOrElse(diff.mkString("; "))
  }

  /** Writes the batches, as they were given to the writer, to an Arrow IPC file. */
  def writeExpected(batches: Seq[VectorSchemaRoot], file: File): Unit = {
    val out = new FileOutputStream(file)
    try {
      val root = batches.head
      val w = new ArrowFileWriter(root, null, out.getChannel)
      w.start()
      // ArrowFileWriter writes the root it was built with; each batch is written through it.
      batches.foreach { b =>
        if (b ne root) new org.apache.arrow.vector.VectorUnloader(b).getRecordBatch match {
          case rb => try { new org.apache.arrow.vector.VectorLoader(root).load(rb) } finally rb.close()
        }
        w.writeBatch()
      }
      w.end()
      w.close()
    } finally out.close()
  }

  /** Checks `(expected Arrow file, Lance file)` pairs with pylance. */
  def check(pairs: Seq[(File, File)]): Seq[Verdict] =
    run("read_file.py", pairs.flatMap { case (e, l) => Seq(e.getPath, l.getPath) }, pairs.length).map { m =>
      Verdict(
        m("file").toString,
        m("equal") == true,
        m.get("error").map(_.toString),
        m.get("diff").map(_.asInstanceOf[Seq[Any]].map(_.toString)).getOrElse(Nil),
        m.get("columns").map(_.asInstanceOf[Seq[Any]].map(_.asInstanceOf[Seq[Any]].map(_.toString))).getOrElse(Nil),
        m.get("column_bytes").map(_.asInstanceOf[Seq[Any]].map(_.toString.toDouble.toLong)).getOrElse(Nil))
    }

  /** Asserts that pylance reads every Lance file of the pairs equal to its Arrow file; returns the verdicts. */
  def assertAllEqual(pairs: Seq[(File, File)]): Seq[Verdict] = {
    val verdicts = check(pairs)
    val bad = verdicts.filterNot(_.equal)
    org.scalatest.Assertions.assert(bad.isEmpty, bad.map(v => s"${v.file}: ${v.problem}").mkString("\n"))
    verdicts
  }

  /**
   * Writes each `(Arrow IPC file, Lance file)` pair's batches with pylance's own file writer in
   * file format `version` (`dev/golden/write_file.py`): the reference our encodings are compared
   * with. Returns pylance's refusal per file, if any.
   */
  def writeWithPylance(version: String, pairs: Seq[(File, File)]): Seq[Option[String]] =
    run("write_file.py", version +: pairs.flatMap { case (a, l) => Seq(a.getPath, l.getPath) }, pairs.length)
      .map(_.get("error").map(_.toString))

  /** Runs a `dev/golden` script that prints one JSON object per file, and parses them. */
  private def run(script: String, args: Seq[String], expected: Int): Vector[Map[String, Any]] = {
    val venv = sys.env.getOrElse("SPARK_LANCE_VENV", throw new IllegalStateException("SPARK_LANCE_VENV is not set (sbt sets it)"))
    val repo = sys.env.getOrElse("SPARK_LANCE_REPO", throw new IllegalStateException("SPARK_LANCE_REPO is not set (sbt sets it)"))
    val cmd = Seq(new File(venv, "bin/python").getPath, new File(repo, s"dev/golden/$script").getPath) ++ args
    val p = new ProcessBuilder(cmd: _*).redirectErrorStream(false).start()
    val stdout = new String(p.getInputStream.readAllBytes(), UTF_8)
    val stderr = new String(p.getErrorStream.readAllBytes(), UTF_8)
    p.waitFor()
    val lines = stdout.linesIterator.filter(_.startsWith("{")).toVector
    if (lines.length != expected)
      throw new IllegalStateException(s"$script answered ${lines.length} of $expected files (exit ${p.exitValue()}):\n$stdout\n$stderr")
    lines.map(line => Json.parse(line).asInstanceOf[Map[String, Any]])
  }
}
