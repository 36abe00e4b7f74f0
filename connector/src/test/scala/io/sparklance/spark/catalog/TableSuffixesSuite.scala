package io.sparklance.spark.catalog

import java.sql.Timestamp

import org.apache.spark.sql.Row
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{CatalogTables, Golden, PylanceScript}

/** `<table>.history`, `.fragments`, `.indices`, `.refs`, `.branch_<name>` and `.tag_<name>` in both catalogs. */
class TableSuffixesSuite extends AnyFunSuite with CatalogTables {


  test("history: one row per version with its operation, row counts and transaction properties") {
    spark.sql("CREATE TABLE h (id BIGINT, s STRING) USING lance OPTIONS (maxRowsPerFile '5')")
    spark.range(10).selectExpr("id", "'x' AS s").writeTo("h").option("commitProperties.job", "load").append()
    spark.sql("DELETE FROM h WHERE id IN (1, 2, 3)")
    spark.sql("DELETE FROM h WHERE id >= 5")
    val h = rows("SELECT version, operation, read_version, rows, rows_added, rows_removed, fragments, transaction_properties FROM h.history ORDER BY version")
    assert(h.map(r => (r.getLong(0), r.getString(1), r.get(2), r.getLong(3), r.getLong(4), r.getLong(5), r.getInt(6))) == Seq(
      (1L, "Overwrite", 0L, 0L, 0L, 0L, 0),
      (2L, "Append", 1L, 10L, 10L, 0L, 2),
      (3L, "Delete", 2L, 7L, 0L, 3L, 2),
      (4L, "Delete", 3L, 2L, 0L, 5L, 1)))
    assert(h(1).getMap[String, String](7).get("job").contains("load"))
    assert(rows("SELECT timestamp FROM default.h.history").forall(r => r.get(0).isInstanceOf[Timestamp]))
  }

  test("fragments: ids, files, rows and deletions of the current version") {
    spark.sql("CREATE TABLE f (id BIGINT) USING lance OPTIONS (maxRowsPerFile '4')")
    spark.range(10).coalesce(1).writeTo("f").append()
    spark.sql("DELETE FROM f WHERE id = 5")
    val fs = rows("SELECT id, size(files), physical_rows, deleted_rows, rows, bytes > 0, deletion_file IS NOT NULL FROM f.fragments ORDER BY id")
    assert(fs == Seq(Row(0L, 1, 4L, 0L, 4L, true, false), Row(1L, 1, 4L, 1L, 3L, true, true), Row(2L, 1, 2L, 0L, 2L, true, false)))
  }

  test("indices: the index segments pylance made, as pylance lists them") {
    spark.sql("CREATE TABLE ix (id BIGINT, s STRING) USING lance OPTIONS (maxRowsPerFile '4')")
    spark.range(10).coalesce(1).selectExpr("id", "cast(id AS STRING) AS s").writeTo("ix").append()
    assert(rows("SELECT * FROM ix.indices").isEmpty)
    val made = PylanceScript.run(
      """import json, sys, lance
        |ds = lance.dataset(sys.argv[1])
        |ds.create_scalar_index("s", "BTREE", name="by_s")
        |[i] = lance.dataset(sys.argv[1]).list_indices()
        |print(json.dumps({"uuid": i["uuid"], "version": i["version"], "fragments": sorted(i["fragment_ids"])}))
        |""".stripMargin, location("ix"))
    val Seq(r) = rows("SELECT name, uuid, columns, dataset_version, fragments FROM ix.indices")
    assert(r.getString(0) == "by_s" && r.getString(1) == made("uuid"))
    assert(r.getSeq[String](2) == Seq("s") && r.getLong(3) == 2L && r.getLong(3) == made("version").asInstanceOf[Number].longValue)
    assert(r.getSeq[Long](4) == made("fragments").asInstanceOf[Seq[Any]].map(_.asInstanceOf[Number].longValue) && r.getSeq[Long](4) == Seq(0L, 1L, 2L))
  }

  test("refs, branches and tags of a pylance table; the same names in a LanceCatalog") {
    val ds = Golden.dataset("branches_tags")
    spark.sql(s"CREATE TABLE bt USING lance LOCATION '${ds.uri}'")
    assert(rows("SELECT name, type, version, branch FROM bt.refs").toSet == Set(
      Row("dev_snapshot", "tag", 2L, "dev"), Row("first", "tag", 1L, null), Row("main_head", "tag", 3L, null),
      Row("dev", "branch", 1L, null), Row("dev/feature", "branch", 2L, "dev")))
    val byOption = spark.read.format("lance").option("branch", "dev").load(ds.uri)
    assert(rows("SELECT count(*) FROM bt.branch_dev") == Seq(Row(byOption.count())))
    assert(rows("SELECT count(*) FROM bt.tag_first") == Seq(Row(600L)))
    assert(rows("SELECT count(*) FROM bt VERSION AS OF 'first'") == Seq(Row(600L)))
    assert(rows("SELECT count(*) FROM bt.`branch_dev/feature`") ==
      Seq(Row(spark.read.format("lance").option("branch", "dev/feature").load(ds.uri).count())))
    // The history of a branch is the branch's.
    assert(rows("SELECT max(version) FROM bt.history") == Seq(Row(3L)))

    spark.conf.set("spark.sql.catalog.sfx", classOf[LanceCatalog].getName)
    spark.conf.set("spark.sql.catalog.sfx.warehouse", new java.io.File(ds.uri).getParent)
    assert(rows("SELECT count(*) FROM sfx.dataset.refs") == Seq(Row(5L)))
    assert(rows("SELECT count(*) FROM sfx.dataset.tag_main_head") == Seq(Row(720L)))
    assert(rows("SELECT operation FROM sfx.dataset.history ORDER BY version").map(_.getString(0)) == Seq("Overwrite", "Append", "Delete"))
  }
}
