package io.sparklance.spark

import java.net.URI

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{Golden, LocalSpark, S3Server}

/**
 * Tables on S3: `s3://` URIs read through Hadoop's s3a from a local S3 server (SeaweedFS,
 * testutil.S3Server) return the same rows as the local copies, whose rows other suites compare
 * with pylance. Object stores have no directories and list by prefix, so this covers version
 * listing, the version hint, refs and deletion files on S3's terms.
 */
class S3Suite extends AnyFunSuite with LocalSpark {
  private var server: S3Server = _
  private def bucket = server.bucket

  override protected def beforeAll(): Unit = {
    server = S3Server.start()
    super.beforeAll()
    server.hadoopConf.foreach { case (k, v) => spark.conf.set(k, v) }
    upload("basic_types", "deletions", "branches_tags")
  }

  override protected def afterAll(): Unit =
    try super.afterAll() finally if (server != null) server.stop()

  private def upload(names: String*): Unit = {
    val conf = new Configuration(spark.sparkContext.hadoopConfiguration)
    spark.conf.getAll.filter(_._1.startsWith("fs.s3a.")).foreach { case (k, v) => conf.set(k, v) }
    val s3 = FileSystem.get(new URI(s"s3a://$bucket/"), conf)
    // S3A's own copy from local files: one PUT per file (71 requests for these 65 files).
    // FileUtil.copy goes through mkdirs() and create(), whose directory markers and checks for
    // parents and existing entries made it 419 requests, most of the suite's.
    names.foreach(n => s3.copyFromLocalFile(false, true, new Path(Golden.dataset(n).uri), new Path(s"s3a://$bucket/$n")))
  }

  /** Rows as comparable text (binary values by their bytes, not their array identity). */
  private def rows(uri: String, options: (String, String)*): Seq[String] =
    spark.read.format("lance").options(options.toMap).load(uri).collect().toSeq
      .map(_.toSeq.map { case b: Array[Byte] => b.toSeq; case v => v }.mkString("[", ",", "]"))

  test("every version of a table on s3:// reads like its local copy") {
    val ds = Golden.dataset("basic_types")
    ds.versions.foreach { v =>
      assert(rows(s"s3://$bucket/basic_types", "version" -> v.toString) == rows(ds.uri, "version" -> v.toString), s"v$v")
    }
    assert(rows(s"s3a://$bucket/basic_types") == rows(ds.uri))
    assert(spark.read.format("lance").load(s"s3://$bucket/basic_types").count() == 5200)
  }

  test("deletion files, tags and branches on S3") {
    assert(rows(s"s3://$bucket/deletions") == rows(Golden.dataset("deletions").uri))
    val local = Golden.dataset("branches_tags").uri
    val remote = s"s3://$bucket/branches_tags"
    assert(rows(remote, "tag" -> "dev_snapshot") == rows(local, "tag" -> "dev_snapshot"))
    assert(rows(remote, "branch" -> "dev/feature") == rows(local, "branch" -> "dev/feature"))
  }

  test("a missing table on S3 is named") {
    val e = intercept[Exception](spark.read.format("lance").load(s"s3://$bucket/nothing-here").count())
    val all = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString(" | ")
    assert(all.contains("LANCE_DATASET_NOT_FOUND") && all.contains("nothing-here"), all)
  }
}
