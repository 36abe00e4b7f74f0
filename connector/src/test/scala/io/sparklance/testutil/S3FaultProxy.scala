package io.sparklance.testutil

import java.io.{BufferedReader, File, InputStreamReader}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.TimeUnit

import io.sparklance.util.Json

/**
 * The project's fault-injecting proxy (python/tests/s3_fault_proxy.py) in front of an
 * [[S3Server]], for the Scala suites: S3A talks to [[endpoint]], the proxy forwards every request
 * to the server and spoils those its rules match (`kind` LOSE, SLOW_DOWN, CONFLICT or DELAY, a
 * regular expression on the object key, how many `times`; None: always). [[stop]] ends it and
 * returns the faults it injected, by kind.
 */
final class S3FaultProxy private (process: Process, reader: BufferedReader, val endpoint: String) {

  /** Hadoop settings reaching `server` through this proxy, in a file system of its own (not S3A's cached one). */
  def configuration(server: S3Server): org.apache.hadoop.conf.Configuration = {
    val c = server.configuration()
    c.set("fs.s3a.endpoint", endpoint)
    c.set("fs.s3a.impl.disable.cache", "true")
    c
  }

  def stop(): Map[String, Int] = {
    process.getOutputStream.close() // the script stops the proxy at the end of its input
    val last = Iterator.continually(reader.readLine()).takeWhile(_ != null).filter(_.startsWith("{")).toSeq.lastOption
    if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly()
    last.map(l => Json.parse(l).asInstanceOf[Map[String, Any]]("fired").asInstanceOf[Map[String, Any]]
      .map { case (k, v) => k -> v.asInstanceOf[BigDecimal].toIntExact }).getOrElse(Map.empty)
  }
}

object S3FaultProxy {
  final case class Rule(kind: String, key: String, times: Option[Int] = Some(1))

  private val Script =
    """import json, os, sys
      |sys.path.insert(0, sys.argv[1])
      |from s3_fault_proxy import FaultProxy
      |with FaultProxy.started(sys.argv[2]) as proxy:
      |    for r in json.loads(sys.argv[3]):
      |        proxy.fail(r["kind"], r["key"], times=r["times"])
      |    print(json.dumps({"endpoint": proxy.endpoint}), flush=True)
      |    sys.stdin.read()
      |    print(json.dumps({"fired": dict(proxy.fired())}), flush=True)
      |    # Done: the OS closes every socket at once, where stop() would wait for connection
      |    # threads still reading kept-alive client connections.
      |    os._exit(0)""".stripMargin

  def start(server: S3Server, rules: Rule*): S3FaultProxy = {
    val venv = sys.env.getOrElse("SPARK_LANCE_VENV", throw new IllegalStateException("SPARK_LANCE_VENV is not set (sbt sets it)"))
    val repo = sys.env.getOrElse("SPARK_LANCE_REPO", throw new IllegalStateException("SPARK_LANCE_REPO is not set (sbt sets it)"))
    val json = rules.map(r => s"""{"kind": "${r.kind}", "key": "${r.key.replace("\\", "\\\\")}", "times": ${r.times.fold("null")(_.toString)}}""")
      .mkString("[", ", ", "]")
    val process = new ProcessBuilder(new File(venv, "bin/python").getPath, "-c", Script, new File(repo, "python/tests").getPath,
      server.endpoint, json).redirectError(ProcessBuilder.Redirect.INHERIT).start()
    val reader = new BufferedReader(new InputStreamReader(process.getInputStream, UTF_8))
    val first = reader.readLine()
    if (first == null) { process.destroyForcibly(); throw new IllegalStateException("the S3 fault proxy did not start") }
    new S3FaultProxy(process, reader, Json.parse(first).asInstanceOf[Map[String, Any]]("endpoint").toString)
  }
}
