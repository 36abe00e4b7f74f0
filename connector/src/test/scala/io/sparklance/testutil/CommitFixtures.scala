package io.sparklance.testutil

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.{BigIntVector, VarCharVector, VectorSchemaRoot}
import org.apache.arrow.vector.types.pojo.{ArrowType, Schema}

import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.format.{FileVersion, LanceSchema}
import io.sparklance.format.write.{FileWriterOptions, LanceFileWriter}
import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.table.{DataFile, Fragment, Snapshot}
import io.sparklance.util.Json

/**
 * Tables for the commit tests: rows (id: int64, s: utf8 = "r<id>") written as fragments with
 * the file writer, and pylance reading, appending and deleting through
 * dev/golden/table_ops.py.
 */
object CommitFixtures {
  val arrowSchema = new Schema(java.util.Arrays.asList(ArrowData.field("id", new ArrowType.Int(64, true)), ArrowData.field("s", ArrowType.Utf8.INSTANCE)))
  val schema: LanceSchema = LanceSchema.fromArrow(arrowSchema, "test")

  def value(id: Long): String = s"r$id"

  /** One fragment (id unassigned) holding rows `ids`, its data file under `<root>/data/`. */
  def fragment(store: ObjectStore, root: String, ids: Seq[Long], version: FileVersion = FileVersion.V2_2): Fragment = {
    val name = s"${UUID.randomUUID()}.lance"
    val sink = store.create(Paths.join(root, "data", name))
    val allocator = new RootAllocator()
    val batch = ArrowVectors.root(arrowSchema, allocator)
    try {
      val idv = batch.getVector(0).asInstanceOf[BigIntVector]
      val sv = batch.getVector(1).asInstanceOf[VarCharVector]
      idv.allocateNew(ids.length); sv.allocateNew()
      ids.zipWithIndex.foreach { case (id, i) => idv.set(i, id); sv.setSafe(i, value(id).getBytes(UTF_8)) }
      batch.setRowCount(ids.length)
      val w = new LanceFileWriter(sink, schema, FileWriterOptions(version))
      w.write(batch)
      val f = w.finish()
      val (major, minor) = version match {
        case FileVersion.V2_0 => (2, 0)
        case FileVersion.V2_1 => (2, 1)
        case _ => (2, 2)
      }
      Fragment(0, IndexedSeq(DataFile(name, f.fieldIds, f.columnIndices, major, minor, f.size, None)), None, ids.length.toLong, None)
    } finally { batch.close(); allocator.close() }
  }

  final case class PylanceRead(version: Long, rows: Seq[(Long, String)], rowIds: Seq[(Long, Long)], operations: Seq[String])

  private def python(args: String*): Map[String, Any] = {
    val venv = sys.env.getOrElse("SPARK_LANCE_VENV", throw new IllegalStateException("SPARK_LANCE_VENV is not set (sbt sets it)"))
    val repo = sys.env.getOrElse("SPARK_LANCE_REPO", throw new IllegalStateException("SPARK_LANCE_REPO is not set (sbt sets it)"))
    val cmd = Seq(new File(venv, "bin/python").getPath, new File(repo, "dev/golden/table_ops.py").getPath) ++ args
    val p = new ProcessBuilder(cmd: _*).redirectErrorStream(true).start()
    val out = new String(p.getInputStream.readAllBytes(), UTF_8)
    p.waitFor()
    val line = out.linesIterator.filter(_.startsWith("{")).toSeq.lastOption
      .getOrElse(throw new IllegalStateException(s"table_ops.py ${args.mkString(" ")} failed (exit ${p.exitValue()}):\n$out"))
    val answer = Json.parse(line).asInstanceOf[Map[String, Any]]
    answer.get("error").foreach(e => throw new IllegalStateException(s"pylance: $e"))
    answer
  }

  private def long(x: Any): Long = x.asInstanceOf[BigDecimal].toLongExact

  /** What pylance reads from the table at `uri` (the latest version, or `version`), rows sorted by id. */
  def pylanceRead(uri: String, version: Option[Long] = None): PylanceRead = {
    val a = python(Seq("read", uri) ++ version.map(_.toString): _*)
    val rows = a("rows").asInstanceOf[Seq[Any]].map { case Seq(id, s) => (long(id), s.asInstanceOf[String]) }
    val rowIds = a("rowids").asInstanceOf[Seq[Any]].map { case Seq(id, r) => (long(id), long(r)) }
    PylanceRead(long(a("version")), rows, rowIds, a("operations").asInstanceOf[Seq[Any]].map(_.toString))
  }

  /** The ids pylance reads at each of `versions`, sorted. */
  def pylanceIds(uri: String, versions: Seq[Long]): Map[Long, Seq[Long]] =
    python(Seq("ids", uri) ++ versions.map(_.toString): _*)("reads").asInstanceOf[Seq[Any]].map { r =>
      val m = r.asInstanceOf[Map[String, Any]]
      long(m("version")) -> m("ids").asInstanceOf[Seq[Any]].map(long)
    }.toMap

  /** pylance's latest version of the table at `uri` and its row count. */
  def pylanceCount(uri: String): (Long, Long) = {
    val a = python("count", uri)
    (long(a("version")), long(a("rows")))
  }

  /** pylance appends rows `ids`; returns the new version. */
  def pylanceAppend(uri: String, ids: Seq[Long]): Long = long(python(Seq("append", uri) ++ ids.map(_.toString): _*)("version"))

  /** pylance deletes the rows matching `predicate`, reading at `readVersion` if given; returns the new version. */
  def pylanceDelete(uri: String, predicate: String): Long = long(python("delete", uri, predicate)("version"))

  /** The rows pylance must read: `(id, "r<id>")`, sorted. */
  def expected(ids: Iterable[Long]): Seq[(Long, String)] = ids.toSeq.sorted.map(i => (i, value(i)))

  def latestVersion(store: ObjectStore, uri: String): Long = Snapshot.listVersions(store, uri).last._1
}
