package io.sparklance.table.commit

import java.io.{File, IOException}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.FileVersion
import io.sparklance.storage.{ObjectStore, Paths, PutResult}
import io.sparklance.table.{ManifestFile, Snapshot}
import io.sparklance.table.commit.Operation.{Append, Overwrite}
import org.apache.hadoop.conf.Configuration

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.testutil.{ForwardingStore, Golden, HostileCopies}
import io.sparklance.testutil.CommitFixtures._
import io.sparklance.util.{CommitConflictException, CommitStateUnknownException, LanceException}

/** The commit loop on local folders (HadoopObjectStore), with pylance reading (and writing) the same tables. */
class TableCommitterSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val store = new HadoopObjectStore(new Configuration())
  private val tmp = Files.createTempDirectory("committer").toFile
  override def afterAll(): Unit = org.apache.commons.io.FileUtils.deleteQuietly(tmp)

  private var n = 0
  private def newTable(): String = { n += 1; new File(tmp, s"t$n").getAbsolutePath }
  private def create(root: String, ids: Seq[Long], stable: Boolean = false, committer: Option[TableCommitter] = None): CommitOutcome =
    committer.getOrElse(new TableCommitter(store, root)).commit(CommitRequest(None, Append(IndexedSeq(fragment(store, root, ids))),
      newTable = Some(NewTable(schema, FileVersion.V2_2, stable))))
  private def append(root: String, read: Long, ids: Seq[Long], s: ObjectStore = store, app: Option[AppTransaction] = None): CommitOutcome =
    new TableCommitter(s, root).commit(CommitRequest(Some(read), Append(IndexedSeq(fragment(store, root, ids))), Map("who" -> "test"), app))

  test("a table created by an append and extended by appends reads in pylance, value by value, at every version") {
    val root = newTable()
    assert(create(root, 0L until 5) == CommitOutcome(1, 1, duplicate = false))
    assert(append(root, 1, 5L until 9).version == 2)
    assert(append(root, 2, 9L until 20).version == 3)
    val read = pylanceRead(root)
    assert(read.version == 3 && read.rows == expected(0L until 20))
    assert(pylanceRead(root, Some(2)).rows == expected(0L until 9))
    assert(read.operations == Seq("Overwrite", "Append", "Append"))
    // V2 names, the hint pylance reads, the transaction files the manifests name.
    val versions = new File(root, "_versions").list().toSet
    assert(versions.contains("18446744073709551612.manifest") && !versions.exists(_.startsWith(".tmp")))
    assert(new String(Files.readAllBytes(new File(root, "_versions/latest_version_hint.json").toPath), UTF_8) == """{"version":3}""")
    val m = Snapshot.open(store, root, None).manifest
    assert(new File(root, s"_transactions/${m.transactionFile.get}").isFile && m.fragments.map(_.id) == Seq(0, 1, 2))
    assert(m.writerVersion.get.library == "spark-lance")
  }

  test("stable row ids: pylance reads the ids we assigned and continues after them") {
    val root = newTable()
    create(root, 0L until 4, stable = true)
    append(root, 1, 4L until 7)
    pylanceAppend(root, Seq(7, 8))
    append(root, 3, Seq(9))
    val read = pylanceRead(root)
    assert(read.rows == expected(0L until 10))
    assert(read.rowIds == (0L until 10).map(i => (i, i)))
  }

  test("an overwrite replaces the rows and keeps older versions readable; creating over a table is refused") {
    val root = newTable()
    create(root, 0L until 3)
    val c = new TableCommitter(store, root)
    assert(c.commit(CommitRequest(Some(1), Overwrite(IndexedSeq(fragment(store, root, 100L until 102)), schema))).version == 2)
    assert(pylanceRead(root).rows == expected(100L until 102) && pylanceRead(root, Some(1)).rows == expected(0L until 3))
    val e = intercept[LanceException](c.commit(CommitRequest(None, Overwrite(IndexedSeq.empty, schema))))
    assert(e.errorClass == "LANCE_TABLE_ALREADY_EXISTS")
    // Overwrite with readVersion None creates a table that is absent.
    val fresh = newTable()
    assert(new TableCommitter(store, fresh).commit(CommitRequest(None, Overwrite(IndexedSeq(fragment(store, fresh, Seq(1L))), schema))).version == 1)
    assert(pylanceRead(fresh).rows == expected(Seq(1L)))
  }

  test("mixed histories and a concurrent pylance delete: appends and overwrites rebase over it, per the rules") {
    val root = newTable()
    create(root, 0L until 10)
    pylanceAppend(root, 10L until 15)                                 // v2 by pylance
    assert(append(root, 2, 15L until 20).version == 3)                // ours on pylance's
    assert(pylanceDelete(root, "id < 3") == 4)                        // pylance's delete on ours
    // Planned at version 3, before the delete: Append vs Delete is compatible.
    val late = append(root, 3, 20L until 22)
    assert(late.version == 5)
    assert(pylanceRead(root).rows == expected((3L until 22)))
    pylanceAppend(root, Seq(22L))
    assert(pylanceRead(root).rows == expected(3L until 23))
    // An overwrite planned before the delete also applies (Overwrite vs Delete: compatible).
    val c = new TableCommitter(store, root)
    pylanceDelete(root, "id = 22")
    assert(c.commit(CommitRequest(Some(6), Overwrite(IndexedSeq(fragment(store, root, Seq(50L))), schema))).version == 8)
    assert(pylanceRead(root).rows == expected(Seq(50L)))
  }

  test("an append racing an overwrite loses for good; two overwrites racing: the second may retry") {
    val root = newTable()
    create(root, 0L until 2)
    val c = new TableCommitter(store, root)
    c.commit(CommitRequest(Some(1), Overwrite(IndexedSeq(fragment(store, root, Seq(7L))), schema)))
    val e = intercept[CommitConflictException](append(root, 1, Seq(9L)))
    assert(e.errorClass == "LANCE_COMMIT_CONFLICT" && !e.retryable && e.otherVersion.contains(2L))
    val o = intercept[CommitConflictException](c.commit(CommitRequest(Some(1), Overwrite(IndexedSeq(fragment(store, root, Seq(8L))), schema))))
    assert(o.retryable && o.otherVersion.contains(2L))
    assert(pylanceRead(root).rows == expected(Seq(7L)))
  }

  test("an idempotent write commits once; a retried txnVersion is a no-op") {
    val root = newTable()
    create(root, Seq(0L))
    val c = new TableCommitter(store, root)
    val a1 = AppTransaction("job-a", 1)
    assert(append(root, 1, Seq(1L), app = Some(a1)) == CommitOutcome(2, 1, duplicate = false))
    assert(c.alreadyCommitted(a1) && !c.alreadyCommitted(AppTransaction("job-a", 2)) && !c.alreadyCommitted(AppTransaction("job-b", 1)))
    assert(append(root, 1, Seq(1L), app = Some(a1)) == CommitOutcome(2, 1, duplicate = true))
    pylanceAppend(root, Seq(2L)) // pylance carries the record forward
    assert(append(root, 2, Seq(1L), app = Some(a1)).duplicate)
    assert(!append(root, 3, Seq(3L), app = Some(AppTransaction("job-a", 2))).duplicate)
    assert(append(root, 4, Seq(3L), app = Some(a1)).duplicate)
    assert(pylanceRead(root).rows == expected(0L until 4))
    assert(Snapshot.open(store, root, None).manifest.config == Map("spark-lance.txn.job-a" -> "2"))
  }

  /** A store whose manifest puts fail as `fail` says: before or after writing, or always. */
  private final class FaultyStore(fail: (Int, () => PutResult) => PutResult, readsFail: Boolean = false) extends ForwardingStore(store) {
    var puts = 0
    override def putIfAbsent(path: String, bytes: Array[Byte]): PutResult =
      if (!path.endsWith(".manifest")) super.putIfAbsent(path, bytes)
      else { puts += 1; fail(puts, () => super.putIfAbsent(path, bytes)) }
    // Once a manifest put was tried, reading manifests fails too (`readsFail`): the outcome cannot be settled.
    override def open(path: String, knownSize: Option[Long]): io.sparklance.storage.RangeReader =
      if (readsFail && puts > 0 && path.endsWith(".manifest")) throw new IOException("read timed out") else super.open(path, knownSize)
  }

  test("a failure after the manifest was written (ambiguous outcome) commits once and loses nothing") {
    val root = newTable()
    create(root, Seq(0L))
    val after = new FaultyStore((i, put) => { val r = put(); if (i == 1) throw new IOException("connection reset after PUT") else r })
    assert(append(root, 1, Seq(1L), s = after) == CommitOutcome(2, 1, duplicate = false))
    assert(after.puts == 1 && Snapshot.listVersions(store, root).map(_._1) == Seq(1, 2))
    // Failing before the write: settled as absent, the put is tried again.
    val before = new FaultyStore((i, put) => if (i == 1) throw new IOException("503 Slow Down") else put())
    assert(append(root, 2, Seq(2L), s = before).version == 3 && before.puts == 2)
    assert(pylanceRead(root).rows == expected(0L until 3))
    // Unknown for good: the state is unknown, and nothing (not even the transaction file) is deleted.
    val lost = new FaultyStore((_, put) => { put(); throw new IOException("timeout") }, readsFail = true)
    val txns = new File(root, "_transactions").list().length
    val e = intercept[CommitStateUnknownException](append(root, 3, Seq(3L), s = lost))
    assert(e.errorClass == "LANCE_COMMIT_STATE_UNKNOWN")
    assert(new File(root, "_transactions").list().length == txns + 1)
    // It did land: version 4 holds the row, once.
    assert(pylanceRead(root).rows == expected(0L until 4) && latestVersion(store, root) == 4)
  }

  test("\"already exists\" for our own stored manifest (a retried request) is settled by reading it back: committed once") {
    val root = newTable()
    create(root, Seq(0L))
    // The store keeps the manifest, then answers as a retried conditional PUT is answered: 412.
    val lying = new FaultyStore((i, put) => { val r = put(); if (i == 1) PutResult.AlreadyExists else r })
    val txns = new File(root, "_transactions").list().length
    assert(append(root, 1, Seq(1L), s = lying) == CommitOutcome(2, 1, duplicate = false))
    assert(lying.puts == 1 && Snapshot.listVersions(store, root).map(_._1) == Seq(1, 2))
    assert(new File(root, "_transactions").list().length == txns + 1, "the transaction file the version names is kept")
    assert(pylanceRead(root).rows == expected(0L until 2))
    // With an idempotent pair: committed, not reported as a duplicate of itself.
    val again = new FaultyStore((i, put) => { val r = put(); if (i == 1) PutResult.AlreadyExists else r })
    assert(append(root, 2, Seq(2L), s = again, app = Some(AppTransaction("job", 1))) == CommitOutcome(3, 1, duplicate = false))
    assert(append(root, 3, Seq(2L), app = Some(AppTransaction("job", 1))).duplicate)
    // A lie about a manifest that is not there: the put is tried again.
    val absent = new FaultyStore((i, put) => if (i == 1) PutResult.AlreadyExists else put())
    assert(append(root, 3, Seq(3L), s = absent).version == 4 && absent.puts == 2)
    assert(pylanceRead(root).rows == expected(0L until 4))
  }

  test("a manifest write the store reports as never written fails at once: nothing committed, no read-back") {
    val root = newTable()
    create(root, Seq(0L))
    val refused = new FaultyStore((_, _) => throw io.sparklance.util.Errors.nothingWritten("x", "creating the file", new IOException("read-only")))
    val e = intercept[LanceException](append(root, 1, Seq(1L), s = refused))
    assert(e.errorClass == "LANCE_IO_ERROR" && refused.puts == 1)
    assert(Snapshot.listVersions(store, root).map(_._1) == Seq(1))
    // After a try whose outcome is open (its request may still land), "nothing written" settles nothing.
    val late = new FaultyStore((i, _) =>
      if (i == 1) throw new IOException("timeout") else throw io.sparklance.util.Errors.nothingWritten("x", "creating the file", new IOException("read-only")))
    intercept[CommitStateUnknownException](append(root, 1, Seq(1L), s = late))
  }

  test("losing every race gives a retryable conflict after the configured retries; each rival landed") {
    val root = newTable()
    create(root, Seq(0L))
    var rival = 100L
    val racing = new FaultyStore((_, put) => {
      append(root, latestVersion(store, root), Seq(rival)); rival += 1
      put()
    })
    val e = intercept[CommitConflictException](new TableCommitter(racing, root, CommitOptions(maxRetries = 2, maxBackoffMillis = 5))
      .commit(CommitRequest(Some(1), Append(IndexedSeq(fragment(store, root, Seq(1L)))))))
    assert(e.retryable && racing.puts == 3)
    assert(pylanceRead(root).rows == expected(Seq(0L, 100L, 101L, 102L)))
    // With room to retry it lands after the rivals.
    val winner = new FaultyStore((i, put) => { if (i == 1) { append(root, latestVersion(store, root), Seq(200L)) }; put() })
    assert(new TableCommitter(winner, root).commit(CommitRequest(Some(1), Append(IndexedSeq(fragment(store, root, Seq(1L)))))).attempts == 2)
    assert(pylanceRead(root).rows == expected(Seq(0L, 1L, 100L, 101L, 102L, 200L)))
  }

  test("an append that finds the table created meanwhile joins it if the schemas agree, else conflicts") {
    val root = newTable()
    val mine = fragment(store, root, Seq(5L))
    create(root, Seq(1L))
    val c = new TableCommitter(store, root)
    assert(c.commit(CommitRequest(None, Append(IndexedSeq(mine)), newTable = Some(NewTable(schema, FileVersion.V2_2, false)))).version == 2)
    assert(pylanceRead(root).rows == expected(Seq(1L, 5L)))
    val other = io.sparklance.format.LanceSchema.fromArrow(new org.apache.arrow.vector.types.pojo.Schema(java.util.Arrays.asList(
      io.sparklance.testutil.ArrowData.field("id", new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, true)))), "t")
    val e = intercept[CommitConflictException](c.commit(CommitRequest(None, Append(IndexedSeq(mine)), newTable = Some(NewTable(other, FileVersion.V2_2, false)))))
    assert(!e.retryable && e.getMessage.contains("id:int32#0"))
    // The same columns, but the table created meanwhile declares id NOT NULL: rows checked
    // against a nullable id may hold nulls, so they do not join it.
    val notNull = io.sparklance.format.LanceSchema.fromArrow(new org.apache.arrow.vector.types.pojo.Schema(java.util.Arrays.asList(
      io.sparklance.testutil.ArrowData.required("id", new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true)),
      io.sparklance.testutil.ArrowData.field("s", org.apache.arrow.vector.types.pojo.ArrowType.Utf8.INSTANCE))), "t")
    val strict = newTable()
    new TableCommitter(store, strict).commit(CommitRequest(None, Append(IndexedSeq(fragment(store, strict, Seq(1L)))),
      newTable = Some(NewTable(notNull, FileVersion.V2_2, false))))
    val n = intercept[CommitConflictException](new TableCommitter(store, strict).commit(CommitRequest(None,
      Append(IndexedSeq(fragment(store, strict, Seq(2L)))), newTable = Some(NewTable(schema, FileVersion.V2_2, false)))))
    assert(!n.retryable && n.getMessage.contains("id:int64 not null#0"), n.getMessage)
    assert(pylanceRead(strict).rows == expected(Seq(1L)))
  }

  test("a table named the V1 way keeps its naming; a V2 one written by pylance gets our versions") {
    val copy = new File(tmp, "v1names")
    org.apache.commons.io.FileUtils.copyDirectory(new File(Golden.root, "legacy_manifest_names/dataset"), copy)
    val root = copy.getAbsolutePath
    val base = Snapshot.open(store, root, None).manifest
    val c = new TableCommitter(store, root)
    val (_, rows) = pylanceCount(root)
    // An append with no new fragments: a new version with the same rows, named as the table names them.
    assert(c.commit(CommitRequest(Some(base.version), Append(IndexedSeq.empty))).version == base.version + 1)
    assert(new File(copy, s"_versions/${base.version + 1}.manifest").isFile)
    assert(pylanceCount(root) == ((base.version + 1, rows)))
  }

  test("on a table written by Lance 0.39 (transactions only in .txn files) the rules read those files") {
    val copy = new File(tmp, "lance039")
    org.apache.commons.io.FileUtils.copyDirectory(new File(Golden.root, "old/0.39.0/history/dataset"), copy)
    val root = copy.getAbsolutePath
    val c = new TableCommitter(store, root)
    // Planned at v2: v3 is an add_columns Merge that does not say it keeps nullability, so an append must be redone.
    val e = intercept[CommitConflictException](c.commit(CommitRequest(Some(2), Append(IndexedSeq.empty))))
    assert(e.retryable && e.otherVersion.contains(3L) && e.getMessage.contains("Merge"))
    assert(!new File(copy, "_versions/6.manifest").exists)
    // Planned at v3: the deletes of v4 and v5 leave it valid.
    assert(c.commit(CommitRequest(Some(3), Append(IndexedSeq.empty))).version == 6)
    assert(new File(copy, "_versions/6.manifest").isFile && pylanceCount(root) == ((6L, 7495L)))
  }

  test("an overwrite builds its fragments and schema from nothing: the old fragment or field of the same id lends them none of its fields") {
    val root = newTable()
    create(root, 0L until 5)
    append(root, 1, 5L until 8)
    // What this writer does not model, on the old fragment 0: metadata, a clustering id, a field of a newer writer.
    val newer = com.google.protobuf.UnknownFieldSet.newBuilder()
      .addField(99, com.google.protobuf.UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build()
    HostileCopies.editManifest(HostileCopies.newestManifest(new File(root))) { m =>
        m.setFragments(0, m.getFragments(0).toBuilder.putMetadata("origin", "old").setClusteringId(7).setUnknownFields(newer))
      // ... and on the old field 0 (same id and type as the new schema's): a primary-key flag, a field of a newer writer.
      m.setFields(0, m.getFields(0).toBuilder.setUnenforcedPrimaryKey(true).setUnknownFields(newer))
    }
    val oldManifest = HostileCopies.readManifest(HostileCopies.newestManifest(new File(root)))
    val old = oldManifest.getFragments(0)
    assert(old.getMetadataCount == 1 && old.getClusteringId == 7 && old.getUnknownFields.hasField(99))
    assert(oldManifest.getFields(0).getUnenforcedPrimaryKey && oldManifest.getFields(0).getUnknownFields.hasField(99))
    val over = new TableCommitter(store, root).commit(CommitRequest(Some(2), Overwrite(IndexedSeq(fragment(store, root, 100L until 104)), schema)))
    assert(over.version == 3)
    val fresh = HostileCopies.readManifest(HostileCopies.newestManifest(new File(root)))
    assert(fresh.getVersion == 3 && fresh.getFragmentsCount == 1)
    val f = fresh.getFragments(0)
    assert(f.getId == 0 && f.getPhysicalRows == 4 && f.getFilesCount == 1)
    assert(f.getMetadataCount == 0 && f.getClusteringId == 0 && f.getUnknownFields.asMap.isEmpty, f)
    assert(!fresh.getFields(0).getUnenforcedPrimaryKey && fresh.getFields(0).getUnknownFields.asMap.isEmpty, fresh.getFields(0))
    val read = pylanceRead(root)
    assert(read.version == 3 && read.rows == expected(100L until 104))
    // An append after it numbers its fragment after every id used: no id, so no old message, is reused.
    append(root, 3, Seq(200L))
    assert(Snapshot.open(store, root, None).manifest.fragments.map(_.id) == Seq(0L, 2L))
    assert(pylanceRead(root).rows == expected((100L until 104) :+ 200L))
  }
}
