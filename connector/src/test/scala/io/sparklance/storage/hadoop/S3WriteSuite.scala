package io.sparklance.storage.hadoop

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.storage.{ObjectStore, PutResult}
import io.sparklance.testutil.{PutRace, S3Server}
import io.sparklance.util.LanceException

/**
 * Writes through [[HadoopObjectStore]] on S3 (s3a against a local SeaweedFS, started once for
 * the suite): streaming creates become visible only at close and not at all after an abort,
 * create-if-absent is one conditional PUT with one winner per race (which also shows that the
 * server honours `If-None-Match: *`), and s3a without conditional create is refused for commits.
 */
class S3WriteSuite extends AnyFunSuite with BeforeAndAfterAll {

  private var server: S3Server = _
  private var store: ObjectStore = _
  private def root = s"s3://${server.bucket}/${getClass.getSimpleName}"

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    server = S3Server.start()
    store = new HadoopObjectStore(server.configuration())
  }

  override protected def afterAll(): Unit = try if (server != null) server.stop() finally super.afterAll()

  private def bytes(n: Int, seed: Int): Array[Byte] = Array.tabulate(n)(i => (i * 31 + seed).toByte)

  test("a created object appears only at close, with the bytes written") {
    val path = s"$root/create/data/part-0.lance"
    val sink = store.create(path)
    val data = bytes(200000, 1)
    data.grouped(65536).foreach(sink.write)
    assert(sink.position == data.length)
    assert(!store.exists(path) && store.listRecursive(s"$root/create").isEmpty)
    sink.close()
    assert(store.readAll(path).sameElements(data))
    assert(store.readAll(path.replace("s3://", "s3a://")).sameElements(data))
  }

  test("an aborted upload leaves nothing behind") {
    val path = s"$root/abort/part-1.lance"
    val sink = store.create(path)
    sink.write(bytes(100000, 2))
    sink.abort()
    assert(!store.exists(path))
    assert(store.listRecursive(s"$root/abort").isEmpty)
  }

  test("putIfAbsent: Created once, then AlreadyExists with the object untouched") {
    val path = s"$root/put/_versions/1.manifest"
    assert(store.putIfAbsent(path, bytes(100, 1)) == PutResult.Created)
    assert(store.putIfAbsent(path, bytes(60, 2)) == PutResult.AlreadyExists)
    assert(store.putIfAbsent(path.replace("s3://", "s3a://"), bytes(60, 3)) == PutResult.AlreadyExists)
    assert(store.readAll(path).sameElements(bytes(100, 1)))
  }

  test("delete and listRecursive") {
    Seq("a" -> 1, "x/b" -> 2, "x/y/c" -> 3).foreach { case (rel, n) =>
      assert(store.putIfAbsent(s"$root/list/$rel", bytes(n, n)) == PutResult.Created)
    }
    assert(store.listRecursive(s"$root/list").map(e => e.name -> e.size).sorted == Seq("a" -> 1L, "b" -> 2L, "c" -> 3L))
    assert(store.listRecursive(s"$root/list/x/y").map(_.name) == Seq("c"))
    assert(store.listRecursive(s"$root/nothing-here").isEmpty)
    assert(store.delete(s"$root/list/x/b"))
    assert(!store.delete(s"$root/list/x/b"))
    assert(store.listRecursive(s"$root/list").map(_.name).sorted == Seq("a", "c"))
  }

  test("s3a commits where conditional create is on (the default), and is refused where it is off") {
    store.requireAtomicCreate(s"$root/table")
    store.requireAtomicCreate(s"s3a://${server.bucket}/table")
    val conf = server.configuration()
    conf.set("fs.s3a.create.conditional.enabled", "false")
    conf.set("fs.s3a.impl.disable.cache", "true")
    val off = new HadoopObjectStore(conf)
    val e = intercept[LanceException](off.requireAtomicCreate(s"$root/off"))
    assert(e.errorClass == "LANCE_NO_ATOMIC_COMMIT" && e.getMessage.contains("fs.s3a.create.conditional.enabled"), e.getMessage)
    assert(intercept[LanceException](off.putIfAbsent(s"$root/off/_versions/1.manifest", bytes(3, 3))).errorClass == "LANCE_NO_ATOMIC_COMMIT")
    assert(!store.exists(s"$root/off/_versions/1.manifest"))
  }

  test("race: 8 threads x 20 rounds of putIfAbsent on one key, exactly one winner whose bytes the object holds") {
    val rounds = PutRace.run(store, threads = 8, rounds = 20,
      pathOf = r => s"$root/race/_versions/$r.manifest", bytesOf = t => bytes(2048 + t, t))
    rounds.foreach { r =>
      assert(r.created.size == 1 && r.alreadyExists == 7, s"${r.path}: winners ${r.created}")
      assert(r.content.sameElements(bytes(2048 + r.created.head, r.created.head)), r.path)
    }
  }
}
