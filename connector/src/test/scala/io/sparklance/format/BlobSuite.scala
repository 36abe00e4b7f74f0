package io.sparklance.format

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.{BigIntVector, UInt1Vector, UInt4Vector, UInt8Vector, VarCharVector}
import org.apache.arrow.vector.complex.StructVector
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{FragmentScanner, ScanPlanner, Snapshot}
import io.sparklance.testutil.{Canonical, Golden}

/** The bytes behind every blob descriptor equal the bytes pylance returns for that row. */
class BlobSuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())

  private def check(name: String, column: String): Unit = {
    val ds = Golden.dataset(name)
    val allocator = new RootAllocator(Long.MaxValue)
    try {
      val (schema, expectedRows) = Golden.expectedRows(new java.io.File(ds.expectedFile(1).getParentFile, "blobs_v1.arrow"), allocator)
      val expected = expectedRows.map(_(schema.getFields.asScala.indexWhere(_.getName == column)))
      val snapshot = Snapshot.open(store, ds.uri, Some(1L))
      val field = snapshot.manifest.schema.field(column).get
      val actual = ScanPlanner.plan(store, snapshot).flatMap { task =>
        val scanner = new FragmentScanner(store, task, IndexedSeq(field), 1000, allocator)
        val dataFile = task.files.find(f => f.columnOf(field.id).isDefined).get.path
        try scanner.flatMap { root =>
          try {
            val v = root.getVector(0).asInstanceOf[StructVector]
            def u64(c: String, i: Int): Long = v.getChild(c).asInstanceOf[UInt8Vector].get(i)
            (0 until root.getRowCount).map { i =>
              if (v.isNull(i)) null
              else (field.blobVersion.get match {
                case 1 => BlobBytes.v1(store, dataFile, u64("position", i), u64("size", i))
                case _ =>
                  val uri = v.getChild("blob_uri").asInstanceOf[VarCharVector]
                  BlobBytes.v2(store, dataFile, v.getChild("kind").asInstanceOf[UInt1Vector].get(i) & 0xff,
                    u64("position", i), u64("size", i), v.getChild("blob_id").asInstanceOf[UInt4Vector].get(i) & 0xffffffffL,
                    new String(uri.get(i), "UTF-8"))
              }).toSeq
            }
          } finally root.close()
        }.toIndexedSeq
        finally scanner.close()
      }
      assert(actual.length == expected.length)
      actual.indices.foreach(i => assert(actual(i) == expected(i), s"$name row $i"))
    } finally allocator.close()
  }

  test("blob v2 in every storage kind (inline, packed, dedicated, external)") { check("blobs_v2_2", "blob") }
  test("blob v1 (file format 2.1)") { check("encodings_v2_1", "blob") }
  test("blob v2 written by forced metadata (2.2)") { check("encodings_v2_2", "blob") }
}
