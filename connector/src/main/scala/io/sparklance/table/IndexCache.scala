package io.sparklance.table

import io.sparklance.format.FileIdentity
import io.sparklance.util.BoundedCache

// Spec: lance-format/lance rust/lance-index/src/scalar/btree.rs and zonemap.rs keep what
// they load from an index's files in the dataset's index cache, because index files never
// change once written (each index lives under its own UUID). Planning a filtered query
// reads a zone map or a BTREE's page lookup whole; with this cache the driver decodes them
// once per file, and a query only opens the file to learn that it is still the same one.

/**
 * The JVM-wide cache of what planning decodes from index files (zone maps, BTREE page
 * lookups), bounded by [[IndexCache.MaxBytes]] of estimated heap (least recently used
 * first out). Entries are keyed by what they are and the file they came from, by path
 * (which holds the index's UUID), size and, where the store reports it, modification
 * stamp ([[FileIdentity]]), so that another table later written at the same location, or
 * another file at the same path, is read afresh.
 */
private[table] object IndexCache {

  /** At most this many estimated bytes are kept: zone maps of some 400 million rows, say. */
  val MaxBytes: Long = 64L << 20

  private final case class Sized(value: AnyRef, bytes: Long)

  private val cache = new BoundedCache[(String, FileIdentity), Sized](MaxBytes, _.bytes)

  /**
   * What `kind` of contents `load` decodes from `file`, from the cache when present;
   * `weigh` estimates its bytes. Failures are not kept.
   */
  def getOrLoad[V <: AnyRef](kind: String, file: FileIdentity, weigh: V => Long)(load: => V): V =
    cache.getOrLoad((kind, file)) { val v = load; Sized(v, weigh(v)) }.value.asInstanceOf[V]

  /** Entries held now (for tests). */
  def size: Int = cache.size

  def clear(): Unit = cache.clear()
}
