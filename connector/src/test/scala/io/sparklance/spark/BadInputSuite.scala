package io.sparklance.spark

import java.io.File
import java.nio.file.{Files, StandardCopyOption}

import org.apache.commons.io.FileUtils
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.table.proto.TableProtos
import io.sparklance.testutil.{Golden, LocalSpark}
import io.sparklance.util.LanceException

/** Bad paths, damaged manifests and unknown features give our errors, naming the problem. */
class BadInputSuite extends AnyFunSuite with LocalSpark {

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
    assert(missing.getCondition == "LANCE_DATASET_NOT_FOUND")
    assert(missing.getSqlState == "42P01")
    assert(missing.getMessageParameters.get("message").contains("/definitely/not/here"))
    val uri = Golden.dataset("basic_types").uri
    val badOption = intercept[org.apache.spark.sql.AnalysisException](spark.read.format("lance").option("batchSize", "0").load(uri))
    assert((badOption.getCondition, badOption.getSqlState) == ("LANCE_INVALID_OPTION", "22023"))
    // In a task: Spark rethrows a SparkThrowable that failed a task as it is, not wrapped in
    // its job failure, so the caller sees our class here too.
    val dir = copyOf("basic_types")
    val data = new File(dir, "data").listFiles().head
    Files.write(data.toPath, Files.readAllBytes(data.toPath).take(data.length().toInt / 2))
    val inTask = intercept[org.apache.spark.sql.AnalysisException](spark.read.format("lance").load(dir.getPath).collect())
    assert((inTask.getCondition, inTask.getSqlState) == ("LANCE_CORRUPT_FILE", "XX001"))
    assert(inTask.getCause.asInstanceOf[LanceException].errorClass == "LANCE_CORRUPT_FILE")
  }
}
