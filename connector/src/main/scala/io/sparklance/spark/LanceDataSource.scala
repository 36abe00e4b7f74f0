package io.sparklance.spark

import java.util

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.storage.hadoop.HadoopObjectStoreFactory
import io.sparklance.table.Snapshot

/**
 * The `lance` data source: `spark.read.format("lance").load(uri)`. The version is resolved
 * once here, on the driver, and pinned for the whole query.
 */
final class LanceDataSource extends TableProvider with DataSourceRegister {

  override def shortName(): String = "lance"

  // Spark asks one provider instance for the schema and then for the table, with the same
  // options: the snapshot is resolved once (each resolution reads the version hint and the
  // manifest, several round trips on an object store).
  private var loaded: Option[(Map[String, String], LanceTable)] = None

  override def inferSchema(options: CaseInsensitiveStringMap): StructType =
    LanceSparkException.boundary(cachedLoad(options.asCaseSensitiveMap()).schema())

  override def getTable(schema: StructType, partitioning: Array[Transform], properties: util.Map[String, String]): Table =
    LanceSparkException.boundary(cachedLoad(properties))

  private def cachedLoad(options: util.Map[String, String]): LanceTable = {
    val key = options.asScala
    loaded.collect { case (k, t) if k == key => t }.getOrElse {
      val t = load(new CaseInsensitiveStringMap(options))
      loaded = Some(key -> t)
      t
    }
  }

  private def load(options: CaseInsensitiveStringMap): LanceTable = {
    val opts = LanceOptions.parse(options)
    val spark = SparkSession.active
    val stores = new HadoopObjectStoreFactory(spark.sessionState.newHadoopConfWithOptions(options.asCaseSensitiveMap().asScala))
    val snapshot = Snapshot.resolve(stores.create(), opts.path, opts.branch, opts.version, opts.allowedBasePaths)
    new LanceTable(snapshot, opts, stores)
  }

  private implicit class AsScala(m: util.Map[String, String]) {
    def asScala: Map[String, String] = scala.jdk.CollectionConverters.MapHasAsScala(m).asScala.toMap
  }
}
