package io.sparklance.format.write

import java.io.{File, FileOutputStream}
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.VectorSchemaRoot
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.{LanceFileReader, LanceSchema}
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.{FileLocations, Snapshot}
import io.sparklance.testutil.{Golden, PylanceFiles}

/**
 * The data of pylance's golden files, rewritten by our writer in the same file version: pylance
 * must read our file equal to the data, and for each column our page encodings must be the ones
 * pylance chose, or differ for a reason listed here, with our column no larger than pylance's.
 */
class EncodingParitySuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())
  private val allocator = new RootAllocator()
  private val dir = Files.createTempDirectory("encoding-parity").toFile

  private val datasets = Seq("types_v2_1", "types_v2_2", "encodings_v2_1", "encodings_v2_2", "edge_cases_v2_2",
    "long_strings", "wide_vectors_v2_1", "wide_vectors_v2_2", "one_page_vectors_v2_2", "many_pages_v2_1", "many_pages_v2_2")

  /**
   * Why a column's encodings may differ from pylance's, by dataset and column (our column must
   * still not be larger than pylance's).
   */
  private def knownDifference(dataset: String, column: String): Option[String] = dataset match {
    case "many_pages_v2_1" | "many_pages_v2_2" =>
      Some("pylance cut these pages by a small data_cache_bytes between irregular input batches; we write one " +
        "8 MiB page, so the level compression of its short last page does not appear")
    case _ => None
  }

  datasets.foreach { name =>
    test(s"$name: pylance reads our rewrite equal, with pylance's encodings") {
      val ds = Golden.dataset(name)
      val snap = Snapshot.open(store, ds.uri, None)
      val m = snap.manifest
      val df = m.fragments.head.files.head
      val original = new FileLocations(snap.root, m).dataFile(df)
      val columnOf = df.fields.zip(df.columnIndices).toMap
      val schema = LanceSchema(m.schema.fields, m.schema.metadata)
      val reader = LanceFileReader.open(store, original)
      val vectors = try schema.fields.map(f => reader.scan(f, columnOf.get).next(reader.numRows.toInt, allocator))
      finally reader.close()
      val arrow = schema.toArrow(name)
      val root = new VectorSchemaRoot(arrow.getFields, vectors.asJava, vectors.head.getValueCount)
      try {
        val ours = new File(dir, s"$name.lance")
        val expected = new File(dir, s"$name.arrow")
        val w = new LanceFileWriter(FileSink.of(new FileOutputStream(ours)), schema, FileWriterOptions(m.fileVersion(name).get))
        w.write(root)
        w.finish()
        PylanceFiles.writeExpected(Seq(root), expected)
        val Seq(theirs, mine) = PylanceFiles.check(Seq(expected -> new File(original.stripPrefix("file:")), expected -> ours))
        assert(theirs.equal, s"pylance and our reader disagree on the golden file itself: ${theirs.problem}")
        assert(mine.equal, s"pylance reads our file differently: ${mine.problem}")
        val leafNames = leaves(schema)
        val problems = leafNames.indices.flatMap { c =>
          val (t, o) = (theirs.pageEncodings(c).distinct, mine.pageEncodings(c).distinct)
          val (tb, ob) = (theirs.columnBytes(c), mine.columnBytes(c))
          if (t == o) None
          else if (knownDifference(name, leafNames(c)).isDefined && ob <= tb) None
          else Some(s"${leafNames(c)}: pylance ${t.mkString(" | ")} ($tb bytes); ours ${o.mkString(" | ")} ($ob bytes)")
        }
        val sizes = s"file bytes: pylance ${new File(original.stripPrefix("file:")).length()}, ours ${ours.length()}"
        assert(problems.isEmpty, problems.mkString("\n", "\n", "\n") + sizes)
      } finally root.close()
    }
  }

  private def leaves(schema: LanceSchema): IndexedSeq[String] = {
    def walk(f: io.sparklance.format.LanceField, prefix: String): Iterator[String] =
      if (f.children.isEmpty || !f.columnsOwnedByLeaves) Iterator.single(prefix + f.name)
      else f.children.iterator.flatMap(walk(_, prefix + f.name + "."))
    schema.fields.iterator.flatMap(walk(_, "")).toIndexedSeq
  }
}
