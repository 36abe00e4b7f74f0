package io.sparklance.spark

import org.apache.spark.sql.sources
import org.apache.spark.sql.types._

import io.sparklance.table.expr.Expr

// Translates Spark's pushed filters into the table layer's expressions, on top-level
// columns only, with literals in the expression language's forms (integers and dates as
// Long, timestamps as microseconds since the epoch). A filter that does not translate is
// simply not used for pruning; Spark evaluates every filter on the rows either way.

object SparkFilters {

  def toExpr(f: sources.Filter, schema: StructType): Option[Expr] = {
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
        (toExpr(l, schema), toExpr(r, schema)) match {
          case (Some(x), Some(y)) => Some(Expr.And(x, y))
          case (x, y) => x.orElse(y) // one side alone still bounds the rows of an AND
        }
      case sources.Or(l, r) => for (x <- toExpr(l, schema); y <- toExpr(r, schema)) yield Expr.Or(x, y)
      case sources.Not(c) => toExpr(c, schema).map(Expr.Not)
      case _ => None
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
