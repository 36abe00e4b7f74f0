package io.sparklance.spark

import org.apache.spark.sql.connector.expressions.{Literal, NamedReference}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.sources
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import io.sparklance.table.expr.Expr
import io.sparklance.util.ScalaCompat._

// Translates Spark's pushed filters into the table layer's expressions, on top-level
// columns only, with literals in the expression language's forms (integers and dates as
// Long, timestamps as microseconds since the epoch). A filter that does not translate is
// simply not used for pruning; Spark evaluates every filter on the rows either way. Under a
// NOT, and where rows are deleted on the strength of statistics, the translation must be
// exact: an AND that drops a part it cannot translate matches more rows, and NOT of it fewer.

object SparkFilters {

  /** `f` or a weaker condition (an AND may lose a part): for pruning, which only narrows what may match. */
  def toExpr(f: sources.Filter, schema: StructType): Option[Expr] = translate(f, schema, exact = false)

  /** Exactly `f`, every part translated, or None. */
  def exactExpr(f: sources.Filter, schema: StructType): Option[Expr] = translate(f, schema, exact = true)

  private def translate(f: sources.Filter, schema: StructType, exact: Boolean): Option[Expr] = {
    def col(name: String): Option[DataType] =
      if (name.contains('.') || name.contains('`')) None else schema.fields.find(_.name == name).map(_.dataType)
    def lit(name: String, v: Any): Option[Any] = col(name).flatMap(t => literal(t, v))
    f match {
      case sources.EqualTo(a, v) => lit(a, v).map(Expr.Compare(a, Expr.Eq, _))
      case sources.LessThan(a, v) => lit(a, v).map(Expr.Compare(a, Expr.Lt, _))
      case sources.LessThanOrEqual(a, v) => lit(a, v).map(Expr.Compare(a, Expr.LtEq, _))
      case sources.GreaterThan(a, v) => lit(a, v).map(Expr.Compare(a, Expr.Gt, _))
      case sources.GreaterThanOrEqual(a, v) => lit(a, v).map(Expr.Compare(a, Expr.GtEq, _))
      case sources.In(a, vs) =>
        val ls = vs.toSeq.map(v => lit(a, v))
        if (ls.forall(_.isDefined) && ls.nonEmpty) Some(Expr.In(a, ls.flatten)) else None
      case sources.IsNull(a) if col(a).isDefined => Some(Expr.IsNull(a))
      case sources.IsNotNull(a) if col(a).isDefined => Some(Expr.IsNotNull(a))
      case sources.StringStartsWith(a, p) if col(a).contains(StringType) => Some(Expr.StartsWith(a, p))
      case sources.And(l, r) =>
        (translate(l, schema, exact), translate(r, schema, exact)) match {
          case (Some(x), Some(y)) => Some(Expr.And(x, y))
          case (x, y) if !exact => x.orElse(y) // one side alone still bounds the rows of an AND
          case _ => None
        }
      case sources.Or(l, r) => for (x <- translate(l, schema, exact); y <- translate(r, schema, exact)) yield Expr.Or(x, y)
      case sources.Not(c) => translate(c, schema, exact = true).map(Expr.Not)
      case _ => None
    }
  }

  /**
   * A filter Spark hands a scan at run time (dynamic pruning: the keys of a join's other side),
   * if it is `c IN (...)` or `c = v` on a top-level column: the column and its non-NULL values
   * (NULL equals no row), in Catalyst's internal forms.
   */
  def runtimeIn(p: Predicate): Option[(String, Seq[Any])] = (p.name(), p.children().toSeq) match {
    case ("IN" | "=", (r: NamedReference) +: values) if r.fieldNames().length == 1 && values.forall(_.isInstanceOf[Literal[_]]) =>
      Some(r.fieldNames()(0) -> values.map(_.asInstanceOf[Literal[_]].value()).filter(_ != null))
    case _ => None
  }

  /**
   * A runtime [[runtimeIn]] filter on a column of `schema` as an expression statistics prune by;
   * None for another predicate or a value of a form not known here (no pruning).
   */
  def fromRuntime(p: Predicate, schema: StructType): Option[Expr] = runtimeIn(p).flatMap { case (name, values) =>
    schema.fields.find(_.name == name).flatMap { f =>
      val ls = values.map(internalLiteral(f.dataType, _))
      if (ls.forall(_.isDefined)) Some(Expr.In(name, ls.flatten)) else None
    }
  }

  // Runtime values of these types become the expression language's Long, Double or String.
  private val RuntimeLongs: Set[DataType] = Set(ByteType, ShortType, IntegerType, LongType, DateType, TimestampType, TimestampNTZType)
  private val RuntimeDoubles: Set[DataType] = Set(FloatType, DoubleType)

  /** Whether runtime values of Spark type `t` translate ([[fromRuntime]]), so that statistics can prune by them. */
  def takesRuntimeValues(t: DataType): Boolean = RuntimeLongs(t) || RuntimeDoubles(t) || t == StringType

  private def internalLiteral(t: DataType, v: Any): Option[Any] = v match {
    case n: java.lang.Number if RuntimeLongs(t) => Some(n.longValue)
    case n: java.lang.Number if RuntimeDoubles(t) => Some(n.doubleValue)
    case s: UTF8String if t == StringType => Some(s.toString)
    case _ => None
  }

  /** `f` as SQL, for what a transaction records (Lance's Delete keeps its predicate as text). */
  def sql(f: sources.Filter): String = {
    def v(x: Any): String = x match {
      case null => "NULL"
      case s: String => "'" + s.replace("'", "''") + "'"
      case d: java.sql.Date => s"DATE '$d'"
      case d: java.time.LocalDate => s"DATE '$d'"
      case t: java.sql.Timestamp => s"TIMESTAMP '${t.toInstant}'"
      case t: java.time.Instant => s"TIMESTAMP '$t'"
      case other => other.toString
    }
    def c(name: String): String = if (name.matches("[A-Za-z_][A-Za-z0-9_.]*")) name else "`" + name.replace("`", "``") + "`"
    f match {
      case sources.EqualTo(a, x) => s"${c(a)} = ${v(x)}"
      case sources.EqualNullSafe(a, x) => s"${c(a)} <=> ${v(x)}"
      case sources.LessThan(a, x) => s"${c(a)} < ${v(x)}"
      case sources.LessThanOrEqual(a, x) => s"${c(a)} <= ${v(x)}"
      case sources.GreaterThan(a, x) => s"${c(a)} > ${v(x)}"
      case sources.GreaterThanOrEqual(a, x) => s"${c(a)} >= ${v(x)}"
      case sources.In(a, xs) => s"${c(a)} IN (${xs.map(v).mkString(", ")})"
      case sources.IsNull(a) => s"${c(a)} IS NULL"
      case sources.IsNotNull(a) => s"${c(a)} IS NOT NULL"
      case sources.StringStartsWith(a, p) => s"${c(a)} LIKE '${p.replace("'", "''")}%'"
      case sources.StringEndsWith(a, p) => s"${c(a)} LIKE '%${p.replace("'", "''")}'"
      case sources.StringContains(a, p) => s"${c(a)} LIKE '%${p.replace("'", "''")}%'"
      case sources.And(l, r) => s"(${sql(l)}) AND (${sql(r)})"
      case sources.Or(l, r) => s"(${sql(l)}) OR (${sql(r)})"
      case sources.Not(x) => s"NOT (${sql(x)})"
      case sources.AlwaysTrue() => "TRUE"
      case sources.AlwaysFalse() => "FALSE"
      case other => other.toString
    }
  }

  private def literal(t: DataType, v: Any): Option[Any] = (t, v) match {
    case (_, null) => None
    case (ByteType | ShortType | IntegerType | LongType, n: java.lang.Number) => Some(n.longValue)
    case (FloatType | DoubleType, n: java.lang.Number) => Some(n.doubleValue)
    case (StringType, s: String) => Some(s)
    case (BooleanType, b: java.lang.Boolean) => Some(b.booleanValue)
    case (DateType, d: java.sql.Date) => Some(d.toLocalDate.toEpochDay)
    case (DateType, d: java.time.LocalDate) => Some(d.toEpochDay)
    case (TimestampType, ts: java.sql.Timestamp) => Some(micros(ts.toInstant))
    case (TimestampType, i: java.time.Instant) => Some(micros(i))
    case (TimestampNTZType, l: java.time.LocalDateTime) => Some(micros(l.toInstant(java.time.ZoneOffset.UTC)))
    case _ => None
  }

  private def micros(i: java.time.Instant): Long = Math.addExact(Math.multiplyExact(i.getEpochSecond, 1000000L), i.getNano / 1000L)
}
