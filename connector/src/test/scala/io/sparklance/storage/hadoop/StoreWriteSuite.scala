package io.sparklance.storage.hadoop

import java.io.File
import java.nio.file.Files
import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong}

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.{ObjectStore, PutResult}
import io.sparklance.table.ManifestNaming
import io.sparklance.testutil.{HostileCopies, PutRace}
import io.sparklance.util.LanceException

/**
 * Writes through [[HadoopObjectStore]] on local files: a new file is invisible until its sink
 * closes and gone after an abort, create-if-absent has exactly one winner and never exposes a
 * partial file, and a scheme without an atomic create-if-absent is refused for commits.
 */
class StoreWriteSuite extends AnyFunSuite {

  private val store: ObjectStore = new HadoopObjectStore(new Configuration())

  private def freshDir(): File = HostileCopies.tempDir("lance-store-write")

  private def bytes(n: Int, seed: Int): Array[Byte] = Array.tabulate(n)(i => (i * 31 + seed).toByte)

  private def errorClass(f: => Any): String = intercept[LanceException](f).errorClass

  test("a created file is invisible until close, then holds exactly what was written") {
    val dir = freshDir()
    val path = new File(dir, "data/sub/part-0.lance").getPath // parent folders do not exist yet
    val sink = store.create(path)
    val data = bytes(300000, 7)
    sink.write(data, 0, 1000)
    sink.write(data, 1000, data.length - 1000)
    assert(sink.position == data.length)
    assert(!store.exists(path))
    // Only the hidden temporary file is there, and it does not read as a manifest.
    val during = store.listNames(new File(dir, "data/sub").getPath)
    assert(during.size == 1 && during.head.startsWith(".") && during.head.endsWith(".tmp"), during)
    assert(ManifestNaming.parse(s".${ManifestNaming.V2.fileName(3)}.0f8e.tmp").isEmpty)
    sink.close()
    assert(store.readAll(path).sameElements(data))
    assert(store.listNames(new File(dir, "data/sub").getPath) == Seq("part-0.lance"))
  }

  test("plain paths and file: URIs write the same file") {
    val dir = freshDir()
    val sink = store.create(new File(dir, "a.bin").toURI.toString)
    sink.write(bytes(10, 1))
    sink.close()
    assert(Files.readAllBytes(new File(dir, "a.bin").toPath).sameElements(bytes(10, 1)))
    assert(store.putIfAbsent(new File(dir, "a.bin").getPath, bytes(10, 2)) == PutResult.AlreadyExists)
  }

  test("an aborted file leaves nothing behind, and abort after close keeps the file") {
    val dir = freshDir()
    val path = new File(dir, "part-1.lance").getPath
    val sink = store.create(path)
    sink.write(bytes(5000, 3))
    sink.abort()
    sink.abort() // twice is harmless
    assert(!store.exists(path) && dir.list().isEmpty, dir.list().toSeq)
    val kept = store.create(path)
    kept.write(bytes(10, 4))
    kept.close()
    kept.abort()
    assert(store.readAll(path).sameElements(bytes(10, 4)))
  }

  test("create never replaces an existing file: the close fails and the file is untouched") {
    val dir = freshDir()
    val path = new File(dir, "taken").getPath
    assert(store.putIfAbsent(path, bytes(20, 1)) == PutResult.Created)
    val sink = store.create(path)
    sink.write(bytes(30, 2))
    assert(errorClass(sink.close()) == "LANCE_IO_ERROR")
    assert(store.readAll(path).sameElements(bytes(20, 1)))
    assert(dir.list().toSeq == Seq("taken"), dir.list().toSeq) // the temporary file is gone
  }

  test("putIfAbsent: Created once, then AlreadyExists with the content untouched") {
    val dir = freshDir()
    val path = new File(dir, "_versions/1.manifest").getPath
    assert(store.putIfAbsent(path, bytes(100, 1)) == PutResult.Created)
    assert(store.putIfAbsent(path, bytes(50, 2)) == PutResult.AlreadyExists)
    assert(store.readAll(path).sameElements(bytes(100, 1)))
    assert(store.putIfAbsent(new File(dir, "empty").getPath, Array.emptyByteArray) == PutResult.Created)
    assert(store.size(new File(dir, "empty").getPath) == 0)
    assert(new File(dir, "_versions").list().toSeq == Seq("1.manifest")) // no temporary file left
  }

  test("replace: creates, then overwrites whole; a reader polling meanwhile always finds one complete version") {
    val dir = freshDir()
    val path = new File(dir, "_refs/tags/t.json").getPath // parent folders do not exist yet
    store.replace(path, bytes(10, 1))
    assert(store.readAll(path).sameElements(bytes(10, 1)))
    val versions = (0 until 2).map(i => bytes(5000 + i * 3000, i)) // different lengths: a torn read shows
    val stop = new AtomicBoolean(false)
    val bad = new AtomicLong(0)
    val reads = new AtomicLong(0)
    val reader = new Thread(() => while (!stop.get()) {
      // readAll takes the size of the file it opened, not of one it looked up before: no read is cut.
      val got = try Some(store.readAll(path)) catch { case _: LanceException => None }
      if (!got.exists(g => versions.exists(_.sameElements(g)) || g.sameElements(bytes(10, 1)))) bad.incrementAndGet()
      reads.incrementAndGet()
    })
    reader.start()
    try Range(0, 300).foreach(i => store.replace(path, versions(i % 2))) finally { stop.set(true); reader.join() }
    assert(bad.get() == 0 && reads.get() > 0, s"${bad.get()} of ${reads.get()} reads found no file or a partial one")
    assert(store.readAll(path).sameElements(versions(1)))
    assert(new File(dir, "_refs/tags").list().toSeq == Seq("t.json")) // no temporary file left
  }

  test("failures are LANCE_IO_ERROR, never raw I/O exceptions") {
    val dir = freshDir()
    val file = new File(dir, "plain")
    Files.write(file.toPath, bytes(3, 0))
    // A file where a parent folder should be. The create-if-absent says nothing was written:
    // a commit that meets it has definitely not happened (not LANCE_COMMIT_STATE_UNKNOWN).
    assert(errorClass(store.putIfAbsent(new File(file, "x").getPath, bytes(3, 1))) == "LANCE_IO_ERROR")
    intercept[io.sparklance.util.NothingWrittenException](store.putIfAbsent(new File(file, "x").getPath, bytes(3, 1)))
    assert(errorClass(store.create(new File(file, "x").getPath)) == "LANCE_IO_ERROR")
    new File(dir, "full/inner").mkdirs()
    assert(errorClass(store.delete(new File(dir, "full").getPath)) == "LANCE_IO_ERROR") // a non-empty folder
  }

  test("delete says whether the file was there") {
    val dir = freshDir()
    val path = new File(dir, "f").getPath
    store.putIfAbsent(path, bytes(5, 5))
    assert(store.delete(path))
    assert(!store.exists(path))
    assert(!store.delete(path))
    assert(!store.delete(new File(dir, "never/was").getPath))
  }

  test("listRecursive finds files at every depth, with their sizes, and nothing for an absent folder") {
    val dir = freshDir()
    Seq("a" -> 1, "x/b" -> 2, "x/y/c" -> 3, "x/y/z/d" -> 4).foreach { case (rel, n) =>
      store.putIfAbsent(new File(dir, rel).getPath, bytes(n, n))
    }
    new File(dir, "empty/folder").mkdirs()
    val all = store.listRecursive(dir.getPath)
    assert(all.map(e => e.name -> e.size).sorted == Seq("a" -> 1L, "b" -> 2L, "c" -> 3L, "d" -> 4L))
    assert(all.forall(e => store.size(e.path) == e.size))
    assert(store.listRecursive(new File(dir, "x/y").getPath).map(_.name).sorted == Seq("c", "d"))
    assert(store.listRecursive(new File(dir, "nothing").getPath).isEmpty)
  }

  test("a scheme without an atomic create-if-absent is refused for commits, but can create, list and delete") {
    val conf = new Configuration()
    conf.set("fs.nocommit.impl", classOf[NoAtomicFileSystem].getName)
    conf.set("fs.nocommit.impl.disable.cache", "true")
    val other = new HadoopObjectStore(conf)
    val dir = freshDir()
    val uri = s"nocommit://${dir.getPath}"
    val refused = intercept[LanceException](other.requireAtomicCreate(s"$uri/table"))
    assert(refused.errorClass == "LANCE_NO_ATOMIC_COMMIT" && refused.sqlState == "0A000")
    assert(refused.getMessage.contains("'nocommit'") && refused.getMessage.contains("s3a"), refused.getMessage)
    assert(errorClass(other.putIfAbsent(s"$uri/table/_versions/1.manifest", bytes(4, 4))) == "LANCE_NO_ATOMIC_COMMIT")
    assert(errorClass(other.replace(s"$uri/table/_refs/tags/t.json", bytes(4, 4))) == "LANCE_NO_ATOMIC_COMMIT")
    assert(!new File(dir, "table").exists())
    val sink = other.create(s"$uri/table/data/f.lance")
    sink.write(bytes(8, 8))
    sink.close()
    assert(other.listRecursive(s"$uri/table").map(e => e.name -> e.size) == Seq("f.lance" -> 8L))
    assert(Files.readAllBytes(new File(dir, "table/data/f.lance").toPath).sameElements(bytes(8, 8)))
    assert(other.delete(s"$uri/table/data/f.lance") && !new File(dir, "table/data/f.lance").exists())
    // Local files, plain or as file: URIs, can commit.
    store.requireAtomicCreate(dir.getPath)
    store.requireAtomicCreate(dir.toURI.toString)
  }

  test("race: 8 threads x 50 rounds of putIfAbsent on one name, exactly one winner whose bytes the file holds") {
    val dir = freshDir()
    val rounds = PutRace.run(store, threads = 8, rounds = 50,
      pathOf = r => new File(dir, s"_versions/$r.manifest").getPath, bytesOf = t => bytes(4096 + t, t))
    rounds.foreach { r =>
      assert(r.created.size == 1 && r.alreadyExists == 7, s"${r.path}: winners ${r.created}")
      assert(r.content.sameElements(bytes(4096 + r.created.head, r.created.head)), r.path)
    }
    assert(new File(dir, "_versions").list().length == 50) // no temporary file left
  }

  test("a reader polling while files are written never sees a partial file") {
    val dir = freshDir()
    val size = 1 << 20
    val names = (0 until 40).map(i => new File(dir, s"f$i").getPath)
    val stop = new AtomicBoolean(false)
    val seen = new AtomicLong()
    val bad = new java.util.concurrent.ConcurrentLinkedQueue[String]()
    val reader = new Thread(() => {
      while (!stop.get()) names.foreach { p =>
        if (new File(p).exists()) {
          val got = Files.readAllBytes(new File(p).toPath)
          seen.incrementAndGet()
          if (got.length != size) bad.add(s"$p: ${got.length} bytes")
        }
      }
    })
    reader.start()
    try names.zipWithIndex.foreach { case (p, i) =>
      val data = bytes(size, i)
      if (i % 2 == 0) assert(store.putIfAbsent(p, data) == PutResult.Created)
      else {
        val sink = store.create(p)
        data.grouped(4096).foreach(sink.write)
        sink.close()
      }
    } finally { stop.set(true); reader.join() }
    assert(bad.isEmpty, bad)
    assert(seen.get() > 0)
  }
}
