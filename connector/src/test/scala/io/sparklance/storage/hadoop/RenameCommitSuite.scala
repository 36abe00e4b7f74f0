package io.sparklance.storage.hadoop

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.table.Snapshot
import io.sparklance.table.commit.{CommitOutcome, CommitRequest, NewTable, TableCommitter}
import io.sparklance.table.commit.Operation.Append
import io.sparklance.format.FileVersion
import io.sparklance.testutil.CommitFixtures._
import io.sparklance.testutil.LocalSpark

/** Commits through the rename protocol (HDFS's), on local files posing as HDFS ([[RenameFileSystem]]). */
class RenameCommitSuite extends AnyFunSuite with LocalSpark {

  private val store = new HadoopObjectStore(RenameFileSystem.configure(new Configuration()))

  private def newTable(): (String, String) = {
    val local = new File(Files.createTempDirectory("rename-commit").toFile, "t.lance").getPath
    (local, s"hdfs://test$local")
  }

  test("a rename that went through but is answered \"already exists\" (sent again) commits once") {
    val (local, uri) = newTable()
    new TableCommitter(store, uri).commit(CommitRequest(None, Append(IndexedSeq(fragment(store, uri, Seq(0L)))),
      newTable = Some(NewTable(schema, FileVersion.V2_2, stableRowIds = false))))
    val hits = StorageFaults.inject(StorageFaults.Manifest, StorageFaults.StoredThenExists)
    try {
      val outcome = new TableCommitter(store, uri).commit(CommitRequest(Some(1), Append(IndexedSeq(fragment(store, uri, Seq(1L))))))
      assert(hits() == 1 && outcome == CommitOutcome(2, 1, duplicate = false))
    } finally StorageFaults.clear()
    assert(Snapshot.listVersions(store, uri).map(_._1) == Seq(1L, 2L))
    assert(pylanceRead(local).rows == expected(Seq(0L, 1L)))
  }

  test("every file a version names is synced before the version is committed (data, transaction, deletion files)") {
    RenameFileSystem.configure(spark.sparkContext.hadoopConfiguration)
    val (local, uri) = newTable()
    RenameFileSystem.closedSynced.clear()
    spark.range(0, 50).selectExpr("id", "cast(id AS STRING) AS s").coalesce(1).write.format("lance").option("maxRowsPerFile", "20").save(uri)
    spark.sql(s"CREATE TABLE rt USING lance LOCATION '$uri'")
    try spark.sql("DELETE FROM rt WHERE id IN (3, 33)")
    finally spark.sql("DROP TABLE rt")
    val written = RenameFileSystem.closedSynced.asScala.toMap.filter { case (p, _) => p.startsWith(local) && !p.contains("/.") }
    val kinds = Seq("/data/", "/_transactions/", "/_deletions/", "/_versions/")
    kinds.foreach(k => assert(written.keys.exists(_.contains(k)), s"no $k file was written: ${RenameFileSystem.closedSynced.keySet}"))
    val unsynced = written.collect { case (p, synced) if !synced && kinds.exists(p.contains) => p }
    assert(unsynced.isEmpty, s"closed without a sync: ${unsynced.mkString(", ")}")
    assert(pylanceCount(local) == ((2L, 48L)))
  }
}
