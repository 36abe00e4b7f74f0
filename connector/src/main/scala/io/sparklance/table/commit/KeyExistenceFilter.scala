package io.sparklance.table.commit

// Spec: Lance's transaction.proto (KeyExistenceFilter) and
// rust/lance/src/dataset/write/merge_insert/inserted_rows.rs, conflict_resolver.rs. A
// merge-insert whose ON columns are the table's unenforced primary key records the keys it
// inserted, so that two concurrent ones commit together only when their keys cannot overlap.

/** The keys a merge-insert inserted, over the primary key's fields `fieldIds` (in key order). */
final case class KeyExistenceFilter(fieldIds: IndexedSeq[Int], data: KeyExistenceFilter.Data) {

  /**
   * Whether the two may hold a common key, as Lance decides it: filters over other fields, of
   * different kinds or of different bloom configurations cannot be compared and count as
   * overlapping; two bloom filters overlap when any byte has a bit set in both.
   */
  def mayOverlap(other: KeyExistenceFilter): Boolean = fieldIds != other.fieldIds || ((data, other.data) match {
    case (KeyExistenceFilter.Exact(a), KeyExistenceFilter.Exact(b)) => a.exists(b.contains)
    case (a: KeyExistenceFilter.Bloom, b: KeyExistenceFilter.Bloom) =>
      a.numberOfItems != b.numberOfItems || math.abs(a.probability - b.probability) > Math.ulp(1.0) ||
        a.bitmap.length != b.bitmap.length || a.bitmap.indices.exists(i => (a.bitmap(i) & b.bitmap(i)) != 0)
    case _ => true
  })
}

object KeyExistenceFilter {
  sealed trait Data
  /** 64-bit hashes of the keys. */
  final case class Exact(hashes: Set[Long]) extends Data
  /** A split-block bloom filter's bitset (see [[io.sparklance.table.write.InsertedKeys]]) and the configuration it was sized for. */
  final case class Bloom(bitmap: Array[Byte], numBits: Int, numberOfItems: Long, probability: Double) extends Data {
    override def equals(o: Any): Boolean = o match {
      case b: Bloom => java.util.Arrays.equals(bitmap, b.bitmap) && numBits == b.numBits && numberOfItems == b.numberOfItems &&
        probability == b.probability
      case _ => false
    }
    override def hashCode(): Int = java.util.Arrays.hashCode(bitmap)
  }
}
