package io.sparklance.spark

import java.net.URI

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{Golden, LocalSpark, PylanceScript, S3Server}

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
    // The source qualified (file:/...) as the local listing names its files: Hadoop 3.4.1's S3A
    // places each file by its path relative to the source and fails on a source without a scheme.
    val local = FileSystem.getLocal(conf)
    names.foreach(n => s3.copyFromLocalFile(false, true, local.makeQualified(new Path(Golden.dataset(n).uri)), new Path(s"s3a://$bucket/$n")))
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

  /**
   * pylance's read of a table on the S3 server: for each version asked (`latest` for the
   * latest), the version read and its rows (id, name) sorted by id; and the table's bases.
   */
  private val PylanceVersions =
    """import sys, json, lance
      |uri, opts = sys.argv[1], json.loads(sys.argv[2])
      |out = {"reads": {}}
      |for v in sys.argv[3:]:
      |    d = lance.dataset(uri, storage_options=opts) if v == "latest" else lance.dataset(uri, version=int(v), storage_options=opts)
      |    t = d.to_table(columns=["id", "name"]).sort_by("id")
      |    out["reads"][v] = [d.version, [[r["id"], r["name"]] for r in t.to_pylist()]]
      |print(json.dumps(out))
      |""".stripMargin

  private def pylanceVersions(uri: String, versions: String*): Map[String, (Long, Seq[(Long, String)])] =
    PylanceScript.run(PylanceVersions, (Seq(uri, server.pylanceOptionsJson) ++ versions): _*)("reads")
      .asInstanceOf[Map[String, Vector[Any]]].map { case (k, Vector(v: BigDecimal, rs: Vector[_])) =>
        k -> (v.toLongExact, rs.map { case Vector(id: BigDecimal, name: String) => (id.toLongExact, name) })
      }

  private def ourRows(uri: String, version: Long): Seq[(Long, String)] =
    spark.read.format("lance").option("version", version.toString).load(uri).select("id", "name").collect().toSeq
      .map(r => (r.getLong(0), r.getString(1))).sortBy(_._1)

  /** Keys of the objects below `prefix` of a bucket (s3a), as paths relative to it. */
  private def objects(bucketName: String, prefix: String): Seq[String] = {
    val fs = FileSystem.get(new URI(s"s3a://$bucketName/"), server.configuration())
    val dir = new Path(s"s3a://$bucketName/$prefix")
    if (!fs.exists(dir)) Nil
    else {
      val it = fs.listFiles(dir, true)
      Iterator.continually(it).takeWhile(_.hasNext).map(_.next().getPath.toString.stripPrefix(s"s3a://$bucketName/$prefix/")).toSeq
    }
  }

  test("a table over two buckets: initial and added bases, target writes and deletes, read by pylance version by version; pylance's writes continued") {
    val other = s"lance-bases-${java.util.UUID.randomUUID().toString.take(8)}"
    server.createBucket(other)
    val t = s"s3://$bucket/multi"
    def data(from: Int, until: Int) = spark.range(from, until).selectExpr("id", "concat('n', id) AS name").coalesce(1)
    // v1: the table created with base b2 in the other bucket, its files there; v2: appended to every base in turn.
    data(0, 6).write.format("lance").option("initialBases", s"""[{"name": "b2", "path": "s3://$other/multi_b2"}]""")
      .option("targetBases", "b2").option("maxRowsPerFile", "3").save(t)
    data(6, 12).write.format("lance").mode("append").option("targetAllBases", "true").option("maxRowsPerFile", "3").save(t)
    // v3: a delete of rows whose files lie in the other bucket and in the table's own folder.
    spark.conf.set("spark.sql.catalog.mbs3", classOf[io.sparklance.spark.catalog.LanceCatalog].getName)
    spark.conf.set("spark.sql.catalog.mbs3.warehouse", s"s3://$bucket/wh")
    spark.sql(s"DELETE FROM mbs3.`$t` WHERE id IN (1, 7, 10)")
    // v4: a third location, in the primary bucket; v5: written to it by name.
    assert(spark.sql(s"CALL lance.system.add_bases(table => '$t', bases => map('b3', 's3://$bucket/multi_b3'))").collect().toSeq
      .map(r => (r.getInt(0), r.getString(1), r.getLong(4))) == Seq((2, "b3", 4L)))
    data(12, 15).write.format("lance").mode("append").option("targetBases", "b3").save(t)
    spark.sql(s"UPDATE mbs3.`$t` SET name = 'changed' WHERE id = 13") // v6

    assert(objects(other, "multi_b2").count(_.endsWith(".lance")) == 3, objects(other, "multi_b2"))
    assert(objects(bucket, "multi_b3").count(_.endsWith(".lance")) >= 1, objects(bucket, "multi_b3"))
    val expected = Map(
      1L -> (0L until 6L), 2L -> (0L until 12L), 3L -> (0L until 12L).filterNot(Set(1L, 7L, 10L)),
      4L -> (0L until 12L).filterNot(Set(1L, 7L, 10L)), 5L -> (0L until 15L).filterNot(Set(1L, 7L, 10L)))
    val seen = pylanceVersions(t, (1 to 6).map(_.toString): _*)
    expected.foreach { case (v, ids) =>
      assert(seen(v.toString) == ((v, ids.map(i => (i, s"n$i")))), s"version $v")
      assert(ourRows(t, v) == seen(v.toString)._2, s"version $v")
    }
    assert(seen("6")._2.find(_._1 == 13L).contains((13L, "changed")) && ourRows(t, 6) == seen("6")._2)

    // pylance continues: an append to b2 and a delete (v7, v8); we append to b3 after it (v9).
    PylanceScript.run(
      """import sys, json, lance, pyarrow as pa
        |uri, opts = sys.argv[1], json.loads(sys.argv[2])
        |lance.write_dataset(pa.table({"id": pa.array([20, 21], pa.int64()), "name": ["n20", "n21"]}), uri, mode="append",
        |                    target_bases=["b2"], storage_options=opts)
        |lance.dataset(uri, storage_options=opts).delete("id = 0")
        |print("{}")""".stripMargin, t, server.pylanceOptionsJson)
    assert(objects(other, "multi_b2").count(_.endsWith(".lance")) == 4)
    data(30, 32).write.format("lance").mode("append").option("targetBases", "b3").save(t)
    val finalIds = ((2L until 15L) ++ Seq(20L, 21L, 30L, 31L)).filterNot(Set(7L, 10L))
    val last = pylanceVersions(t, "7", "8", "latest")
    assert(last("latest")._1 == 9L)
    assert(last("latest")._2 == finalIds.map(i => (i, if (i == 13L) "changed" else s"n$i")))
    Seq(7L, 8L, 9L).foreach(v => assert(ourRows(t, v) == last(if (v == 9L) "latest" else v.toString)._2, s"version $v"))
  }

  test("a missing table on S3 is named") {
    val e = intercept[Exception](spark.read.format("lance").load(s"s3://$bucket/nothing-here").count())
    val all = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString(" | ")
    assert(all.contains("LANCE_DATASET_NOT_FOUND") && all.contains("nothing-here"), all)
  }
}
