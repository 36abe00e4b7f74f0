package io.sparklance.spark

import java.io.File
import java.nio.file.{Files, Path, StandardCopyOption}

import scala.util.Random

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.types.{DoubleType, FloatType, LongType, StructField, StructType}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.testutil.{LocalSpark, PylanceScript}

/**
 * Pruning never drops a row Spark's filter keeps, for float and double columns holding the
 * values where the engine's order is not IEEE's: -0.0 equals 0.0, NaN equals NaN and is above
 * every number, and ±Infinity. Tables come from pylance with ZONEMAP, BTREE and BITMAP indices
 * on each float column, and from Spark appending to them (our zone-map bounds); every answer is
 * compared with Spark's own over the same rows as an in-memory DataFrame: queries, DELETE (the
 * row-level one and the one statistics decide), a DELETE by a subquery's keys (the runtime IN
 * of a join) and MIN/MAX answered from the zone map.
 */
class FloatPruningSuite extends AnyFunSuite with LocalSpark {

  private val Schema = StructType(Seq(StructField("id", LongType, nullable = false), StructField("f", FloatType),
    StructField("d", DoubleType), StructField("g", DoubleType)))

  // Writes columns f (float32), d and g (float64) given as text ("nan", "-0.0", "inf", null),
  // `perFile` rows per fragment, then the indices of sys.argv[4] with zones of 8 rows.
  private val Write =
    """import sys, json, lance, pyarrow as pa
      |from lance.indices import IndexConfig
      |cols = json.loads(open(sys.argv[2]).read())
      |num = lambda xs: [None if x is None else float(x) for x in xs]
      |t = pa.table({"id": pa.array(list(range(len(cols["d"]))), pa.int64()), "f": pa.array(num(cols["f"]), pa.float32()),
      |  "d": pa.array(num(cols["d"]), pa.float64()), "g": pa.array(num(cols["g"]), pa.float64())})
      |ds = lance.write_dataset(t, sys.argv[1], max_rows_per_file=int(sys.argv[3]))
      |for spec in sys.argv[4].split(","):
      |    c, kind = spec.split(":")
      |    params = {"rows_per_zone": 8} if kind == "zonemap" else {}
      |    ds.create_scalar_index(c, IndexConfig(index_type=kind, parameters=params), name=f"{c}_{kind}")
      |print("{}")
      |""".stripMargin

  private val AllIndices = "f:zonemap,f:btree,f:bitmap,d:zonemap,d:btree,d:bitmap,g:zonemap"

  private def text(v: Any): String = v match {
    case null => "null"
    case x: Float => if (x.isNaN) "\"nan\"" else if (x.isInfinite) (if (x > 0) "\"inf\"" else "\"-inf\"") else "\"" + x.toString + "\""
    case x: Double => if (x.isNaN) "\"nan\"" else if (x.isInfinite) (if (x > 0) "\"inf\"" else "\"-inf\"") else "\"" + x.toString + "\""
  }

  /** Writes `rows` with pylance (and `indices`) to a new table; its path. */
  private def pylanceTable(rows: Seq[Row], perFile: Int, indices: String = AllIndices): String = {
    val dir = Files.createTempDirectory("float-pruning")
    val path = dir.resolve("t.lance").toString
    val json = dir.resolve("cols.json")
    def col(i: Int) = rows.map(r => text(r.get(i))).mkString("[", ",", "]")
    Files.writeString(json, s"""{"f": ${col(1)}, "d": ${col(2)}, "g": ${col(3)}}""")
    PylanceScript.run(Write, path, json.toString, perFile.toString, indices)
    path
  }

  // Not cached: Spark's in-memory cache prunes its batches by min/max statistics that leave NaN
  // out of the upper bound, so a cached reference loses NaN rows for `d <=> NaN` and `d >= NaN`.
  private def reference(rows: Seq[Row]): DataFrame = spark.createDataFrame(spark.sparkContext.parallelize(rows, 3), Schema)

  private def ids(df: DataFrame): Seq[Long] = df.select("id").collect().map(_.getLong(0)).toSeq.sorted

  // The values where orders differ, in runs so that whole zones and fragments hold only one of them.
  private val Doubles: IndexedSeq[Any] = IndexedSeq(-0.0, 0.0, Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity,
    null, 1.0, -1.5, 0.25, 3.0, 1024.0, -1e300)

  private def randomRows(rnd: Random, n: Int): Seq[Row] = {
    def runs(pool: IndexedSeq[Any]): Iterator[Any] =
      Iterator.continually { val v = pool(rnd.nextInt(pool.length)); Iterator.fill(1 + rnd.nextInt(10))(v) }.flatten
    val d = runs(Doubles)
    val f = runs(Doubles.map { case x: Double => if (x == -1e300) -65536.0f else x.toFloat; case other => other })
    val g = runs(Doubles.filter { case x: Double => !x.isNaN; case _ => true })
    (0 until n).map(i => Row(i.toLong, f.next(), d.next(), g.next()))
  }

  private val Literals = Seq("0.0", "-0.0", "NaN", "Infinity", "-Infinity", "1.0", "-1.5", "0.25", "2.0", "1024.0")

  /** A random condition on f, d and g with literals of the engine's special values. */
  private def randomCondition(rnd: Random): String = {
    def pick[T](xs: Seq[T]): T = xs(rnd.nextInt(xs.length))
    def atom(): String = {
      val c = pick(Seq("f", "d", "g"))
      val t = if (c == "f") "FLOAT" else "DOUBLE"
      def lit() = s"CAST('${pick(Literals)}' AS $t)"
      pick(Seq("=", "<=>", "<", "<=", ">", ">=", "!=", "IN", "NOT IN", "IS NULL", "IS NOT NULL", "NOT")) match {
        case op @ ("IN" | "NOT IN") => s"$c $op (${Seq.fill(1 + rnd.nextInt(12))(lit()).mkString(", ")})"
        case op @ ("IS NULL" | "IS NOT NULL") => s"$c $op"
        case "NOT" => s"NOT ($c ${pick(Seq("=", "<", "<=", ">", ">="))} ${lit()})"
        case op => s"$c $op ${lit()}"
      }
    }
    rnd.nextInt(4) match {
      case 0 => s"${atom()} AND ${atom()}"
      case 1 => s"${atom()} OR ${atom()}"
      case _ => atom()
    }
  }

  /** A copy of the table at `path`, for a statement that changes it. */
  private def copy(path: String): String = {
    val to = Files.createTempDirectory("float-pruning-copy").resolve("t.lance")
    val from = new File(path).toPath
    Files.walk(from).forEach { (p: Path) => Files.copy(p, to.resolve(from.relativize(p).toString), StandardCopyOption.COPY_ATTRIBUTES) }
    to.toString
  }

  /** Runs `f` with `path` registered as the catalog table `t`. */
  private def asTable[T](path: String)(f: => T): T = {
    spark.sql(s"CREATE TABLE t USING lance LOCATION '$path'")
    try f finally spark.sql("DROP TABLE t")
  }

  test("-0.0 and 0.0 are one value for zone maps: x = 0, x >= 0 and DELETE WHERE x = 0 keep the -0.0 rows") {
    // Fragment 0 holds only -0.0, whose zone bounds (IEEE total order) are [-0.0, -0.0].
    val rows = Seq(Row(0L, -0.0f, -0.0, -0.0), Row(1L, -0.0f, -0.0, -0.0), Row(2L, 0.0f, 0.0, 0.0), Row(3L, 5.0f, 5.0, 5.0))
    val path = pylanceTable(rows, perFile = 2, indices = "f:zonemap,d:zonemap,g:zonemap")
    val df = spark.read.format("lance").load(path)
    for (c <- Seq("f", "d"); cond <- Seq(s"$c = 0", s"$c >= 0", s"$c <= 0", s"$c IN (0, 7)", s"$c > -1 AND $c < 1")) {
      assert(ids(df.where(cond)) == ids(reference(rows).where(cond)), cond)
    }
    assert(ids(df.where("d = 0")) == Seq(0L, 1L, 2L))
    val copied = copy(path)
    asTable(copied) {
      spark.sql("DELETE FROM t WHERE d = 0")
      assert(ids(spark.table("t")) == Seq(3L))
    }
  }

  test("random conditions on ±0.0, NaN, ±Infinity and nulls: pruned answers equal Spark's over the same rows") {
    val seed = 2801L
    val rnd = new Random(seed)
    val rows = randomRows(rnd, 320)
    val path = pylanceTable(rows, perFile = 40)
    val ref = reference(rows)
    val lance = spark.read.format("lance").load(path)
    (1 to 250).foreach { _ =>
      val cond = randomCondition(rnd)
      assert(ids(lance.where(cond)) == ids(ref.where(cond)), s"seed $seed: WHERE $cond")
    }
    // MIN and MAX: g (no NaN) from the zone map; Spark takes -0.0 and 0.0 as equal, either may come back.
    def extremes(df: DataFrame): Seq[Any] = df.selectExpr("min(f)", "max(f)", "min(d)", "max(d)", "min(g)", "max(g)").collect().head.toSeq
    val answered = lance.selectExpr("min(g)", "max(g)").queryExecution.executedPlan.toString
    assert(answered.contains("LocalTableScan") && !answered.contains("BatchScan"), s"min(g), max(g) from the zone map: $answered")
    extremes(lance).zip(extremes(ref)).foreach {
      case (a: Float, b: Float) => assert(a == b || a.isNaN && b.isNaN, s"seed $seed: $a vs $b")
      case (a: Double, b: Double) => assert(a == b || a.isNaN && b.isNaN, s"seed $seed: $a vs $b")
      case (a, b) => assert(a == b, s"seed $seed")
    }
  }

  test("random DELETEs, by condition and by a subquery's keys, remove exactly the rows Spark's condition selects") {
    val seed = 2802L
    val rnd = new Random(seed)
    val rows = randomRows(rnd, 160)
    val path = pylanceTable(rows, perFile = 16)
    val ref = reference(rows)
    ref.createOrReplaceTempView("ref")
    (1 to 12).foreach { _ =>
      val cond = randomCondition(rnd)
      asTable(copy(path)) {
        spark.sql(s"DELETE FROM t WHERE $cond")
        assert(ids(spark.table("t")) == ids(ref.where(s"NOT coalesce($cond, false)")), s"seed $seed: DELETE WHERE $cond")
      }
    }
    // The keys of a subquery reach the scan as a runtime IN (SourceKeyPruning): a join's keys,
    // where -0.0 matches 0.0 and NaN matches NaN.
    (1 to 4).foreach { _ =>
      val keys = Seq.fill(1 + rnd.nextInt(4))(Doubles(rnd.nextInt(Doubles.length)))
      spark.createDataFrame(spark.sparkContext.parallelize(keys.map(Row(_)), 1), StructType(Seq(StructField("k", DoubleType))))
        .createOrReplaceTempView("keys")
      asTable(copy(path)) {
        spark.sql("DELETE FROM t WHERE d IN (SELECT k FROM keys)")
        assert(ids(spark.table("t")) == ids(spark.sql("SELECT * FROM ref LEFT ANTI JOIN keys ON d = k")), s"seed $seed: keys $keys")
      }
    }
  }

  // The zones of each ZONEMAP index of the table at sys.argv[1], and of the same indices pylance
  // builds again over every fragment of a copy (sys.argv[2]): min and max as their bits, so that
  // -0.0 and NaN compare exactly.
  private val Zones =
    """import sys, json, struct, warnings, lance
      |from lance.file import LanceFileReader
      |from lance.indices import IndexConfig
      |warnings.simplefilter("ignore")
      |def bits(v, t):
      |    return None if v is None else struct.pack("<f" if t == "float" else "<d", v).hex()
      |def zones(path):
      |    ds, out = lance.dataset(path), {}
      |    for i in ds.list_indices():
      |        if i["type"] != "ZoneMap": continue
      |        t = LanceFileReader(f"{path}/_indices/{i['uuid']}/zonemap.lance").read_all().to_table()
      |        ty = str(t.schema.field("min").type)
      |        rows = [[r["fragment_id"], r["zone_start"], r["zone_length"], bits(r["min"], ty), bits(r["max"], ty), r["null_count"], r["nan_count"]]
      |                for r in t.to_pylist()]
      |        out.setdefault(i["name"], []).extend(rows)
      |    return {k: sorted(v) for k, v in out.items()}
      |ours = zones(sys.argv[1])
      |ds = lance.dataset(sys.argv[2])
      |for name in ours:
      |    c = name.split("_")[0]
      |    ds.create_scalar_index(c, IndexConfig(index_type="zonemap", parameters={"rows_per_zone": 8}), name=name, replace=True)
      |print(json.dumps({"ours": ours, "pylance": zones(sys.argv[2])}))
      |""".stripMargin

  test("zone maps our appends extend record pylance's bounds for ±0.0, NaN and ±Infinity, and prune as Spark compares") {
    val rnd = new Random(2803L)
    val rows = randomRows(rnd, 200)
    val (first, appended) = rows.splitAt(80)
    val path = pylanceTable(first, perFile = 40, indices = "f:zonemap,d:zonemap,g:zonemap")
    reference(appended).coalesce(1).write.format("lance").mode("append").option("maxRowsPerFile", "30").save(path)
    val zones = PylanceScript.run(Zones, path, copy(path))
    assert(zones("ours").asInstanceOf[Map[String, Any]].keySet == Set("f_zonemap", "d_zonemap", "g_zonemap"))
    assert(zones("ours") == zones("pylance"), "the zones of our appended fragments are those pylance computes")
    val ref = reference(rows)
    val lance = spark.read.format("lance").load(path)
    (1 to 120).foreach { _ =>
      val cond = randomCondition(rnd)
      assert(ids(lance.where(cond)) == ids(ref.where(cond)), s"WHERE $cond")
    }
  }
}
