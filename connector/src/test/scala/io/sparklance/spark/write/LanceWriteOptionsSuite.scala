package io.sparklance.spark.write

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.FileVersion
import io.sparklance.table.commit.AppTransaction
import io.sparklance.util.LanceException

class LanceWriteOptionsSuite extends AnyFunSuite {

  private def parse(kv: (String, String)*): LanceWriteOptions =
    LanceWriteOptions.parse(new CaseInsensitiveStringMap(kv.toMap.asJava))

  private def refused(kv: (String, String)*): LanceException = intercept[LanceException](parse(kv: _*))

  test("nothing given: Lance's defaults are left to the writer") {
    assert(parse() == LanceWriteOptions())
  }

  test("every option by our name") {
    val o = parse("maxRowsPerFile" -> "1000", "maxBytesPerFile" -> "1048576", "fileFormatVersion" -> "2.1",
      "enableStableRowIds" -> "true", "commitProperties.job" -> "nightly", "commitProperties.Owner" -> "ann",
      "txnAppId" -> "etl", "txnVersion" -> "7", "updateZoneMaps" -> " False")
    assert(o == LanceWriteOptions(Some(1000L), Some(1048576L), Some(FileVersion.V2_1), Some(true),
      Map("job" -> "nightly", "Owner" -> "ann"), Some(AppTransaction("etl", 7)), updateZoneMaps = false))
    assert(parse().updateZoneMaps && parse("updateZoneMaps" -> "true").updateZoneMaps)
  }

  test("pylance's and lance-spark's names are aliases") {
    val o = parse("max_rows_per_file" -> "10", "max_bytes_per_file" -> "2048", "data_storage_version" -> "stable",
      "enable_stable_row_ids" -> "FALSE")
    assert(o == LanceWriteOptions(Some(10L), Some(2048L), Some(FileVersion.V2_2), Some(false)))
    assert(parse("file_format_version" -> "2.0").fileFormatVersion.contains(FileVersion.V2_0))
    // The same value under two names is fine; two different values are not.
    assert(parse("maxRowsPerFile" -> "5", "max_rows_per_file" -> "5").maxRowsPerFile.contains(5L))
    assert(refused("maxRowsPerFile" -> "5", "max_rows_per_file" -> "6").errorClass == "LANCE_INVALID_ARGUMENT")
  }

  test("bad values name the option and the value") {
    Seq(
      Seq("maxRowsPerFile" -> "0"), Seq("maxRowsPerFile" -> "many"), Seq("maxRowsPerFile" -> "4294967296"),
      Seq("maxBytesPerFile" -> "-1"), Seq("fileFormatVersion" -> "3.0"), Seq("enableStableRowIds" -> "yes"),
      Seq("updateZoneMaps" -> "off"),
      Seq("txnAppId" -> "etl"), Seq("txnVersion" -> "3"), Seq("txnAppId" -> "etl", "txnVersion" -> "-1"),
      Seq("txnAppId" -> " ", "txnVersion" -> "1"), Seq("commitProperties." -> "x")
    ).foreach { kv =>
      val e = refused(kv: _*)
      assert(e.errorClass == "LANCE_INVALID_OPTION", kv)
      assert(kv.exists { case (k, v) => e.getMessage.contains(s"'$k' = '$v'") }, e.getMessage)
    }
  }

  test("file format 2.3 and legacy are refused by name") {
    Seq("2.3", "next", "NEXT", "legacy", "0.1").foreach { v =>
      val e = refused("data_storage_version" -> v)
      assert(e.errorClass == "LANCE_INVALID_OPTION")
      assert(e.getMessage.contains(s"'data_storage_version' = '$v'"))
    }
    assert(refused("fileFormatVersion" -> "next").getMessage.contains("unstable"))
  }

  test("read options that choose an old version are refused on a write; a branch is where a write goes") {
    assert(LanceWriteOptions.parse(new CaseInsensitiveStringMap(java.util.Map.of("branch", "b"))) == LanceWriteOptions())
    Seq("version" -> "3", "tag" -> "t", "timestamp" -> "0").foreach { kv =>
      val e = refused(kv)
      assert(e.errorClass == "LANCE_INVALID_OPTION" && e.getMessage.contains(s"'${kv._1}'"))
    }
  }

  test("a key that looks like a misspelling of an option is refused, naming the option meant; other keys pass") {
    Seq("maxRowPerFile" -> "maxRowsPerFile", "max_row_per_file" -> "max_rows_per_file", "MAX-ROWS-PER-FILE" -> "maxRowsPerFile",
      "merge-schema" -> "mergeSchema", "mergeSchemas" -> "mergeSchema", "txn_app_id" -> "txnAppId", "txnVerison" -> "txnVersion",
      "updateZoneMap" -> "updateZoneMaps", "fileFormatVersoin" -> "fileFormatVersion", "enableStableRowId" -> "enableStableRowIds",
      "batchSise" -> "batchSize", "blob" -> "blobs", "versoin" -> "version").foreach { case (key, meant) =>
      val e = refused(key -> "1")
      assert(e.errorClass == "LANCE_INVALID_OPTION" && e.getMessage.contains(s"'$key'") && e.getMessage.contains(s"did you mean '$meant'"),
        s"$key: ${e.getMessage}")
    }
    // Spark's own keys, file system and Spark settings, other sources' options and unrelated names.
    assert(parse("path" -> "/t", "paths" -> "[]", "__partition_columns" -> "[]", "fs.s3a.access.key" -> "k", "spark.foo" -> "1",
      "commitProperties.owner" -> "ann", "compression" -> "zstd", "header" -> "true", "mode" -> "append",
      "maxRecordsPerFile" -> "10", "overwriteSchema" -> "true", "checkpointLocation" -> "/c", "MAXROWSPERFILE" -> "7") ==
      LanceWriteOptions(maxRowsPerFile = Some(7L), commitProperties = Map("owner" -> "ann")))
  }
}
