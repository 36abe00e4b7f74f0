package io.sparklance.testutil

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8

import io.sparklance.util.Json

/** Runs a short Python script with the pinned pylance (the test virtualenv sbt names) and parses its last JSON line. */
object PylanceScript {
  def run(script: String, args: String*): Map[String, Any] = {
    val venv = sys.env.getOrElse("SPARK_LANCE_VENV", throw new IllegalStateException("SPARK_LANCE_VENV is not set (sbt sets it)"))
    val p = new ProcessBuilder((Seq(new File(venv, "bin/python").getPath, "-c", script) ++ args): _*).redirectErrorStream(true).start()
    val out = new String(p.getInputStream.readAllBytes(), UTF_8)
    if (p.waitFor() != 0) throw new AssertionError(s"the pylance script failed:\n$out")
    Json.parse(out.linesIterator.filter(_.startsWith("{")).toSeq.lastOption
      .getOrElse(throw new AssertionError(s"the pylance script printed no JSON:\n$out"))).asInstanceOf[Map[String, Any]]
  }
}
