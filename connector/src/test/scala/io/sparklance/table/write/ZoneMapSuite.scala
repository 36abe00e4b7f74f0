package io.sparklance.table.write

import java.io.{File, FileInputStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.apache.arrow.memory.RootAllocator
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.format.FileVersion
import io.sparklance.format.write.{FileWriterOptions, LanceFileWriter}
import io.sparklance.table.{DataFile, FileLocations, Fragment, Snapshot, ZoneMapIndex}
import io.sparklance.table.commit.{CommitRequest, Operation, TableCommitter}
import io.sparklance.testutil.ArrowIpc
import io.sparklance.util.Json

/**
 * Zone maps extended over appended fragments, against pylance: `dev/golden/zonemap.py make`
 * builds a table with a ZONEMAP index on columns of many types (ints signed and unsigned,
 * floats with NaN, -0.0 and nulls, a zone of only NaN and nulls, booleans, strings with
 * non-ASCII text and a zone of only nulls, large strings, binaries, dates, timestamps in us and
 * ns, decimals, fixed-size binaries) and appends rows to it in three fragments; on a copy,
 * pylance's `optimize_indices` extends every index. Our builder sees the same rows as the
 * fragment writer would hand them over, and our writer must produce the same index files and
 * index metadata; pylance then commits ours and answers filters through them.
 */
class ZoneMapSuite extends AnyFunSuite {
  private val allocator = new RootAllocator()
  private val dir = Files.createTempDirectory("zonemap").toFile
  private val store = new HadoopObjectStore(new Configuration())

  private def python(args: String*): Seq[Map[String, Any]] = {
    val venv = sys.env("SPARK_LANCE_VENV")
    val repo = sys.env("SPARK_LANCE_REPO")
    val cmd = Seq(new File(venv, "bin/python").getPath, new File(repo, "dev/golden/zonemap.py").getPath) ++ args
    val p = new ProcessBuilder(cmd: _*).start()
    val out = new String(p.getInputStream.readAllBytes(), UTF_8)
    val err = new String(p.getErrorStream.readAllBytes(), UTF_8)
    assert(p.waitFor() == 0, s"zonemap.py ${args.head} failed:\n$out\n$err")
    out.linesIterator.filter(_.startsWith("{")).map(Json.parse(_).asInstanceOf[Map[String, Any]]).toSeq
  }

  private lazy val made = python("make", dir.getPath).head
  private def table = new File(dir, "table").getPath
  private def versions = made("versions").asInstanceOf[Seq[Any]].map(_.toString.toDouble.toLong)
  private def reference = made("reference").asInstanceOf[Map[String, Map[String, Any]]]

  /** The appended rows fed to a builder as the fragment writer would: files of 200 rows, in slices of `slice` rows. */
  private def build(targets: IndexedSeq[ZoneMapTarget], slice: Int): IndexedSeq[FragmentZoneMaps] = builder(targets, slice).fragments()

  private def builder(targets: IndexedSeq[ZoneMapTarget], slice: Int): ZoneMapBuilder = {
    val builder = new ZoneMapBuilder(targets)
    val in = new FileInputStream(new File(dir, "new.arrow"))
    val reader = ArrowIpc.reader(in.getChannel, allocator)
    try {
      var inFile = 0L
      while (reader.loadNextBatch()) {
        val batch = reader.getVectorSchemaRoot
        var from = 0
        while (from < batch.getRowCount) {
          val count = Seq(slice.toLong, 200 - inFile, (batch.getRowCount - from).toLong).min.toInt
          builder.observe(batch, from, count, inFile)
          from += count
          inFile = (inFile + count) % 200
        }
      }
    } finally { reader.close(); in.close() }
    builder
  }

  private lazy val before = Snapshot.open(store, table, Some(versions(0)))
  private lazy val after = Snapshot.open(store, table, Some(versions(1)))
  private lazy val targets = ZoneMapWriter.targets(store, table, before.manifest, before.manifest.schema)
  private lazy val newFragments = after.manifest.fragments.filter(_.id > 0)
  private lazy val update = ZoneMapWriter.prepare(store, table, after.manifest, targets,
    newFragments.zip(build(targets, 37)), createdAt = 1764000000000L).get

  /** The indices we extend: all but the one on a nested column, which has no bounds. */
  private def extended = reference.keySet - "lst_idx"

  test("every ZONEMAP index on a column with bounds is a target, with its zone size") {
    assert(targets.map(t => t.indexName -> t.rowsPerZone).toMap ==
      before.manifest.schema.fields.filter(_.name != "lst").map(f => s"${f.name}_idx" -> (if (f.name == "id") 8192L else 100L)).toMap)
    assert(targets.forall(t => before.manifest.schema.fields(t.column).id == t.fieldId))
  }

  test("zones do not depend on how the rows are sliced into batches") {
    assert(build(targets, 37) == build(targets, 1000))
    assert(build(targets, 1000).map(_.rows) == Seq(200L, 200L, 130L))
  }

  test("the zones we would embed in each data file are those pylance embeds") {
    val b = builder(targets, 37)
    val seeded = targets.filter(_.seeds).map(_.columnName)
    // pylance embeds zones of strings, binaries, decimals and wider fixed-size binaries (default_use_seeds).
    assert(seeded.toSet == Set("s", "ls", "bin", "dec"))
    val triples = b.fragments().zip(newFragments).zipWithIndex.flatMap { case ((z, f), k) =>
      val seeds = b.seeds(z)
      assert(seeds.map(_.metadataKey) == seeded.map(ZoneSeed.key))
      assert(seeds.map(_.metadataValue(3)) == seeded.map(_ => "3:100"))
      seeds.flatMap { seed =>
        val ours = new File(dir, s"seed_${k}_${seed.metadataKey}.arrow")
        Files.write(ours.toPath, seed.bytes)
        Seq(new File(table, s"data/${f.files.head.path}").getPath, seed.metadataKey.stripPrefix("lance.seed."), ours.getPath)
      }
    }
    val verdicts = python("seed" +: triples: _*)
    assert(verdicts.length == 3 * seeded.length)
    val bad = verdicts.filterNot(v => v("equal") == true && v("rows_per_zone").toString.toDouble == 100)
    assert(bad.isEmpty, bad.map(v => s"${v("file")}: ${v("diff")}").mkString("\n"))
  }

  test("the new index metadata is what pylance's optimize_indices records") {
    assert(update.added.map(_.name).toSet == extended)
    assert(update.removed.map(_.name).toSet == extended)
    update.added.foreach { a =>
      val r = reference(a.name)
      val old = before.manifest.indices.find(_.name == a.name).get
      assert(a.uuid != old.uuid)
      assert(a.fields == old.fields)
      assert(a.fragments.get.toArray.toSeq == r("fragment_ids").asInstanceOf[Seq[Any]].map(_.toString.toDouble.toInt), a.name)
      assert(a.datasetVersion == r("dataset_version").toString.toDouble.toLong, a.name)
      assert(a.indexVersion.contains(r("index_version").toString.toDouble.toInt))
      assert(s"/lance.table.${a.kind}" == r("details_url"))
      assert(a.createdAt.contains(1764000000000L))
      assert(a.details.map(b => f"$b%02x").mkString == r("details"), a.name)
      assert(a.fileSizes.keys.toSeq == r("files"))
      assert(a.fileSizes("zonemap.lance") == new File(table, s"_indices/${a.uuid}/zonemap.lance").length())
    }
  }

  test("pylance reads our zonemap.lance equal to its own: schema, metadata, every zone, the null rows") {
    val pairs = update.added.flatMap(a => Seq(new File(table, s"_indices/${a.uuid}/zonemap.lance").getPath, reference(a.name)("file").toString))
    val verdicts = python("compare" +: pairs: _*)
    assert(verdicts.length == update.added.length)
    val bad = verdicts.filterNot(_("equal") == true)
    assert(bad.isEmpty, bad.map(v => s"${v("file")}: ${v("diff")}").mkString("\n"))
  }

  test("our reader reads the zones we wrote as it reads pylance's") {
    val locations = new FileLocations(table, after.manifest)
    update.added.foreach { a =>
      val field = after.manifest.schema.fields.find(_.id == a.fields.head).get
      val arrowType = field.toArrow(table).getType
      val ours = ZoneMapIndex.load(store, new File(table, s"_indices/${a.uuid}").getPath, a, arrowType)
      val refDir = new File(reference(a.name)("file").toString).getParentFile
      val theirs = ZoneMapIndex.load(store, refDir.getPath,
        a.copy(uuid = refDir.getName, fileSizes = Map.empty), arrowType)
      assert(ours.toString == theirs.toString, a.name) // NaN bounds compare equal as text
      assert(ours.map(_.fragmentId).distinct == Seq(0L, 1L, 2L, 3L), a.name)
      assert(locations.indexDir(update.removed.find(_.name == a.name).get).endsWith(update.removed.find(_.name == a.name).get.uuid))
    }
  }

  test("pylance commits our update (on a copy) and answers filters through our indices as through its own") {
    val json = new StringBuilder("{\"added\": [")
    json.append(update.added.map { a =>
      s"""{"uuid": "${a.uuid}", "name": "${a.name}", "fields": [${a.fields.mkString(",")}], "dataset_version": ${a.datasetVersion},
         |"fragment_ids": [${a.fragments.get.toArray.mkString(",")}], "index_version": ${a.indexVersion.get}, "created_at": ${a.createdAt.get},
         |"files": [${a.fileSizes.map { case (p, s) => s"""["$p", $s]""" }.mkString(",")}], "details_url": "/lance.table.${a.kind}",
         |"details": "${a.details.map(b => f"$b%02x").mkString}"}""".stripMargin
    }.mkString(","))
    json.append("], \"removed\": [").append(update.removed.map(r => "\"" + r.uuid + "\"").mkString(",")).append("]}")
    val spec = new File(dir, "update.json")
    Files.write(spec.toPath, json.toString.getBytes(UTF_8))
    val result = python("commit", table, spec.getPath, new File(dir, "reference").getPath).head
    assert(result("rows").toString.toDouble == 780)
    val indexed = result("indexed").asInstanceOf[Map[String, Any]]
    assert(indexed.keySet == reference.keySet, indexed)
    assert(indexed.forall { case (name, n) => n.toString.toDouble == (if (extended(name)) 780 else 250) }, indexed)
    assert(result("wrong") == Seq(), result("wrong"))
    assert(result("same_plans").asInstanceOf[Seq[Any]].forall(_ == true), result("same_plans"))
    val latest = Snapshot.open(store, table + "_pylance", None).manifest
    val lst = before.manifest.indices.find(_.name == "lst_idx").get
    assert(latest.indices.map(_.uuid).toSet == update.added.map(_.uuid).toSet + lst.uuid)
    assert(latest.indices.forall(i => i.fragments.exists(_.getCardinality == (if (i.name == "lst_idx") 1 else 4))))
  }

  test("our committer commits the update as one CreateIndex; pylance uses our indices and answers as through its own") {
    val outcome = new TableCommitter(store, table).commit(CommitRequest(Some(after.version), update.operation))
    assert(outcome.version == after.version + 1 && !outcome.duplicate)
    val result = python("check", table, new File(dir, "reference").getPath).head
    assert(result("operation") == "CreateIndex")
    assert(result("version").toString.toDouble == outcome.version)
    val indexed = result("indexed").asInstanceOf[Map[String, Any]]
    assert(indexed.forall { case (name, n) => n.toString.toDouble == (if (extended(name)) 780 else 250) }, indexed)
    assert(result("wrong") == Seq(), result("wrong"))
    assert(result("same_plans").asInstanceOf[Seq[Any]].forall(_ == true), result("same_plans"))
    // The manifest and transaction we wrote hold the new indices as we built them, the others as they were.
    val latest = Snapshot.open(store, table, None).manifest
    val lst = before.manifest.indices.find(_.name == "lst_idx").get
    assert(latest.indices.map(_.uuid).toSet == update.added.map(_.uuid).toSet + lst.uuid)
    update.added.foreach { a =>
      val i = latest.indices.find(_.uuid == a.uuid).get
      assert(i.copy(fragments = None) == a.copy(fragments = None) && i.fragments == a.fragments)
    }
    assert(latest.indices.find(_.uuid == lst.uuid).get.copy(fragments = None) == lst.copy(fragments = None))
  }

  /** A copy of the table as it was before pylance appended the new rows. */
  private def copyOfBase(name: String): File = {
    val copy = new File(dir, name)
    val from = new File(dir, "base").toPath
    Files.walk(from).forEach(p => Files.copy(p, copy.toPath.resolve(from.relativize(p).toString)))
    copy
  }

  /** Appends the new rows to `path` with our fragment writer (files of 200 rows) and commits them; the fragments with their zones. */
  private def appendNewRows(path: String, targets: IndexedSeq[ZoneMapTarget]): (Long, IndexedSeq[(Fragment, FragmentZoneMaps)]) = {
    val m = Snapshot.open(store, path, None).manifest
    val writer = new FragmentWriter(store, path, m.schema, FragmentWriterOptions(maxRowsPerFile = 200), Some(new ZoneMapBuilder(targets)))
    val in = new FileInputStream(new File(dir, "new.arrow"))
    val reader = ArrowIpc.reader(in.getChannel, allocator)
    try while (reader.loadNextBatch()) writer.write(reader.getVectorSchemaRoot)
    finally { reader.close(); in.close() }
    val fragments = writer.finish()
    (new TableCommitter(store, path).commit(CommitRequest(Some(m.version), Operation.Append(fragments))).version,
      fragments.zip(writer.zoneMapsWritten))
  }

  test("end to end on rows we write: our fragment writer appends, our committer commits, the zone maps extended as by pylance") {
    val base = copyOfBase("ours").getPath
    val m = Snapshot.open(store, base, None).manifest
    assert(m.version == before.version)
    val ts = ZoneMapWriter.targets(store, base, m, m.schema)
    val (appended, written) = appendNewRows(base, ts)
    val committer = new TableCommitter(store, base)
    val committed = Snapshot.open(store, base, Some(appended)).manifest
    val u = ZoneMapWriter.prepare(store, base, committed, ts, written).get
    assert(u.added.map(_.name).toSet == extended)
    val indexed = committer.commit(CommitRequest(Some(appended), u.operation)).version
    assert(indexed == appended + 1)
    val result = python("check", base, new File(dir, "reference").getPath).head
    assert(result("wrong") == Seq(), result("wrong"))
    assert(result("same_plans").asInstanceOf[Seq[Any]].forall(_ == true), result("same_plans"))
    assert(result("indexed").asInstanceOf[Map[String, Any]].forall { case (name, n) => n.toString.toDouble == (if (extended(name)) 780 else 250) })
    val pairs = u.added.flatMap(a => Seq(new File(base, s"_indices/${a.uuid}/zonemap.lance").getPath, reference(a.name)("file").toString))
    val bad = python("compare" +: pairs: _*).filterNot(_("equal") == true)
    assert(bad.isEmpty, bad.map(v => s"${v("file")}: ${v("diff")}").mkString("\n"))
  }

  /**
   * Appends the new rows to a copy of the table before the append, writing each data file as
   * the fragment writer does, with the zones pylance embeds for indices with `use_seeds`
   * (those of column `tamper` taken from the next fragment, to see whether pylance reads them),
   * and runs pylance's optimize_indices on it. Returns the copy and pylance's new index files.
   */
  private def appendWithSeeds(name: String, tamper: Option[String]): (String, Map[String, Any]) = {
    val copy = copyOfBase(name)
    val m = Snapshot.open(store, copy.getPath, None).manifest
    val ts = ZoneMapWriter.targets(store, copy.getPath, m, m.schema)
    val zoneMaps = new ZoneMapBuilder(ts)
    val options = FileWriterOptions()
    val (major, minor) = FileVersion.dataFileVersion(options.version)
    val in = new FileInputStream(new File(dir, "new.arrow"))
    val reader = ArrowIpc.reader(in.getChannel, allocator)
    val files = try {
      assert(reader.loadNextBatch())
      val batch = reader.getVectorSchemaRoot
      (0 until batch.getRowCount by 200).map { from =>
        val count = math.min(200, batch.getRowCount - from)
        val fileName = FragmentWriter.newFileName()
        val writer = new LanceFileWriter(store.create(FragmentWriter.path(copy.getPath, fileName)), m.schema, options)
        writer.write(batch, from, count)
        zoneMaps.observe(batch, from, count, 0)
        (fileName, writer, zoneMaps.finishFragment())
      }
    } finally { reader.close(); in.close() }
    val fragments = files.indices.map { k =>
      val (fileName, writer, zones) = files(k)
      val seeds = zoneMaps.seeds(zones).map { seed =>
        if (tamper.exists(c => seed.metadataKey == ZoneSeed.key(c))) zoneMaps.seeds(files((k + 1) % files.length)._3).find(_.metadataKey == seed.metadataKey).get
        else seed
      }
      val written = writer.finish(seeds.map(seed => seed.metadataKey -> seed.metadataValue(writer.addGlobalBuffer(seed.bytes))).toMap)
      Fragment(0L, IndexedSeq(DataFile(fileName, written.fieldIds, written.columnIndices, major, minor, written.size, None)), None, written.numRows, None)
    }
    new TableCommitter(store, copy.getPath).commit(CommitRequest(Some(m.version), Operation.Append(fragments)))
    (copy.getPath, python("optimize", copy.getPath).head)
  }

  test("pylance's optimize_indices takes the zones we embed in our data files") {
    val (_, indices) = appendWithSeeds("seeded", None)
    val pairs = indices.toSeq.flatMap { case (name, file) => Seq(file.toString, reference(name)("file").toString) }
    val bad = python("compare" +: pairs: _*).filterNot(_("equal") == true)
    assert(bad.isEmpty, bad.map(v => s"${v("file")}: ${v("diff")}").mkString("\n"))
    // Seeds that lie are believed: pylance read ours instead of scanning the column.
    val (_, lied) = appendWithSeeds("seeded_wrong", Some("s"))
    val verdicts = python("compare" +: lied.toSeq.flatMap { case (name, file) => Seq(file.toString, reference(name)("file").toString) }: _*)
    assert(verdicts.filterNot(_("equal") == true).map(v => new File(v("file").toString).getParentFile.getName).toSet ==
      Set(new File(lied("s_idx").toString).getParentFile.getName))
  }

  test("an update that will not be committed removes its files") {
    val again = ZoneMapWriter.prepare(store, table, after.manifest, targets, newFragments.zip(build(targets, 1000))).get
    val files = again.added.map(a => new File(table, s"_indices/${a.uuid}/zonemap.lance"))
    assert(files.forall(_.exists))
    again.discard(store, table)
    assert(!files.exists(_.exists))
  }

  test("no target, nothing to update: an index that the committed version replaced is left alone") {
    val renamed = targets.map(t => t.copy(indexName = t.indexName + "_gone"))
    assert(ZoneMapWriter.prepare(store, table, after.manifest, renamed, newFragments.zip(build(targets, 1000))).isEmpty)
    val otherZoneSize = targets.map(t => t.copy(rowsPerZone = t.rowsPerZone + 1))
    assert(ZoneMapWriter.prepare(store, table, after.manifest, otherZoneSize, newFragments.zip(build(targets, 1000))).isEmpty)
  }

  test("another writer's append and index update between our data and index commits: ours is prepared again on top of theirs") {
    val base = copyOfBase("race").getPath
    val m = Snapshot.open(store, base, None).manifest
    val ts = ZoneMapWriter.targets(store, base, m, m.schema)
    val committer = new TableCommitter(store, base)
    val (ours, mine) = appendNewRows(base, ts)
    val (theirs, their) = appendNewRows(base, ts)
    assert(ZoneMapWriter.extend(store, base, committer, theirs, ts, their) == Some(theirs + 1))
    // Read at our data version: the first attempt conflicts with their CreateIndex (Retryable),
    // its files are removed, and the second, read at their index version, extends their indices.
    assert(ZoneMapWriter.extend(store, base, committer, ours, ts, mine) == Some(theirs + 2))
    val latest = Snapshot.open(store, base, None).manifest
    val all = latest.fragments.map(_.id.toInt).toSet
    assert(all.size == 7)
    latest.indices.filter(i => extended(i.name)).foreach(i => assert(i.fragments.get.toArray.toSet == all, i.name))
    val referenced = Snapshot.listVersions(store, base).map(_._1)
      .flatMap(v => Snapshot.open(store, base, Some(v)).manifest.indices.map(_.uuid)).toSet
    // (An emptied folder stays on a local file system; object stores have none.)
    assert(new File(base, "_indices").listFiles().filter(_.list().nonEmpty).map(_.getName).toSet == referenced,
      "the conflicting attempt's files are removed")
    // Nothing left to extend: every index covers our fragments.
    assert(ZoneMapWriter.extend(store, base, committer, latest.version, ts, mine).isEmpty)
  }
}
