package io.sparklance.storage.hadoop

import java.io.File
import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.FileVersion
import io.sparklance.table.commit.{CommitRequest, NewTable, TableCommitter}
import io.sparklance.table.commit.Operation.Append
import io.sparklance.testutil.CommitFixtures._
import io.sparklance.util.LanceException

/** A viewfs path commits as the file system its mount point links to commits, not always by rename. */
class ViewFsSuite extends AnyFunSuite {
  private val dir = Files.createTempDirectory("viewfs").toFile
  private val conf = {
    val c = RenameFileSystem.configure(new Configuration())
    c.set("fs.nocommit.impl", classOf[NoAtomicFileSystem].getName)
    c.set("fs.viewfs.mounttable.lake.link./local", new File(dir, "local").toURI.toString)
    c.set("fs.viewfs.mounttable.lake.link./nocommit", s"nocommit://${new File(dir, "nocommit").getPath}")
    c.set("fs.viewfs.mounttable.lake.link./hdfs", s"hdfs://test${new File(dir, "hdfs").getPath}")
    Seq("local", "nocommit", "hdfs").foreach(d => new File(dir, d).mkdirs())
    c
  }

  private def protocolOf(uri: String): WriteProtocol = {
    val p = new Path(uri)
    WriteProtocol.of(p.getFileSystem(conf), p, conf)
  }

  test("each mount point's own protocol: local link, HDFS rename, and none for a store without atomic create") {
    protocolOf("viewfs://lake/local/t/_versions/1.manifest") match {
      case m: Mounted => assert(m.inner.isInstanceOf[LocalWrites])
      case other => fail(s"expected the local protocol through the mount, got $other")
    }
    protocolOf("viewfs://lake/hdfs/t/_versions/1.manifest") match {
      case m: Mounted => assert(m.inner.isInstanceOf[RenameWrites])
      case other => fail(s"expected the rename protocol through the mount, got $other")
    }
    val e = intercept[LanceException](protocolOf("viewfs://lake/nocommit/t/_versions/1.manifest").requireAtomicCreate("t"))
    assert(e.errorClass == "LANCE_NO_ATOMIC_COMMIT")
    // Outside every mount point: nothing to commit on.
    assert(intercept[LanceException](protocolOf("viewfs://lake/t/_versions/1.manifest").requireAtomicCreate("t")).errorClass ==
      "LANCE_NO_ATOMIC_COMMIT")
  }

  test("a table written through a viewfs mount of local files reads in pylance at the real path") {
    val store = new HadoopObjectStore(conf)
    val uri = "viewfs://lake/local/t.lance"
    new TableCommitter(store, uri).commit(CommitRequest(None, Append(IndexedSeq(fragment(store, uri, Seq(0L, 1L)))),
      newTable = Some(NewTable(schema, FileVersion.V2_2, stableRowIds = false))))
    new TableCommitter(store, uri).commit(CommitRequest(Some(1), Append(IndexedSeq(fragment(store, uri, Seq(2L))))))
    val real = new File(dir, "local/t.lance").getPath
    assert(pylanceRead(real).rows == expected(0L until 3))
  }
}
