package io.sparklance.spark.procedures

import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.spark.catalog.LanceCatalog
import io.sparklance.testutil.LocalSpark

/** Which catalogs serve the `system.*` procedures, and what a call of an unknown one says. */
class ProcedureCatalogSuite extends AnyFunSuite with LocalSpark {

  private def failure(sql: String): Throwable = intercept[Throwable](spark.sql(sql).collect())

  test("an unknown procedure is named with the ones that exist, in every catalog that serves them") {
    spark.conf.set("spark.sql.catalog.wh", classOf[LanceCatalog].getName)
    spark.conf.set("spark.sql.catalog.wh.warehouse", java.nio.file.Files.createTempDirectory("wh").toString)
    for (cat <- Seq("lance", "spark_catalog", "wh")) {
      val e = failure(s"CALL $cat.system.no_such_thing(table => 't')")
      assert(e.getMessage.contains("no Lance procedure system.no_such_thing"), s"$cat: ${e.getMessage}")
      assert(e.getMessage.contains(LanceProcedures.names.map(n => s"system.$n").mkString(", ")))
    }
    // Only the namespace `system` holds procedures.
    assert(failure("CALL lance.other.compact(table => 't')").getMessage.contains("no Lance procedure other.compact"))
  }
}
