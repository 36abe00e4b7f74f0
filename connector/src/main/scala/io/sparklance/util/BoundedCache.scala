package io.sparklance.util

// The JVM-wide caches of what is parsed from immutable files (data-file metadata, index
// contents) share this one shape: least recently used entries go first once the estimated
// bytes of all entries pass a bound, so a long-running driver or executor that sees many
// tables never holds more than the bound, however many files pass through it.

/**
 * A least-recently-used map bounded by the estimated bytes of its values (`weigh`), safe to
 * share between threads. Values must be immutable: every caller gets the same instance. A
 * value larger than the whole bound is returned but not kept. Loads run outside the lock,
 * so two threads missing the same key at once may both load it; the last one is kept.
 */
final class BoundedCache[K, V <: AnyRef](val maxBytes: Long, weigh: V => Long) {
  require(maxBytes >= 0, "a cache bound cannot be negative")

  private final case class Entry(value: V, bytes: Long)

  // Access order: iteration starts from the least recently used entry.
  private val entries = new java.util.LinkedHashMap[K, Entry](16, 0.75f, true)
  private var bytes = 0L
  private var hitCount = 0L
  private var missCount = 0L

  /** The value of `key`, loading (and keeping) it with `load` when absent. */
  def getOrLoad(key: K)(load: => V): V = {
    val cached = synchronized {
      val e = entries.get(key)
      if (e == null) missCount += 1 else hitCount += 1
      e
    }
    if (cached != null) cached.value
    else {
      val v = load
      put(key, v)
      v
    }
  }

  /** The value of `key` if present. */
  def get(key: K): Option[V] = synchronized(Option(entries.get(key)).map(_.value))

  private def put(key: K, v: V): Unit = {
    val w = math.max(weigh(v), 0L)
    synchronized {
      val old = entries.remove(key)
      if (old != null) bytes -= old.bytes
      if (w <= maxBytes) {
        entries.put(key, Entry(v, w))
        bytes += w
        val it = entries.values().iterator()
        while (bytes > maxBytes && it.hasNext) {
          bytes -= it.next().bytes
          it.remove()
        }
      }
    }
  }

  /** Entries held now. */
  def size: Int = synchronized(entries.size)

  /** Estimated bytes of the entries held now. */
  def weight: Long = synchronized(bytes)

  /** Look-ups answered from the cache and look-ups that loaded, since the start. */
  def hits: Long = synchronized(hitCount)
  def misses: Long = synchronized(missCount)

  def clear(): Unit = synchronized { entries.clear(); bytes = 0 }
}
