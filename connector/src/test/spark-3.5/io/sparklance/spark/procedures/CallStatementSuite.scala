package io.sparklance.spark.procedures

import java.nio.file.Files

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.Row
import org.apache.spark.sql.connector.catalog.CatalogPlugin
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{CatalogTables, PylanceScript}

/**
 * `CALL` on Spark 3.5, which has none of its own: our parser extension (LanceCallParser) runs
 * the procedures with every argument form Spark 4 takes, returns the rows with the schema Spark 4
 * gives them, leaves every other statement to Spark's parser, and says what is wrong with a call
 * in our error class, with where. pylance reads what the calls made.
 */
class CallStatementSuite extends AnyFunSuite with CatalogTables {

  /** A table by path with versions 1 (ids 0-4) and 2 (ids 0-9). */
  private def twoVersions(): String = {
    val t = Files.createTempDirectory("call35").resolve("t.lance").toString
    spark.range(0, 5).write.format("lance").save(t)
    spark.range(5, 10).write.format("lance").mode("append").save(t)
    t
  }

  private def pylanceTags(uri: String): Map[String, Long] =
    PylanceScript.run("""import sys, json, lance
                        |print(json.dumps({k: v["version"] for k, v in lance.dataset(sys.argv[1]).tags.list().items()}))
                        |""".stripMargin, uri).map { case (k, v) => k -> v.asInstanceOf[BigDecimal].toLongExact }

  private def thrown(sql: String): Throwable with SparkThrowable = intercept[Throwable](spark.sql(sql).collect()) match {
    case e: SparkThrowable => e
    case e => throw new AssertionError(s"$sql: not a SparkThrowable: $e", e)
  }

  test("arguments by name and by position, in every literal form, in any case and layout; pylance reads the tags") {
    val t = twoVersions()
    val tagSchema = RefProcedures.tagOutput
    val positional = spark.sql(s"CALL lance.system.create_tag('$t', 'a', 1)")
    assert(positional.schema == tagSchema)
    assert(positional.collect().toSeq == Seq(Row("a", 1L, null)))
    assert(rows(s"call lance.System.Create_Tag(Table => '$t', `tag` => 'b\\u002Dc', version => CAST('2' AS BIGINT), replace => false)") ==
      Seq(Row("b-c", 2L, null)), "Spark's string escapes, a cast, names in any case and in backticks")
    val quotedD = "\"d\"" // (Scala 2.12 takes no \" inside an interpolated string)
    assert(rows(s"/* first */ -- a comment line\n  CALL\tlance.system.create_tag(\n  '$t',\n  tag => $quotedD -- the tag\n, version => 1L /* long */);") ==
      Seq(Row("d", 1L, null)), "comments, new lines, a double-quoted string, a long literal, a trailing semicolon")
    assert(rows(s"CALL lance.system.create_tag('$t', 'e', version => 1 + 1, branch => NULL)") == Seq(Row("e", 2L, null)),
      "a constant expression; NULL takes the default")
    assert(pylanceTags(t) == Map("a" -> 1L, "b-c" -> 2L, "d" -> 1L, "e" -> 2L))

    // A negative number reaches the procedure as one (and no version -1 exists).
    val negative = thrown(s"CALL lance.system.create_tag(table => '$t', tag => 'f', version => -1)")
    assert(negative.getErrorClass == "LANCE_VERSION_NOT_FOUND" && negative.getMessage.contains("-1"), negative.getMessage)

    // A map, a double and defaults: compact's and add_bases' types.
    val compacted = spark.sql(s"CALL lance.system.compact(table => '$t', target_rows_per_fragment => 100, materialize_deletions_threshold => 0.5D)")
    assert(compacted.schema.fieldNames.toSeq == Seq("fragments_removed", "fragments_added", "files_removed", "files_added", "rows", "version"))
    assert(compacted.collect().toSeq == Seq(Row(4, 1, 4, 1, 10L, 3L)), "two writes of two tasks each: four fragments into one")
    val base = Files.createTempDirectory("call35-base").toString
    assert(rows(s"CALL lance.system.add_bases(table => '$t', bases => map('b1', '$base'))") == Seq(Row(1, "b1", base, false, 4L)))
    val removed = spark.sql(s"CALL lance.system.cleanup(table => '$t', older_than => TIMESTAMP '2000-01-01 00:00:00', dry_run => true)")
    assert(removed.schema.fieldNames.toSeq == Seq("versions_removed", "files_removed", "bytes_removed", "dry_run", "files"))
    assert(removed.collect().toSeq.map(r => (r.getLong(0), r.getBoolean(3))) == Seq((0L, true)), "a timestamp where a string is taken")
  }

  test("the catalogs of ours serve the procedures: by name in the session catalog, the current catalog with no catalog named") {
    spark.sql("CREATE TABLE default.tagged (id BIGINT) USING lance")
    spark.sql("INSERT INTO default.tagged VALUES (1), (2)")
    assert(rows("CALL spark_catalog.system.create_tag(table => 'default.tagged', tag => 'one')") == Seq(Row("one", 2L, null)))
    assert(rows("CALL system.create_tag(table => 'default.tagged', tag => 'two', version => 1)") == Seq(Row("two", 1L, null)))
    assert(pylanceTags(location("default.tagged")) == Map("one" -> 2L, "two" -> 1L))
  }

  test("every other statement is Spark's, CALL in it or not: a column named call, strings and comments holding CALL") {
    spark.sql("CREATE TABLE default.calls (call BIGINT, `CALL x(` STRING) USING lance")
    spark.sql("INSERT INTO default.calls VALUES (7, 'CALL lance.system.compact(')")
    assert(rows("SELECT call, `CALL x(` FROM default.calls") == Seq(Row(7L, "CALL lance.system.compact(")))
    assert(rows("/* CALL lance.system.compact() */ SELECT call + 1 AS call FROM default.calls") == Seq(Row(8L)))
    assert(rows("-- CALL\nselect 'CALL' as call") == Seq(Row("CALL")))
    // Spark's own parse errors stay Spark's.
    assert(thrown("SELECT 'not closed").getErrorClass == "PARSE_SYNTAX_ERROR")
    assert(thrown("EXPLAIN CALL lance.system.compact(table => 't')").getErrorClass == "PARSE_SYNTAX_ERROR")
  }

  test("a call that cannot run is LANCE_INVALID_ARGUMENT naming the problem and where; nothing changes") {
    val t = twoVersions()
    val cases = Seq(
      s"CALL lance.system.create_tag(table => '$t', tag => 'x)" ->
        s"(line 1, pos ${s"CALL lance.system.create_tag(table => '$t', tag => ".length}): the string starting here is not closed",
      s"CALL lance.system.create_tag(table => '$t', tag => 'x'" -> "expected ',' or ')' after an argument, found the end of the statement",
      s"CALL lance.system.create_tag(table => '$t', tag => 'x') more" -> "unexpected 'more' after the closing ')'",
      s"CALL lance.system.create_tag(table => '$t')" -> "system.create_tag: the required argument 'tag' is missing",
      s"CALL lance.system.create_tag(table => '$t', tag => 'x', colour => 'red')" -> "system.create_tag: it has no parameter 'colour'",
      s"CALL lance.system.create_tag(table => '$t', tag => 'x', TAG => 'y')" -> "'tag' is given twice (by name twice)",
      s"CALL lance.system.create_tag('$t', 'x', table => '$t')" -> "'table' is given twice (by position and by name)",
      s"CALL lance.system.create_tag(table => '$t', 'x')" -> "a positional argument follows a named one",
      s"CALL lance.system.create_tag(table => '$t', tag => 'x', version => 'abc')" -> "'version' takes BIGINT; 'abc' cannot be read as one",
      s"CALL lance.system.create_tag(table => '$t', tag => 'x', version => true)" -> "'version' takes BIGINT, not BOOLEAN",
      s"CALL lance.system.create_tag(table => '$t', tag => 'x', version => 1 +)" -> "'version' is not a SQL expression",
      s"CALL lance.system.create_tag(table => '$t', tag => 'x', version => rand())" -> "'version' must be a constant",
      s"CALL lance.system.compact(table => '$t', max_rows_per_group => 4294967296)" -> "'max_rows_per_group' takes INT; 4294967296 cannot be read as one",
      s"CALL lance.system.create_tag(table => '$t', tag => NULL)" -> "'tag' may not be NULL",
      s"CALL lance.system.no_such(table => '$t')" -> "no Lance procedure system.no_such; the procedures are system.add_bases",
      s"CALL lance.compact(table => '$t')" -> "no Lance procedure compact",
      s"CALL plain.system.compact(table => '$t')" -> "catalog 'plain' (io.sparklance.spark.procedures.PlainCatalog) serves no Lance procedures")
    spark.conf.set("spark.sql.catalog.plain", classOf[PlainCatalog].getName)
    val before = pylanceTags(t)
    for ((sql, message) <- cases) {
      val e = thrown(sql)
      assert(e.getErrorClass == "LANCE_INVALID_ARGUMENT", s"$sql: ${e.getErrorClass} ${e.getMessage}")
      assert(e.getMessage.contains(message), s"$sql: ${e.getMessage}")
    }
    assert(pylanceTags(t) == before && before.isEmpty)
  }
}

/** A catalog of someone else's: it serves no Lance procedures. */
final class PlainCatalog extends CatalogPlugin {
  private var catalogName = ""
  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = catalogName = name
  override def name(): String = catalogName
}
