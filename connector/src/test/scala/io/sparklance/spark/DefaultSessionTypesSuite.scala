package io.sparklance.spark

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.{FieldVector, TimeMicroVector, TimeMilliVector, TimeNanoVector, TimeSecVector}
import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.functions.{col, count, max}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.spark.compat.SparkTime
import io.sparklance.testutil.{ArrowIpc, Golden, LocalSpark}

/**
 * Every type of the golden types datasets works in a session with no extra configuration:
 * counted, filtered, aggregated and collected. Time columns, whose Spark TimeType a default
 * Spark 4.2 session refuses, read as LongType microseconds since midnight there, and as
 * TimeType where the session enables it.
 */
class DefaultSessionTypesSuite extends AnyFunSuite with LocalSpark {

  private val datasets = Seq("types_v2_0", "types_v2_1", "types_v2_2", "types_legacy", "one_row")
  private val TimeTypeConf = "spark.sql.timeType.enabled"

  /** Per column of pylance's rows: the non-null count, and each time column in microseconds. */
  private def expected(name: String): (Long, Map[String, Long], Map[String, IndexedSeq[Option[Long]]]) = {
    val allocator = new RootAllocator(Long.MaxValue)
    try {
      val reader = ArrowIpc.reader(java.nio.file.Files.newByteChannel(Golden.dataset(name).expectedFile(1).toPath), allocator)
      try {
        val nonNull = scala.collection.mutable.Map.empty[String, Long].withDefaultValue(0L)
        val times = scala.collection.mutable.Map.empty[String, IndexedSeq[Option[Long]]].withDefaultValue(IndexedSeq.empty)
        var rows = 0L
        reader.getRecordBlocks.asScala.foreach { block =>
          reader.loadRecordBatch(block)
          val root = reader.getVectorSchemaRoot
          rows += root.getRowCount
          root.getFieldVectors.asScala.foreach { v =>
            nonNull(v.getName) += v.getValueCount - v.getNullCount
            micros(v).foreach(m => times(v.getName) ++= (0 until v.getValueCount).map(i => if (v.isNull(i)) None else Some(m(i))))
          }
        }
        (rows, nonNull.toMap, times.toMap)
      } finally reader.close()
    } finally allocator.close()
  }

  private def micros(v: FieldVector): Option[Int => Long] = v match {
    case t: TimeSecVector => Some(i => t.get(i) * 1000000L)
    case t: TimeMilliVector => Some(i => t.get(i) * 1000L)
    case t: TimeMicroVector => Some(i => t.get(i))
    case t: TimeNanoVector => Some(i => Math.floorDiv(t.get(i), 1000L))
    case _ => None
  }

  private def hasTimeType(t: DataType): Boolean = t match {
    case SparkTime() => true
    case s: StructType => s.fields.exists(f => hasTimeType(f.dataType))
    case a: ArrayType => hasTimeType(a.elementType)
    case m: MapType => hasTimeType(m.keyType) || hasTimeType(m.valueType)
    case _ => false
  }

  private def orderable(t: DataType): Boolean = t match {
    case _: StructType | _: ArrayType | _: MapType | NullType => false
    case _ => true
  }

  /** Count, a filter on every column, one aggregate over every column, and a collect. */
  private def exercise(df: DataFrame, rows: Long, nonNull: Map[String, Long]): Unit = {
    assert(df.count() == rows)
    val everyColumn = df.columns.map(c => col(c).isNull || col(c).isNotNull).reduce(_ && _)
    assert(df.where(everyColumn).count() == rows)
    val aggs: Seq[Column] = df.schema.fields.toSeq.flatMap { f =>
      count(col(f.name)).as(s"n_${f.name}") +: (if (orderable(f.dataType)) Seq(max(col(f.name)).as(s"max_${f.name}")) else Nil)
    }
    val agg = df.agg(aggs.head, aggs.tail: _*).head()
    df.columns.foreach(c => assert(agg.getAs[Long](s"n_$c") == nonNull(c), s"count($c)"))
    assert(df.collect().length == rows)
  }

  datasets.foreach { name =>
    test(s"$name: every type counts, filters, aggregates and collects in a default session") {
      assert(!SparkTime.supported || !spark.conf.get(TimeTypeConf).toBoolean)
      val (rows, nonNull, times) = expected(name)
      val df = spark.read.format("lance").load(Golden.dataset(name).uri)
      assert(!df.schema.fields.exists(f => hasTimeType(f.dataType)))
      exercise(df, rows, nonNull)
      assert(times.size == 4)
      times.foreach { case (c, want) =>
        val field = df.schema(c)
        assert(field.dataType == LongType, c)
        assert(field.metadata.getString(SparkArrow.LogicalTypeKey) == c.stripSuffix("_col").replace('_', ':'), c)
        val got = df.select(c).collect().map(r => if (r.isNullAt(0)) None else Some(r.getLong(0))).toIndexedSeq
        assert(got == want, c)
        val positive = want.count(_.exists(_ > 0))
        assert(df.where(col(c) > 0).count() == positive, s"$c > 0")
      }
    }
  }

  test("time columns read as TimeType where the session enables it") {
    assume(SparkTime.supported, "this Spark line has no TIME type")
    spark.conf.set(TimeTypeConf, "true")
    try {
      Seq("types_v2_2", "types_legacy").foreach { name =>
        val (rows, nonNull, times) = expected(name)
        val df = spark.read.format("lance").load(Golden.dataset(name).uri)
        exercise(df, rows, nonNull)
        times.foreach { case (c, want) =>
          assert(df.schema(c).dataType == SparkTime.micros, c)
          // TIME(6) is written back as time64:us, so only the other units need recording.
          val recorded = df.schema(c).metadata
          if (c == "time64_us_col") assert(!recorded.contains(SparkArrow.LogicalTypeKey), c)
          else assert(recorded.getString(SparkArrow.LogicalTypeKey) == c.stripSuffix("_col").replace('_', ':'), c)
          // Spark's TimeType holds nanoseconds since midnight.
          val got = df.select(c).queryExecution.toRdd.map(r => if (r.isNullAt(0)) None else Some(r.getLong(0))).collect().toIndexedSeq
          assert(got.map(_.map(Math.floorDiv(_, 1000L))) == want, c)
        }
      }
    } finally spark.conf.unset(TimeTypeConf)
  }
}
