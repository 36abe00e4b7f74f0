package io.sparklance.spark.catalog

/**
 * What a catalog records about a Lance table besides the table itself: the name SQL gives it,
 * where its data lies, whether dropping it deletes that data (managed) or leaves it (external),
 * and the connector options stored with it (`OPTIONS (...)` of its CREATE TABLE), applied to
 * every read and write of it. Schema, data and table properties live in the Lance table only:
 * pylance and every catalog see the same ones.
 */
final case class CatalogEntry(
    name: String,
    location: String,
    managed: Boolean,
    options: Map[String, String],
    comment: Option[String] = None,
    owner: Option[String] = None)
