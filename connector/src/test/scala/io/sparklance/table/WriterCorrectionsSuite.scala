package io.sparklance.table

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.testutil.Golden

/**
 * The repairs of [[WriterCorrections]], on manifests written by the releases that made each
 * mistake and by releases that did not. TableHistorySuite compares the rows with pylance 14's.
 */
class WriterCorrectionsSuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())

  private def snapshot(name: String, version: Long): Snapshot = Snapshot.open(store, Golden.dataset(name).uri, Some(version))

  private def fileRows(s: Snapshot): Seq[Long] = ScanPlanner.plan(store, s).map(_.physicalRows)

  test("0.8.0: physical_rows of a manifest without writer_version are counted from the data files") {
    // 0.7.5 wrote 2 fragments of 1000 rows and deleted 10 of fragment 0; 0.8.0 appended 100
    // rows and recorded fragment 0 as 990 rows (its live rows).
    val raw = ManifestFile.parse(io.sparklance.util.Bytes.wrap("v3", 0,
      java.nio.file.Files.readAllBytes(new java.io.File(Golden.dataset("old/0.8.0/migrated").uri, "_versions/3.manifest").toPath)))
    assert(raw.writerVersion.isEmpty)
    assert(raw.fragments.map(_.physicalRows) == Seq(990L, 1000L, 100L))
    Seq(3L, 4L).foreach { v =>
      val s = snapshot("old/0.8.0/migrated", v)
      assert(s.manifest.fragments.forall(_.physicalRows == 0), s"v$v counts are unknown")
      assert(fileRows(s) == Seq(1000L, 1000L, 100L), s"v$v")
    }
  }

  test("0.8.0: manifests with writer_version, or without counts, are left alone") {
    val withWriter = snapshot("deletions", 3)
    assert(withWriter.manifest.writerVersion.isDefined)
    assert(withWriter.manifest.fragments.map(_.physicalRows) == Seq(6000L, 6000L, 6000L))
    val lance0510 = snapshot("old/0.5.10/history", 4)
    assert(lance0510.manifest.writerVersion.isEmpty && lance0510.manifest.fragments.forall(_.physicalRows == 0))
    assert(fileRows(lance0510).sum == 13000L)
    val lance0200 = snapshot("old/0.20.0/history", 5)
    assert(lance0200.manifest.writerVersion.isDefined && lance0200.manifest.fragments.forall(_.physicalRows > 0))
  }
}
