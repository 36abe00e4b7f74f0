package io.sparklance.spark.write

import java.io.{File, IOException}
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SaveMode
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.spark.LanceOptions
import io.sparklance.storage.{ObjectStore, ObjectStoreFactory, PutResult, RangeReader}
import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.testutil.ForwardingStore
import io.sparklance.testutil.LocalSpark
import io.sparklance.util.LanceException

/**
 * A commit whose outcome cannot be established keeps every file the write wrote: the table
 * may name them. (A commit that definitely failed removes them: SparkWriteSuite's races.)
 */
class CommitOutcomeSuite extends AnyFunSuite with LocalSpark {

  private def save(path: String, mode: SaveMode, stores: ObjectStoreFactory): Unit = {
    val params = Map("path" -> path)
    val options = new CaseInsensitiveStringMap(params.asJava)
    LanceSave.save(mode, LanceOptions.parse(options), LanceWriteOptions.parse(options), stores, params, spark.range(20).toDF("id"))
  }

  private def dataFiles(path: String): Set[String] =
    Option(new File(path, "data").listFiles()).map(_.map(_.getName).toSet).getOrElse(Set.empty)

  private def lanceError(t: Throwable): LanceException =
    Iterator.iterate(t)(_.getCause).takeWhile(_ != null).collectFirst { case e: LanceException => e }
      .getOrElse(fail(s"expected a LanceException, got $t", t))

  test("an unknown commit outcome deletes nothing") {
    val path = new File(Files.createTempDirectory("lance-outcome").toFile, "t.lance").getPath
    val local = new HadoopObjectStoreFactory(spark.sessionState.newHadoopConf())
    save(path, SaveMode.Append, local)
    val before = dataFiles(path)

    val e = lanceError(intercept[Throwable](save(path, SaveMode.Append, new AmbiguousManifests(local))))
    assert(e.errorClass == "LANCE_COMMIT_STATE_UNKNOWN")
    val kept = dataFiles(path) -- before
    assert(kept.nonEmpty, "the files of a write whose commit may have happened are kept")
    // Here the manifest was never written: the table is still at its first version.
    assert(spark.read.format("lance").load(path).count() == 20)
  }
}

/** Local storage where writing a manifest fails without saying whether it happened, and so does looking. */
final class AmbiguousManifests(inner: ObjectStoreFactory) extends ObjectStoreFactory {
  override def create(): ObjectStore = {
    val store = inner.create()
    def manifest(path: String) = path.contains("/_versions/") && path.endsWith(".manifest")
    new ForwardingStore(store) {
      private var tried = false
      // Reading manifests fails too once a put was tried, so that the outcome cannot be settled.
      override def open(path: String, knownSize: Option[Long]): RangeReader =
        if (tried && manifest(path)) throw new IOException("timed out") else store.open(path, knownSize)
      override def putIfAbsent(path: String, bytes: Array[Byte]): PutResult =
        if (manifest(path)) { tried = true; throw new IOException("timed out") } else store.putIfAbsent(path, bytes)
    }
  }
}
