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

  test("tags and branches written on S3: created, written to, moved and deleted") {
    val t = s"s3://$bucket/refs_written"
    def ids(opts: (String, String)*): Seq[Long] =
      spark.read.format("lance").options(opts.toMap).load(t).select("id").collect().map(_.getLong(0)).toSeq.sorted
    def call(sql: String) = spark.sql(s"CALL lance.system.$sql").collect().toSeq.map(_.toSeq)
    spark.range(3).write.format("lance").save(t)
    spark.range(3, 5).write.format("lance").mode("append").save(t)
    assert(call(s"create_tag(table => '$t', tag => 'first', version => 1)") == Seq(Seq[Any]("first", 1L, null)))
    assert(call(s"create_branch(table => '$t', branch => 'dev/x', version => 1)") == Seq(Seq[Any]("dev/x", 1L, null)))
    spark.range(10, 12).write.format("lance").option("branch", "dev/x").mode("append").save(t)
    assert(ids("branch" -> "dev/x") == Seq(0L, 1L, 2L, 10L, 11L) && ids() == (0L until 5L) && ids("tag" -> "first") == (0L until 3L))
    val dup = intercept[Exception](call(s"create_tag(table => '$t', tag => 'first', version => 2)"))
    assert(Iterator.iterate[Throwable](dup)(_.getCause).takeWhile(_ != null).exists(_.getMessage.contains("LANCE_REF_ALREADY_EXISTS")))
    call(s"create_tag(table => '$t', tag => 'first', branch => 'dev/x', replace => true)")
    assert(ids("tag" -> "first") == Seq(0L, 1L, 2L, 10L, 11L))
    call(s"delete_tag(table => '$t', tag => 'first')")
    call(s"delete_branch(table => '$t', branch => 'dev/x')")
    val fs = FileSystem.get(new URI(s"s3a://$bucket/"), server.configuration())
    // No object is left below the branch's folder (the local S3 server may still list an empty prefix as a folder).
    val left = fs.listFiles(new Path(s"s3a://$bucket/refs_written/tree"), true)
    assert(!left.hasNext, "files are left below tree/")
    assert(fs.listStatus(new Path(s"s3a://$bucket/refs_written/_refs/branches")).isEmpty)
  }

  test("a missing table on S3 is named") {
    val e = intercept[Exception](spark.read.format("lance").load(s"s3://$bucket/nothing-here").count())
    val all = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString(" | ")
    assert(all.contains("LANCE_DATASET_NOT_FOUND") && all.contains("nothing-here"), all)
  }
}
