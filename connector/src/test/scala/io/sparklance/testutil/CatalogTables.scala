package io.sparklance.testutil

import java.io.File

import org.apache.spark.sql.Row
import org.scalatest.{BeforeAndAfterEach, Suite}

import io.sparklance.storage.ObjectStore
import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.table.Snapshot
import io.sparklance.util.LanceException

/**
 * For suites of Lance tables named in the session catalog: every table of `default` is dropped
 * after each test; helpers find a table's location and latest version, run SQL, and dig the
 * LanceException out of what Spark throws.
 */
trait CatalogTables extends LocalSpark with BeforeAndAfterEach { self: Suite =>

  override protected def afterEach(): Unit = {
    spark.sessionState.catalog.listTables("default").foreach(t => spark.sql(s"DROP TABLE IF EXISTS ${t.quotedString}"))
    super.afterEach()
  }

  protected def store: ObjectStore = new HadoopObjectStoreFactory(spark.sessionState.newHadoopConf()).create()

  /** The folder of catalog table `table`, as a local path. */
  protected def location(table: String): String =
    new File(spark.sessionState.catalog.getTableMetadata(spark.sessionState.sqlParser.parseTableIdentifier(table)).location).getPath

  protected def snapshot(table: String): Snapshot = Snapshot.open(store, location(table), None)

  protected def versions(path: String): Seq[Long] = Snapshot.listVersions(store, path).map(_._1)

  protected def rows(sql: String): Seq[Row] = spark.sql(sql).collect().toSeq

  protected def lanceError(f: => Any): LanceException = {
    val t = org.scalatest.Assertions.intercept[Throwable](f)
    Iterator.iterate(t)(_.getCause).takeWhile(_ != null).collectFirst { case e: LanceException => e }
      .getOrElse(throw new AssertionError(s"expected a LanceException, got $t", t))
  }
}
