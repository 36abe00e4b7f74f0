package io.sparklance.spark

import org.apache.spark.sql.sources._
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.table.expr.Expr

/** Pushed filters into the table layer's expressions: weaker where pruning allows it, exact where it must be. */
class SparkFiltersSuite extends AnyFunSuite {
  private val schema = StructType(Seq(StructField("id", LongType), StructField("name", StringType)))
  private val idAbove5 = Expr.Compare("id", Expr.Gt, 5L)

  test("an AND keeps its translatable side for pruning, and only there") {
    val f = And(GreaterThan("id", 5L), StringContains("name", "x"))
    assert(SparkFilters.toExpr(f, schema).contains(idAbove5))
    assert(SparkFilters.exactExpr(f, schema).isEmpty)
  }

  test("NOT of an AND that loses a part is not translated: it would match fewer rows than the filter") {
    val f = Not(And(GreaterThan("id", 5L), StringContains("name", "x")))
    assert(SparkFilters.toExpr(f, schema).isEmpty)
    assert(SparkFilters.toExpr(Not(GreaterThan("id", 5L)), schema).contains(Expr.Not(idAbove5)))
  }

  test("filters as SQL, as a Delete transaction records them") {
    assert(SparkFilters.sql(And(In("id", Array(1L, 2L)), Not(EqualTo("name", "o'k")))) == "(id IN (1, 2)) AND (NOT (name = 'o''k'))")
    assert(SparkFilters.sql(IsNull("odd col")) == "`odd col` IS NULL")
  }
}
