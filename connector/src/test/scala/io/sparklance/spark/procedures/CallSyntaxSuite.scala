package io.sparklance.spark.procedures

import org.apache.spark.sql.connector.catalog.Identifier
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.util.LanceException

/**
 * How a `CALL` statement is read ([[CallSyntax]]) and its arguments bound ([[CallBinding]]):
 * the statement Spark 3.5 lacks, read by us there. No Spark session: this runs on every line.
 */
class CallSyntaxSuite extends AnyFunSuite {

  private def call(sql: String): CallStatement = CallSyntax.parse(sql).getOrElse(fail(s"not read as a CALL: $sql"))
  private def args(sql: String): Seq[(Option[String], String)] = call(sql).args.map(a => a.name -> a.value)

  private def error(sql: String): LanceException = {
    val e = intercept[LanceException](CallSyntax.parse(sql))
    assert(e.errorClass == "LANCE_INVALID_ARGUMENT", e.getMessage)
    e
  }

  test("only a statement whose first word is CALL is ours; every other one is left to Spark") {
    for (sql <- Seq("SELECT call FROM t", "SELECT 1 AS call", "select `call`(1)", "/* CALL a.system.b() */ SELECT 1",
                    "-- CALL a.system.b()\nSELECT 1", "calling()", "INSERT INTO t SELECT 'CALL a.system.b('", "", "   \n ",
                    "SELECT 'not closed", "CREATE TABLE call (call INT)", "`call` a.system.b()", "EXPLAIN CALL a.system.b()"))
      assert(CallSyntax.parse(sql).isEmpty, sql)
  }

  test("names: plain in any case, in backticks with doubled backticks, with white space and comments between parts") {
    assert(call("CALL lance.system.compact()").name == Seq("lance", "system", "compact"))
    assert(call("\n\t cAlL\tLance . SYSTEM .compact ( )").name == Seq("Lance", "SYSTEM", "compact"))
    assert(call("CALL `my cat`.`sys``tem`.`create_tag`()").name == Seq("my cat", "sys`tem", "create_tag"))
    assert(call("/* lead */ -- and a line\nCALL /*x*/ a./*y*/system.b()").name == Seq("a", "system", "b"))
    assert(call("CALL system.compact()").name == Seq("system", "compact"))
    assert(call("CALL a.system.b();;").args.isEmpty)
  }

  test("arguments by name and by position, each value's text exactly as written") {
    assert(args("CALL lance.system.compact(table => '/t')") == Seq(Some("table") -> "'/t'"))
    assert(args("CALL a.system.create_tag('db.t', 'v1', 3)") == Seq(None -> "'db.t'", None -> "'v1'", None -> "3"))
    assert(args("CALL a.system.create_tag('db.t', tag => 'v1', VERSION=>-3)") ==
      Seq(None -> "'db.t'", Some("tag") -> "'v1'", Some("VERSION") -> "-3"))
    assert(args("CALL a.system.b(`table` => 'x', `odd``name` => 2)") == Seq(Some("table") -> "'x'", Some("odd`name") -> "2"))
    assert(args("CALL a.system.b(\n  table\n  =>\n  'x'\n  ,\n  n => 5L\n)") == Seq(Some("table") -> "'x'", Some("n") -> "5L"))
  }

  test("values of every kind a procedure takes: numbers, strings with escapes, maps, casts, typed literals") {
    val sql = "CALL a.system.b(v => -1, w => +2L, x => 1.5e-3, y => -0.25D, s => 'it\\'s, (a) ) \\\\ path', d => \"x,y\", " +
      "m => map('b1', 's3a://b/t', 'b2', '/p,(q)'), c => CAST('5' AS BIGINT), t => TIMESTAMP '2026-11-01 00:00:00', " +
      "arr => array('a', 'b'), i => INTERVAL '14' DAY, n => NULL, f => false, nested => map('k', concat('a', ')')))"
    assert(args(sql) == Seq(Some("v") -> "-1", Some("w") -> "+2L", Some("x") -> "1.5e-3", Some("y") -> "-0.25D",
      Some("s") -> "'it\\'s, (a) ) \\\\ path'", Some("d") -> "\"x,y\"", Some("m") -> "map('b1', 's3a://b/t', 'b2', '/p,(q)')",
      Some("c") -> "CAST('5' AS BIGINT)", Some("t") -> "TIMESTAMP '2026-11-01 00:00:00'", Some("arr") -> "array('a', 'b')",
      Some("i") -> "INTERVAL '14' DAY", Some("n") -> "NULL", Some("f") -> "false", Some("nested") -> "map('k', concat('a', ')'))"))
  }

  test("comments between and inside arguments are not part of a value's ends, nor split it") {
    assert(args("CALL a.system.b(/* c, ) */ table => 't' -- x, y)\n, tag => /* ) */ 'v' /* , */)") ==
      Seq(Some("table") -> "'t'", Some("tag") -> "'v'"))
    assert(args("CALL a.system.b(x => 1 /* nested /* , */ ) */ + 2)") == Seq(Some("x") -> "1 /* nested /* , */ ) */ + 2"))
  }

  test("a CALL that is not well formed is LANCE_INVALID_ARGUMENT naming the problem and its line and position") {
    def check(sql: String, where: String, what: String): Unit = {
      val m = error(sql).getMessage
      assert(m.contains(where) && m.contains(what), s"$sql: $m")
    }
    check("CALL a.system.b(table => 'x)", "line 1, pos 25", "string starting here is not closed")
    check("CALL a.system.b(t => \"x)", "line 1, pos 21", "string starting here is not closed")
    check("CALL a.`system.b(t => 1)", "line 1, pos 7", "name in backticks starting here is not closed")
    check("CALL a.system.b(t => 1 /* open", "line 1, pos 23", "comment starting here is not closed")
    check("CALL a.system.b(t => 'x'", "line 1, pos 24", "expected ',' or ')' after an argument, found the end")
    check("CALL a.system.b t => 1", "line 1, pos 16", "expected '(' after the procedure name, found 't'")
    check("CALL a.system.b() extra", "line 1, pos 18", "unexpected 'extra' after the closing ')'")
    check("CALL a.system.b(t => 'x',)", "line 1, pos 25", "expected an argument")
    check("CALL a.system.b(t => 'x', , u => 1)", "line 1, pos 26", "expected an argument")
    check("CALL a.system.b(t =>)", "line 1, pos 20", "expected a value after 't =>'")
    check("CALL (x)", "line 1, pos 5", "expected a name, found '('")
    check("CALL", "line 1, pos 4", "expected a name, found the end")
    check("CALL a.system.b(\n  table => 'x',\n  tag => 'y)", "line 3, pos 9", "string starting here is not closed")
    check("CALL a.system..b()", "line 1, pos 14", "expected a name, found '.'")
  }

  private val createTag = LanceProcedures.load(Identifier.of(Array("system"), "create_tag"), None)
  private def bind(argList: String): Seq[Option[String]] =
    CallBinding.bind(call(s"CALL lance.system.create_tag($argList)"), createTag).map(_.map(_.value))
  private def bindError(argList: String): String = {
    val e = intercept[LanceException](bind(argList))
    assert(e.errorClass == "LANCE_INVALID_ARGUMENT")
    assert(e.getMessage.contains("its parameters are (table string, tag string, version bigint = NULL, branch string = NULL, " +
      "replace boolean = false)"), e.getMessage)
    e.getMessage
  }

  test("binding: positions in parameter order, then names ignoring case; what is not given takes its default") {
    assert(createTag.parameters.map(_.name) == Seq("table", "tag", "version", "branch", "replace"))
    assert(bind("'t', 'v'") == Seq(Some("'t'"), Some("'v'"), None, None, None))
    assert(bind("'t', 'v', 3, replace => true") == Seq(Some("'t'"), Some("'v'"), Some("3"), None, Some("true")))
    assert(bind("TAG => 'v', Table => 't', branch => 'b'") == Seq(Some("'t'"), Some("'v'"), None, Some("'b'"), None))
  }

  test("binding errors name the argument, where it is, and the parameters") {
    assert(bindError("'t', tag => 'v', 3").contains("line 1, pos 46): system.create_tag: a positional argument follows a named one"))
    assert(bindError("'t', 'v', 1, 'b', true, 6").contains("pos 53): system.create_tag: 6 arguments given by position, but it takes at most 5"))
    assert(bindError("'t', 'v', colour => 'red'").contains("pos 39): system.create_tag: it has no parameter 'colour'"))
    assert(bindError("'t', 'v', table => 'u'").contains("pos 39): system.create_tag: 'table' is given twice (by position and by name)"))
    assert(bindError("table => 't', tag => 'v', Tag => 'w'").contains("pos 55): system.create_tag: 'tag' is given twice (by name twice)"))
    assert(bindError("table => 't'").contains("pos 5): system.create_tag: the required argument 'tag' is missing"))
    assert(bindError("").contains("the required argument 'table' is missing"))
  }
}
