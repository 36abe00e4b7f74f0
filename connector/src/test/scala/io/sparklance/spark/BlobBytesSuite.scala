package io.sparklance.spark

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.LargeVarBinaryVector
import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.types.BinaryType
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{BlobMode, FragmentScanner, ScanPlanner, Snapshot}
import io.sparklance.testutil.ErrorConditions._
import io.sparklance.testutil.{Golden, InTask, LocalSpark}

/**
 * With `blobs = bytes`, every blob column reads as the bytes pylance's `read_blobs` returns
 * for that row (null for a null blob), through the table layer and through Spark.
 */
class BlobBytesSuite extends AnyFunSuite with LocalSpark {
  private val store = new HadoopObjectStore(new Configuration())

  private val cases = Seq(
    ("blobs_v2_2", "blob", "blob v2 in every storage kind (inline, packed, dedicated, external)"),
    ("encodings_v2_1", "blob", "blob v1 (file format 2.1)"),
    ("encodings_v2_2", "blob", "blob v2 written by forced metadata (2.2)"))

  /** pylance's bytes of `column`, row by row, at version 1. */
  private def expectedBytes(name: String, column: String): IndexedSeq[Seq[Byte]] = {
    val ds = Golden.dataset(name)
    val allocator = new RootAllocator(Long.MaxValue)
    try {
      val (schema, rows) = Golden.expectedRows(new java.io.File(ds.expectedFile(1).getParentFile, "blobs_v1.arrow"), allocator)
      val k = schema.getFields.asScala.indexWhere(_.getName == column)
      rows.map(r => r(k).asInstanceOf[Seq[Byte]])
    } finally allocator.close()
  }

  cases.foreach { case (name, column, what) =>
    test(s"$what: the table layer fetches each row's bytes") {
      val expected = expectedBytes(name, column)
      val snapshot = Snapshot.open(store, Golden.dataset(name).uri, Some(1L))
      val field = snapshot.manifest.schema.field(column).get
      assert(field.blobVersion.isDefined)
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        // Small batches, so that a batch boundary falls between rows of every storage kind.
        val actual = ScanPlanner.plan(store, snapshot).flatMap { task =>
          val scanner = new FragmentScanner(store, task, IndexedSeq(field), 7, allocator, blobs = BlobMode.Bytes())
          try scanner.flatMap { root =>
            try {
              val v = root.getVector(0).asInstanceOf[LargeVarBinaryVector]
              (0 until root.getRowCount).map(i => if (v.isNull(i)) null else v.get(i).toSeq)
            } finally root.close()
          }.toIndexedSeq
          finally scanner.close()
        }
        assert(actual.length == expected.length)
        assert(expected.exists(_ == null) == actual.exists(_ == null))
        actual.indices.foreach(i => assert(actual(i) == expected(i), s"$name row $i"))
      } finally allocator.close()
    }

    test(s"$what: option blobs=bytes reads a binary column in Spark") {
      val expected = expectedBytes(name, column)
      val df = spark.read.format("lance").option("version", "1").option("blobs", "bytes").load(Golden.dataset(name).uri)
      assert(df.schema(column).dataType == BinaryType)
      val actual = df.select(column).collect().map(r => Option(r.getAs[Array[Byte]](0)).map(_.toSeq).orNull).toIndexedSeq
      assert(actual == expected)
      // The default stays pylance's descriptor struct.
      val default = spark.read.format("lance").option("version", "1").load(Golden.dataset(name).uri)
      assert(default.schema(column).dataType.typeName == "struct")
    }
  }

  test("external blobs: read where the table names them, or only under allowedBasePaths when given") {
    val ds = Golden.dataset("blobs_v2_2")
    // pylance wrote the external blobs beside the dataset, outside its folder.
    val external = new java.io.File(new java.io.File(ds.uri).getParentFile, "external")
    assert(external.isDirectory)
    def read(allowed: String) = spark.read.format("lance").option("version", "1").option("blobs", "bytes")
      .option("allowedBasePaths", allowed).load(ds.uri).select("blob").collect().length
    assert(read(s"/nowhere, ${external.getPath}") == expectedBytes("blobs_v2_2", "blob").length)
    Seq("/nowhere", s"${external.getPath}-not").foreach { allowed =>
      val e = InTask.error[org.apache.spark.sql.AnalysisException](read(allowed))
      assert(e.condition == "LANCE_BASE_PATH_NOT_ALLOWED" && e.getMessage.contains(external.getPath), e.getMessage)
    }
    // Descriptors name the URI without reading it: nothing to refuse.
    assert(spark.read.format("lance").option("version", "1").option("allowedBasePaths", "/nowhere").load(ds.uri).count() ==
      expectedBytes("blobs_v2_2", "blob").length)
  }

  test("a bad blobs option is refused by name") {
    val e = intercept[org.apache.spark.sql.AnalysisException](spark.read.format("lance").option("blobs", "yes").load(Golden.dataset("blobs_v2_2").uri).schema)
    assert(e.condition == "LANCE_INVALID_OPTION" && e.getMessage.contains("'blobs'"))
  }
}
