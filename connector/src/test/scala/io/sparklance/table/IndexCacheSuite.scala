package io.sparklance.table

import java.io.File
import java.nio.file.Files
import java.nio.file.attribute.FileTime

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.expr.Expr
import io.sparklance.testutil.{CountingStore, HostileCopies}
import io.sparklance.util.LanceException

/**
 * Planning decodes a zone map or a BTREE's page lookup once per file: later plans read
 * none of its bytes and come out the same, and a file rewritten at the same path is read
 * afresh.
 */
class IndexCacheSuite extends AnyFunSuite {
  private val store = new CountingStore(new HadoopObjectStore(new Configuration()))

  /** A private copy of the golden `indexed` table (ZONEMAP on id, BTREE on key) at version 4. */
  private def table(): (File, Snapshot) = {
    val dir = HostileCopies.copy("indexed")
    (dir, Snapshot.open(store, dir.getPath, Some(4)))
  }

  private def indexFile(table: File, name: String): File =
    new File(table, "_indices").listFiles().flatMap(d => Option(d.listFiles()).toSeq.flatten).find(_.getName == name).get

  /** `file` with its footer's offsets damaged (same size) and a later modification time. */
  private def damage(file: File): Unit = {
    val bytes = Files.readAllBytes(file.toPath)
    java.util.Arrays.fill(bytes, bytes.length - 40, bytes.length - 8, 0xff.toByte)
    val time = Files.getLastModifiedTime(file.toPath).toMillis + 10000
    Files.write(file.toPath, bytes)
    Files.setLastModifiedTime(file.toPath, FileTime.fromMillis(time))
  }

  test("a zone map is decoded once; a rewritten one is read again") {
    val (dir, snapshot) = table()
    val p = Some(Expr.Compare("id", Expr.Gt, 15500L))
    store.reset()
    val first = ScanPlanner.plan(store, snapshot, p)
    assert(store.bytesRead("zonemap.lance") > 0 && first.zonesPruned > 0)
    store.reset()
    assert(ScanPlanner.plan(store, snapshot, p) == first)
    assert(store.bytesRead("zonemap.lance") == 0)

    damage(indexFile(dir, "zonemap.lance"))
    val e = intercept[LanceException](ScanPlanner.plan(store, snapshot, p))
    assert(e.errorClass == "LANCE_CORRUPT_FILE")
  }

  test("a BTREE's page lookup is decoded once; a rewritten one is read again") {
    val (dir, snapshot) = table()
    val rows = ScanPlanner.plan(store, snapshot).map(t => t.fragmentId -> t.physicalRows).toMap
    val p = Expr.In("key", Seq(3L, 300L, 19999L))
    store.reset()
    val first = IndexLookup.select(store, snapshot, p, rows)
    assert(store.bytesRead("page_lookup.lance") > 0 && first.values.map(_.getCardinality).sum == 3)
    store.reset()
    assert(IndexLookup.select(store, snapshot, p, rows) == first)
    assert(store.bytesRead("page_lookup.lance") == 0 && store.bytesRead("page_data.lance") > 0)

    damage(indexFile(dir, "page_lookup.lance"))
    val e = intercept[LanceException](IndexLookup.select(store, snapshot, p, rows))
    assert(e.errorClass == "LANCE_CORRUPT_FILE")
  }
}
