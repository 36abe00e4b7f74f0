package io.sparklance.testutil

import java.io.{BufferedReader, File, InputStreamReader}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{Executors, TimeUnit}

import io.sparklance.util.Json

/**
 * A local S3 server (SeaweedFS) for the duration of a suite, started by the project's one
 * launcher, python/tests/s3_server.py, run with the virtualenv's Python: it picks free ports
 * on 127.0.0.1, waits until the bucket answers a signed request and prints the endpoint as one
 * JSON line. [[stop]] ends it; if this JVM dies first, the launcher sees its standard input
 * close and stops the server itself.
 */
final class S3Server private (process: Process, val endpoint: String, val bucket: String, accessKey: String, secretKey: String, region: String) {

  /** s3a settings reaching this server (for a Hadoop Configuration, Spark confs or read options). */
  def hadoopConf: Map[String, String] = Map(
    "fs.s3a.endpoint" -> endpoint, "fs.s3a.endpoint.region" -> region, "fs.s3a.path.style.access" -> "true",
    "fs.s3a.connection.ssl.enabled" -> "false", "fs.s3a.access.key" -> accessKey, "fs.s3a.secret.key" -> secretKey,
    "fs.s3a.aws.credentials.provider" -> "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider")

  /** pylance's storage_options reaching this server (s3_server.py's Endpoint.pylance_options), for every bucket on it. */
  def pylanceOptions: Map[String, String] = Map(
    "aws_endpoint" -> endpoint, "aws_access_key_id" -> accessKey, "aws_secret_access_key" -> secretKey,
    "aws_region" -> region, "allow_http" -> "true")

  /** [[pylanceOptions]] as a JSON object, for a script's argument (the values hold no quote or backslash). */
  def pylanceOptionsJson: String = pylanceOptions.map { case (k, v) => s""""$k": "$v"""" }.mkString("{", ", ", "}")

  /**
   * Creates another bucket on this server (S3's CreateBucket, through pyarrow in the
   * virtualenv), for tables that span buckets. Hadoop caches one S3A file system per bucket
   * name in a JVM, so give each server's buckets fresh names.
   */
  def createBucket(name: String): Unit = {
    PylanceScript.run(
      """import sys, json
        |from pyarrow import fs
        |o = json.loads(sys.argv[1])
        |s3 = fs.S3FileSystem(access_key=o["aws_access_key_id"], secret_key=o["aws_secret_access_key"], region=o["aws_region"],
        |                     scheme="http", endpoint_override=o["aws_endpoint"].removeprefix("http://"), allow_bucket_creation=True)
        |s3.create_dir(sys.argv[2])
        |print(json.dumps({"type": s3.get_file_info(sys.argv[2]).type.name}))""".stripMargin,
      pylanceOptionsJson, name) match {
      case m if m.get("type").contains("Directory") => ()
      case m => throw new IllegalStateException(s"bucket $name was not created on $endpoint: $m")
    }
  }

  /** A Hadoop configuration with [[hadoopConf]] set. */
  def configuration(): org.apache.hadoop.conf.Configuration = {
    val c = new org.apache.hadoop.conf.Configuration()
    hadoopConf.foreach { case (k, v) => c.set(k, v) }
    c
  }

  def stop(): Unit = {
    process.destroy() // SIGTERM: the launcher stops SeaweedFS and removes its data
    if (!process.waitFor(20, TimeUnit.SECONDS)) process.destroyForcibly()
  }
}

object S3Server {
  private val StartSeconds = 120L

  def start(): S3Server = {
    val venv = sys.env.getOrElse("SPARK_LANCE_VENV", throw new IllegalStateException("SPARK_LANCE_VENV is not set (sbt sets it)"))
    val repo = sys.env.getOrElse("SPARK_LANCE_REPO", throw new IllegalStateException("SPARK_LANCE_REPO is not set (sbt sets it)"))
    val python = new File(venv, "bin/python")
    val script = new File(repo, "python/tests/s3_server.py")
    require(python.canExecute, s"$python is missing: run `make venv`")
    val log = File.createTempFile("s3-server-", ".log")
    val process = new ProcessBuilder(python.getPath, script.getPath, "--stop-on-eof").redirectError(log).start()
    // The first stdout line, read with a time limit (readLine itself would wait forever).
    val reader = Executors.newSingleThreadExecutor()
    val line =
      try reader.submit(() => new BufferedReader(new InputStreamReader(process.getInputStream, UTF_8)).readLine())
        .get(StartSeconds, TimeUnit.SECONDS)
      catch { case e: Exception => process.destroyForcibly(); throw new IllegalStateException(s"the S3 test server did not start; see $log", e) }
      finally reader.shutdownNow()
    if (line == null) throw new IllegalStateException(s"the S3 test server exited (${process.waitFor()}); see $log")
    val m = Json.parse(line).asInstanceOf[Map[String, Any]].map { case (k, v) => k -> v.toString }
    new S3Server(process, m("endpoint"), m("bucket"), m("access_key"), m("secret_key"), m("region"))
  }
}
