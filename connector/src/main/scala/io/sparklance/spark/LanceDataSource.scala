package io.sparklance.spark

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SaveMode, SQLContext}
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.{BaseRelation, CreatableRelationProvider, DataSourceRegister}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.sparklance.spark.compat.EveryTypeWritable
import io.sparklance.spark.write.LanceSave

/**
 * The `lance` data source: `spark.read.format("lance").load(uri)`. The version is resolved
 * once here, on the driver, and pinned for the whole query.
 *
 * `df.write.format("lance").mode(m).save(uri)` reaches [[createRelation]] in every save mode
 * (see [[LanceTable]] for why), which runs the one DataSource V2 write ([[LanceSave]]).
 */
final class LanceDataSource extends TableProvider with EveryTypeWritable with DataSourceRegister {

  override def shortName(): String = "lance"

  // Spark asks one provider instance for the schema and then for the table, with the same
  // options: the snapshot is resolved once (each resolution reads the version hint and the
  // manifest, several round trips on an object store).
  private var loaded: Option[(Map[String, String], LanceTable)] = None

  // DataFrameWriter asks for the schema before it hands a save to createRelation, also where
  // the write is to create the table: a path without one infers no columns here. Reading such a
  // path still fails with LANCE_DATASET_NOT_FOUND, when Spark asks the table for its schema.
  override def inferSchema(options: CaseInsensitiveStringMap): StructType = LanceSparkException.boundary {
    val table = cachedLoad(options.asCaseSensitiveMap())
    if (table.exists) table.schema() else new StructType()
  }

  override def getTable(schema: StructType, partitioning: Array[Transform], properties: util.Map[String, String]): Table =
    LanceSparkException.boundary(cachedLoad(properties))

  private def cachedLoad(options: util.Map[String, String]): LanceTable = {
    val key = options.asScala.toMap
    loaded.collect { case (k, t) if k == key => t }.getOrElse {
      val t = LanceTable.open(new CaseInsensitiveStringMap(options))
      loaded = Some(key -> t)
      t
    }
  }

  override def createRelation(sqlContext: SQLContext, mode: SaveMode, parameters: Map[String, String], data: DataFrame): BaseRelation =
    LanceSparkException.boundary(LanceSave.run(sqlContext, mode, parameters, data))
}
