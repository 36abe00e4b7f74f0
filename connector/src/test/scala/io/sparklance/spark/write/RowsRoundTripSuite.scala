package io.sparklance.spark.write

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector._
import org.apache.arrow.vector.dictionary.DictionaryEncoder
import org.apache.arrow.vector.types.TimeUnit
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.format.{LanceField, LanceSchema}
import io.sparklance.format.write.FileWriterOptions
import io.sparklance.spark.WriteSchema
import io.sparklance.spark.compat.SparkTime
import io.sparklance.table.Snapshot
import io.sparklance.table.write.{FragmentWriter, FragmentWriterOptions}
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.testutil.{ArrowIpc, Golden, LocalSpark, PylanceFiles}

/**
 * Every type through Spark and back: a golden table read by our Spark reader, its rows
 * converted by RowsToArrow into the table's own Arrow schema and written by FragmentWriter,
 * reads in pylance's file reader equal, value by value and type by type, to pylance's read of
 * the golden table; the only difference allowed is the one Spark makes: nanoseconds floored to
 * microseconds. Blob columns are left out here (pylance's file reader does not fetch blob
 * bytes); RowsToArrowSuite writes them.
 */
class RowsRoundTripSuite extends AnyFunSuite with LocalSpark {

  private val store = new HadoopObjectStore(new Configuration())
  private lazy val work = Files.createTempDirectory("rows-round-trip").toFile
  private val TimeTypeConf = "spark.sql.timeType.enabled"

  private val datasets = Seq("types_v2_2", "types_v2_1", "types_v2_0", "wide_vectors_v2_2", "edge_cases_v2_2",
    "encodings_v2_2", "one_row")

  private final case class Written(file: File, expected: File, table: LanceSchema, spark: StructType, fragments: Seq[io.sparklance.table.Fragment])

  /** Reads `name` through Spark, writes its rows back with RowsToArrow + FragmentWriter, and the expected rows beside them. */
  private def roundTrip(name: String, label: String, batchRows: Int): Written = {
    val golden = Golden.dataset(name)
    val snapshot = Snapshot.open(store, golden.uri, None)
    val full = snapshot.manifest.schema
    val table = full.copy(fields = full.fields.filter(_.blobVersion.isEmpty))
    val df = spark.read.format("lance").load(golden.uri).select(table.fields.map(f => org.apache.spark.sql.functions.col(s"`${f.name}`")): _*)
    val rows: Array[InternalRow] = df.queryExecution.toRdd.map(_.copy()).collect()
    val version = snapshot.manifest.fileVersion(golden.uri).get
    val root = new File(work, s"$name-$label")
    val allocator = new RootAllocator(Long.MaxValue)
    val fragments =
      try {
        val converter = new RowsToArrow(table.toArrowForWrite(name), df.schema, allocator)
        val writer = new FragmentWriter(store, root.getPath, table, FragmentWriterOptions(FileWriterOptions(version)))
        try {
          rows.grouped(batchRows).foreach { group =>
            group.foreach(converter.append)
            assert(converter.rowCount == group.length)
            writer.write(converter.flush())
          }
          writer.finish()
        } catch { case t: Throwable => writer.abort(); throw t }
        finally converter.close()
      } finally allocator.close()
    assert(fragments.length == 1 && fragments.head.physicalRows == rows.length)
    val expected = new File(work, s"$name-$label.arrow")
    writeExpected(golden.expectedFile(golden.versions.last), table.fields.map(_.name).toSet, expected)
    Written(new File(new File(root, "data"), fragments.head.files.head.path), expected, table, df.schema, fragments)
  }

  /**
   * pylance's rows of the golden table, columns `keep`, as Spark can hold them: dictionary
   * columns decoded (read_file.py compares them decoded) and nanoseconds floored to microseconds.
   */
  private def writeExpected(golden: File, keep: Set[String], out: File): Unit = {
    val allocator = new RootAllocator(Long.MaxValue)
    try {
      val reader = ArrowIpc.reader(Files.newByteChannel(golden.toPath), allocator)
      try {
        val roots = reader.getRecordBlocks.asScala.toSeq.map { block =>
          reader.loadRecordBatch(block)
          val r = reader.getVectorSchemaRoot
          // The schema's fields, as the file has them: a loaded list vector's own field names its items "$data$".
          val vectors = r.getSchema.getFields.asScala.toSeq.zip(r.getFieldVectors.asScala).filter(p => keep(p._1.getName)).map { case (asRead, v) =>
            val enc = asRead.getDictionary
            val (source, field, owned) =
              if (enc == null) (v, asRead, false)
              else {
                val d = DictionaryEncoder.decode(v, reader.lookup(enc.getId)).asInstanceOf[FieldVector]
                (d, new Field(v.getName, new FieldType(asRead.isNullable, d.getField.getType, null, asRead.getMetadata), d.getField.getChildren), true)
              }
            val copy = ArrowVectors.create(field, allocator)
            source.makeTransferPair(copy).transfer()
            if (owned) source.close()
            floorNanos(copy)
            (field, copy)
          }
          new VectorSchemaRoot(vectors.map(_._1).asJava, vectors.map(_._2).asJava, r.getRowCount)
        }
        try PylanceFiles.writeExpected(roots, out) finally roots.foreach(_.close())
      } finally reader.close()
    } finally allocator.close()
  }

  private def floorNanos(v: FieldVector): Unit = {
    def each(set: (Int, Long) => Unit, get: Int => Long): Unit =
      (0 until v.getValueCount).foreach(i => if (!v.isNull(i)) set(i, Math.floorDiv(get(i), 1000L) * 1000L))
    (v, v.getField.getType) match {
      case (t: TimeStampVector, ts: ArrowType.Timestamp) if ts.getUnit == TimeUnit.NANOSECOND => each(t.set, t.get)
      case (t: TimeNanoVector, _) => each(t.set, t.get)
      case (d: DurationVector, du: ArrowType.Duration) if du.getUnit == TimeUnit.NANOSECOND =>
        each(d.set, i => DurationVector.get(d.getDataBuffer, i))
      case _ => ()
    }
  }

  private def check(written: Seq[Written]): Unit =
    PylanceFiles.assertAllEqual(written.map(w => w.expected -> w.file))

  test("every golden type, read by Spark and written back, reads in pylance as the golden table (Spark's microseconds aside)") {
    val written = datasets.map(name => roundTrip(name, "default", 500))
    check(written)
    // The data files record fields and columns as pylance's do for the same schema.
    written.zip(datasets).foreach { case (w, name) =>
      val golden = Snapshot.open(store, Golden.dataset(name).uri, None).manifest
      if (golden.schema.fields.length == w.table.fields.length) {
        val theirs = golden.fragments.head.files.head
        val ours = w.fragments.head.files.head
        assert((ours.fields, ours.columnIndices, ours.majorVersion, ours.minorVersion) ==
          (theirs.fields, theirs.columnIndices, theirs.majorVersion, theirs.minorVersion), name)
        assert(ours.fileSizeBytes == w.file.length, name)
      }
    }
  }

  test("time columns read as TIME (spark.sql.timeType.enabled) are written back to their units too") {
    assume(SparkTime.supported, "this Spark line has no TIME type")
    spark.conf.set(TimeTypeConf, "true")
    try check(Seq("types_v2_2", "types_v2_1").map(name => roundTrip(name, "time-type", 700)))
    finally spark.conf.unset(TimeTypeConf)
  }

  test("the schema Spark shows for each golden table maps back to the table's Lance types (WriteSchema)") {
    def shape(f: LanceField): Any = (f.name, f.logicalType, f.nullable, f.children.map(shape))
    datasets.foreach { name =>
      val uri = Golden.dataset(name).uri
      val table = Snapshot.open(store, uri, None).manifest.schema
      val kept = table.fields.filter(_.blobVersion.isEmpty)
      val sparkSchema = StructType(spark.read.format("lance").load(uri).schema.fields.filter(f => kept.exists(_.name == f.name)))
      assert(WriteSchema.lance(sparkSchema, name).fields.map(shape) == kept.map(shape), name)
    }
  }
}
