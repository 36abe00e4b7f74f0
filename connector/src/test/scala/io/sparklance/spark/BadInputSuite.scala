package io.sparklance.spark

import java.io.File
import java.nio.file.{Files, StandardCopyOption}

import org.apache.commons.io.FileUtils
import org.scalatest.concurrent.{Signaler, TimeLimits}
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.time.SpanSugar._

import io.sparklance.table.proto.TableProtos
import io.sparklance.testutil.ErrorConditions._
import io.sparklance.testutil.{Golden, HostileCopies, InTask, LocalSpark}
import io.sparklance.util.LanceException

/** Bad paths, damaged manifests and unknown features give our errors, naming the problem. */
class BadInputSuite extends AnyFunSuite with LocalSpark with TimeLimits {

  private def errorOf(f: => Any): LanceException = {
    val t = intercept[Throwable](f)
    Iterator.iterate(t)(_.getCause).takeWhile(_ != null).collectFirst { case e: LanceException => e }
      .getOrElse(fail(s"expected a LanceException, got $t", t))
  }

  private def copyOf(name: String): File = {
    val dst = Files.createTempDirectory("lance-bad").toFile
    FileUtils.copyDirectory(new File(Golden.dataset(name).uri), dst)
    dst
  }

  private def latestManifest(dir: File): File =
    new File(dir, "_versions").listFiles().filter(_.getName.endsWith(".manifest")).minBy(_.getName) // V2 names: newest first

  test("a path with nothing there") {
    val e = errorOf(spark.read.format("lance").load("/definitely/not/here").count())
    assert(e.errorClass == "LANCE_DATASET_NOT_FOUND")
    assert(e.getMessage.contains("/definitely/not/here"))
  }

  test("a Parquet folder") {
    val dir = Files.createTempDirectory("pq").toFile
    spark.range(3).write.mode("overwrite").parquet(dir.getPath)
    val e = errorOf(spark.read.format("lance").load(dir.getPath).count())
    assert(e.errorClass == "LANCE_DATASET_NOT_FOUND")
    assert(e.getMessage.contains("Parquet"))
  }

  test("a truncated manifest") {
    val dir = copyOf("projection_and_count")
    val m = latestManifest(dir)
    val bytes = Files.readAllBytes(m.toPath)
    Seq(bytes.length / 2, bytes.length - 1, 10, 0).foreach { n =>
      Files.write(m.toPath, bytes.take(n))
      val e = errorOf(spark.read.format("lance").load(dir.getPath).count())
      assert(e.errorClass == "LANCE_CORRUPT_FILE", s"truncated to $n: $e")
      assert(e.getMessage.contains(m.getName))
    }
  }

  test("an unknown reader feature flag is refused, naming it") {
    val dir = copyOf("projection_and_count")
    val m = latestManifest(dir)
    val bytes = Files.readAllBytes(m.toPath)
    val n = bytes.length
    val pos = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(n - 16).toInt
    val manifest = TableProtos.Manifest.parseFrom(java.util.Arrays.copyOfRange(bytes, pos + 4, n - 16))
    val patched = manifest.toBuilder.setReaderFeatureFlags(manifest.getReaderFeatureFlags | 1024).build().toByteArray
    val out = java.nio.ByteBuffer.allocate(pos + 4 + patched.length + 16).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    out.put(bytes, 0, pos).putInt(patched.length).put(patched).putLong(pos.toLong).putShort(0).putShort(2).put("LANC".getBytes)
    Files.write(m.toPath, out.array())
    val e = errorOf(spark.read.format("lance").load(dir.getPath).count())
    assert(e.errorClass == "LANCE_UNSUPPORTED_FEATURE")
    assert(e.getMessage.contains("0x400"))
  }

  test("a data file the manifest names is missing") {
    val dir = copyOf("projection_and_count")
    val data = new File(dir, "data").listFiles().head
    Files.move(data.toPath, new File(dir, "moved.lance").toPath, StandardCopyOption.REPLACE_EXISTING)
    val e = errorOf(spark.read.format("lance").load(dir.getPath).collect())
    assert(e.errorClass == "LANCE_FILE_NOT_FOUND")
    assert(e.getMessage.contains(data.getName))
  }

  test("options with wrong values name the option") {
    val uri = Golden.dataset("basic_types").uri
    assert(errorOf(spark.read.format("lance").option("version", "x").load(uri)).getMessage.contains("'version'"))
    assert(errorOf(spark.read.format("lance").option("batchSize", "0").load(uri)).getMessage.contains("'batchSize'"))
    val missing = errorOf(spark.read.format("lance").option("version", "9").load(uri))
    assert(missing.errorClass == "LANCE_VERSION_NOT_FOUND")
    assert(missing.getMessage.contains("1, 2, 3"))
  }

  test("file format 2.3 ('next', unstable) is refused, naming the version") {
    val e = errorOf(spark.read.format("lance").load(Golden.dataset("next_v2_3").uri).collect())
    assert(e.errorClass == "LANCE_UNSUPPORTED_FILE_VERSION")
    assert(e.getMessage.contains("2.3"))
  }

  test("errors reach Spark as SparkThrowables that keep the class and carry a SQLSTATE") {
    // On the driver: the exception Spark's caller gets is ours, an AnalysisException.
    val missing = intercept[org.apache.spark.sql.AnalysisException](spark.read.format("lance").load("/definitely/not/here"))
    assert(missing.isInstanceOf[LanceSparkException])
    assert(missing.condition == "LANCE_DATASET_NOT_FOUND")
    assert(missing.getSqlState == "42P01")
    assert(missing.getMessageParameters.get("message").contains("/definitely/not/here"))
    val uri = Golden.dataset("basic_types").uri
    val badOption = intercept[org.apache.spark.sql.AnalysisException](spark.read.format("lance").option("batchSize", "0").load(uri))
    assert((badOption.condition, badOption.getSqlState) == ("LANCE_INVALID_OPTION", "22023"))
    // In a task: Spark 4 rethrows a SparkThrowable that failed a task as it is, not wrapped in
    // its job failure, so the caller sees our class here too (Spark 3.5 wraps it: InTask unwraps).
    val dir = copyOf("basic_types")
    val data = new File(dir, "data").listFiles().head
    Files.write(data.toPath, Files.readAllBytes(data.toPath).take(data.length().toInt / 2))
    val inTask = InTask.error[org.apache.spark.sql.AnalysisException](spark.read.format("lance").load(dir.getPath).collect())
    assert((inTask.condition, inTask.getSqlState) == ("LANCE_CORRUPT_FILE", "XX001"))
    assert(inTask.getCause.asInstanceOf[LanceException].errorClass == "LANCE_CORRUPT_FILE")
  }

  // ---- paths that climb out of the table ----------------------------------------------

  test("a data file path climbing into another dataset is refused, not read as table rows") {
    val table = HostileCopies.copy("projection_and_count")
    val elsewhere = new File(table.getParentFile, "elsewhere")
    FileUtils.copyDirectory(new File(Golden.dataset("basic_types").uri), elsewhere)
    val foreign = new File(elsewhere, "data").listFiles().head.getName
    val m = HostileCopies.newestManifest(table)
    HostileCopies.editManifest(m) { b =>
      b.setFragments(0, b.getFragments(0).toBuilder.setFiles(0, b.getFragments(0).getFiles(0).toBuilder.setPath(s"../../elsewhere/data/$foreign")))
    }
    val e = errorOf(spark.read.format("lance").load(table.getPath).collect())
    assert(e.errorClass == "LANCE_CORRUPT_FILE" && e.getMessage.contains(m.getName) && e.getMessage.contains(foreign), e.getMessage)
    HostileCopies.editManifest(m)(b => b.setFragments(0, b.getFragments(0).toBuilder.setFiles(0, b.getFragments(0).getFiles(0).toBuilder.setPath("../../../../../../../../etc/passwd"))))
    val passwd = errorOf(spark.read.format("lance").load(table.getPath).collect())
    assert(passwd.errorClass == "LANCE_CORRUPT_FILE" && !passwd.getMessage.contains("root:"), passwd.getMessage)
  }

  test("a 2.x data file missing column indices is refused rather than read as nulls") {
    val table = HostileCopies.copy("projection_and_count")
    HostileCopies.editManifest(HostileCopies.newestManifest(table)) { b =>
      val d = b.getFragments(0).getFiles(0).toBuilder
      val keep = d.getColumnIndicesList.subList(0, d.getColumnIndicesCount - 1)
      b.setFragments(0, b.getFragments(0).toBuilder.setFiles(0, d.clearColumnIndices().addAllColumnIndices(new java.util.ArrayList(keep))))
    }
    assert(errorOf(spark.read.format("lance").load(table.getPath).collect()).errorClass == "LANCE_CORRUPT_FILE")
  }

  test("a named pipe in place of a data file fails the query instead of hanging it") {
    val table = HostileCopies.copy("projection_and_count")
    val fifos = new File(table, "data").listFiles().toSeq
    fifos.foreach(HostileCopies.mkfifo)
    implicit val release: Signaler = (t: Thread) => { fifos.foreach(HostileCopies.release); t.interrupt() }
    failAfter(120.seconds) {
      val e = errorOf(spark.read.format("lance").load(table.getPath).collect())
      assert(e.errorClass == "LANCE_CORRUPT_FILE" && e.getMessage.contains("named pipe"), e.getMessage)
    }
  }

  test("allowedBasePaths: base paths under the listed prefixes read, others are refused") {
    val uri = Golden.dataset("multi_base").uri
    val store = new io.sparklance.storage.hadoop.HadoopObjectStore(new org.apache.hadoop.conf.Configuration())
    val parent = new File(io.sparklance.table.Snapshot.open(store, uri, None).manifest.basePaths.head.path).getParent
    val all = spark.read.format("lance").load(uri).count()
    assert(spark.read.format("lance").option("allowedBasePaths", s"/nowhere, $parent").load(uri).count() == all)
    Seq("/nowhere", s"$parent/bucket1", s"$parent/bucket").foreach { allowed =>
      assert(errorOf(spark.read.format("lance").option("allowedBasePaths", allowed).load(uri)).errorClass == "LANCE_BASE_PATH_NOT_ALLOWED", allowed)
    }
    assert(errorOf(spark.read.format("lance").option("allowedBasePaths", " , ").load(uri)).errorClass == "LANCE_INVALID_OPTION")
  }

  // ---- storage: missing file systems, credentials -------------------------------------

  private val Secret = "h2SuperSecret"

  private def chain(t: Throwable): Seq[Throwable] = Iterator.iterate(t)(_.getCause).takeWhile(_ != null).toSeq

  test("a scheme without its file system names the jars to add") {
    val missing = Map("fs.s3a.impl" -> "org.example.NotOnTheClasspath")
    Seq("s3://h2-no-such-bucket/t", "s3a://h2-no-such-bucket/t", "s3n://h2-no-such-bucket/t").foreach { uri =>
      val e = errorOf(spark.read.format("lance").options(missing).load(uri))
      assert(e.errorClass == "LANCE_FILE_SYSTEM_NOT_FOUND" && e.getMessage.contains(s"org.apache.hadoop:hadoop-aws:${io.sparklance.util.BuildInfo.hadoop}") &&
        e.getMessage.contains(if (io.sparklance.util.BuildInfo.hadoop.startsWith("3.3.")) "aws-java-sdk-bundle" else s"software.amazon.awssdk:s3:${io.sparklance.util.BuildInfo.awsSdk}"),
        e.getMessage)
    }
    val noSdk = Map("fs.s3a.impl" -> classOf[io.sparklance.storage.hadoop.MissingSdkFileSystem].getName, "fs.s3a.impl.disable.cache" -> "true")
    val sdk = errorOf(spark.read.format("lance").options(noSdk).load("s3://h2-no-such-bucket/t"))
    val sdkJars = if (io.sparklance.util.BuildInfo.hadoop.startsWith("3.3.")) "aws-java-sdk-bundle" else "software.amazon.awssdk"
    assert(sdk.errorClass == "LANCE_FILE_SYSTEM_NOT_FOUND" && sdk.getMessage.contains(sdkJars), sdk.getMessage)
    val other = errorOf(spark.read.format("lance").load("nosuchfs://host/t"))
    assert(other.errorClass == "LANCE_FILE_SYSTEM_NOT_FOUND" && other.getMessage.contains("'nosuchfs://'"), other.getMessage)
  }

  test("credentials in a URI appear in no error, cause, table name or plan string") {
    val missing = Map("fs.s3a.impl" -> "org.example.NotOnTheClasspath")
    Seq(s"s3a://AKIAH2EXAMPLE:$Secret@h2-no-such-bucket/t", s"s3://AKIAH2EXAMPLE:$Secret/with+slash@h2-no-such-bucket/t",
        s"nosuchfs://user:$Secret@host:1234/t").foreach { uri =>
      val e = errorOf(spark.read.format("lance").options(missing).load(uri))
      chain(e).foreach { t =>
        assert(!String.valueOf(t.getMessage).contains(Secret) && !t.toString.contains(Secret), t.toString)
      }
      assert(e.getMessage.contains("***@"), e.getMessage)
    }
    val uri = Golden.dataset("basic_types").uri
    val store = new io.sparklance.storage.hadoop.HadoopObjectStore(new org.apache.hadoop.conf.Configuration())
    val snapshot = io.sparklance.table.Snapshot.open(store, uri, None).copy(root = s"s3a://AKIAH2EXAMPLE:$Secret@bucket/t")
    val options = LanceOptions.parse(new org.apache.spark.sql.util.CaseInsensitiveStringMap(java.util.Map.of("path", uri)))
    val table = new LanceTable(Right(snapshot), options, new io.sparklance.storage.hadoop.HadoopObjectStoreFactory(new org.apache.hadoop.conf.Configuration()))
    val scan = new LanceScanBuilder(table).build()
    Seq(table.name(), scan.description(), new LanceAggregateScan(snapshot.root, 3, table.schema(), Seq.fill(table.schema().length)(null)).description())
      .foreach { shown => assert(!shown.contains(Secret) && shown.contains("s3a://***@bucket/t"), shown) }
  }

  test("a path its file system refuses (another authority, a NUL) is a LANCE error that shows no credentials") {
    val table = Golden.dataset("basic_types").uri
    spark.conf.set("spark.sql.catalog.badpaths", classOf[io.sparklance.spark.catalog.LanceCatalog].getName)
    spark.conf.set("spark.sql.catalog.badpaths.warehouse", Files.createTempDirectory("lance-bad-wh").toUri.toString)
    val withKeys = s"file://AKIAH2EXAMPLE:$Secret@$table"
    for (read <- Seq[() => Any](() => spark.read.format("lance").load(withKeys).count(), () => spark.sql(s"SELECT * FROM badpaths.`$withKeys`").count())) {
      val t = InTask.error[LanceSparkException](read())
      assert(t.condition == "LANCE_INVALID_ARGUMENT" && t.getMessage.contains("Wrong FS") && t.getMessage.contains("***@"), t.getMessage)
      chain(t).foreach(x => assert(!String.valueOf(x.getMessage).contains(Secret) && !x.toString.contains(Secret), x.toString))
    }
    // A read finds nothing at such a path (LANCE_DATASET_NOT_FOUND); a write is refused by the file system.
    val dir = Files.createTempDirectory("lance-nul").toFile
    val nul = InTask.error[LanceSparkException](spark.range(1).write.format("lance").save(s"$dir/a\u0000b"))
    assert(nul.condition == "LANCE_INVALID_ARGUMENT" && nul.getMessage.contains("Nul character"), nul.getMessage)
    assert(dir.list().isEmpty)
  }
}
