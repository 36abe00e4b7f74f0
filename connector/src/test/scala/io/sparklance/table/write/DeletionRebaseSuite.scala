package io.sparklance.table.write

import java.io.File
import java.nio.file.Files

import org.roaringbitmap.RoaringBitmap
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.table.Snapshot
import io.sparklance.table.commit.{CommitRequest, Operation, TableCommitter}
import io.sparklance.testutil.{InPlaceRewrite, LocalSpark}
import io.sparklance.util.{CommitConflictException, LanceException}

/** Two deletes of the same fragment from the same read version: merged when their rows differ, a conflict when they share one. */
class DeletionRebaseSuite extends AnyFunSuite with LocalSpark {

  private def store = new HadoopObjectStoreFactory(spark.sessionState.newHadoopConf()).create()

  /** Rows id 0..29 (and x = 10 * id with `withX`) in three fragments of ten. */
  private def table(withX: Boolean = false): String = {
    val path = new File(Files.createTempDirectory("lance-rebase").toFile, "t.lance").getPath
    val rows = if (withX) spark.range(30).selectExpr("id", "id * 10 AS x") else spark.range(30)
    rows.coalesce(1).write.format("lance").option("maxRowsPerFile", 10).save(path)
    path
  }

  /** Deletes `offsets` of fragment `id` as one commit read at `at`, with or without the rebase. */
  private def delete(at: Snapshot, id: Long, offsets: Seq[Int], rebase: Boolean = true) = {
    val s = store
    val rows = RoaringBitmap.bitmapOf(offsets: _*)
    val change = RowDeletions.delete(s, at, at.manifest.fragments.find(_.id == id).get, rows)
    val (updated, removed) = change match {
      case FragmentChange.Updated(f, _) => (IndexedSeq(f), IndexedSeq.empty)
      case FragmentChange.Removed(f) => (IndexedSeq.empty, IndexedSeq(f.id))
    }
    new TableCommitter(s, at.root).commit(CommitRequest(Some(at.version), Operation.Delete(updated, removed, "test"),
      rebase = if (rebase) Some(new DeletedRows(s, Map(id -> rows), Seq(change))) else None))
  }

  private def ids(path: String): Seq[Long] = spark.read.format("lance").load(path).collect().map(_.getLong(0)).toSeq.sorted

  test("a delete read before another delete of the same fragment is rebased: both sets of rows are gone") {
    val path = table()
    val v = Snapshot.open(store, path, None)
    delete(v, 1, Seq(0, 1))
    val outcome = delete(v, 1, Seq(5))
    assert(outcome.version == v.version + 2)
    assert(ids(path) == (0L until 30L).filterNot(Set(10L, 11L, 15L)))
    val fragment = Snapshot.open(store, path, None).manifest.fragments.find(_.id == 1).get
    assert(fragment.deletionFile.get.numDeletedRows == 3 && fragment.deletionFile.get.readVersion == v.version + 1)
    // Only the committed deletion files remain: the one the rebase replaced was removed.
    assert(new File(path, "_deletions").list().length == 2)
  }

  test("deleting the rest of a fragment after a rebase removes it; a row deleted by both is a retryable conflict") {
    val path = table()
    val v = Snapshot.open(store, path, None)
    delete(v, 2, 0 until 5)
    delete(v, 2, 5 until 10)
    assert(Snapshot.open(store, path, None).manifest.fragments.map(_.id) == Seq(0L, 1L))
    val w = Snapshot.open(store, path, None)
    delete(w, 0, Seq(3))
    val e = intercept[LanceException](delete(w, 0, Seq(3, 4)))
    assert(e.errorClass == "LANCE_COMMIT_CONFLICT" && e.getMessage.contains("deletes too"), e.getMessage)
    val f = intercept[LanceException](delete(w, 0, Seq(7), rebase = false))
    assert(f.errorClass == "LANCE_COMMIT_CONFLICT")
    assert(ids(path) == (0L until 20L).filterNot(_ == 3L))
  }

  test("deleting every row of a fragment whose column another writer rewrote in place meanwhile is a retryable conflict") {
    // Lance compares the data files of every fragment a delete changes, those it removes whole
    // included, with what the delete read (conflict_resolver.rs, check_delete_txn over an
    // Update): the rows were chosen from values that are no longer the fragment's.
    val path = table(withX = true)
    val v = Snapshot.open(store, path, None)
    val (rewritten, fields) = InPlaceRewrite(path, 1, "x", "lambda i, v: -v", v.version)
    assert(rewritten == v.version + 1 && fields == Seq(1))
    val whole = intercept[CommitConflictException](delete(v, 1, 0 until 10))
    assert(whole.retryable && whole.getMessage.contains("rewrote the data files of fragment 1"), whole.getMessage)
    // Some of its rows: the same rule, as before.
    val part = intercept[CommitConflictException](delete(v, 1, Seq(0, 1)))
    assert(part.retryable && part.getMessage.contains("rewrote the data files of fragment 1"), part.getMessage)
    assert(Snapshot.open(store, path, None).version == rewritten)
    val rows = spark.read.format("lance").load(path).collect().map(r => r.getLong(0) -> r.getLong(1)).toSeq.sortBy(_._1)
    assert(rows == (0L until 30L).map(i => i -> (if (i >= 10 && i < 20) -10 * i else 10 * i)))
    // Read again after the rewrite, the delete applies.
    delete(Snapshot.open(store, path, None), 1, 0 until 10)
    assert(ids(path) == (0L until 10L) ++ (20L until 30L))
  }
}
