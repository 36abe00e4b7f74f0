package io.sparklance.table.write

import net.jpountz.xxhash.XXHashFactory

import io.sparklance.table.commit.KeyExistenceFilter

// Spec: rust/lance/src/dataset/write/merge_insert/inserted_rows.rs (KeyValue, the builder) and
// rust/lance-index/src/scalar/bloomfilter/sbbf.rs (the split-block bloom filter, Parquet's
// design). pylance reads the filter this builds and compares it with its own bit by bit, so
// every step is Lance's: the key's bytes, XXH64 with seed 0, the block and bit choice, and the
// filter's fixed size.

/**
 * The keys of the rows a MERGE inserted, in Lance's bloom filter: 8,192 expected keys at a
 * false-positive rate of 0.00057, which Lance sizes as 32 KiB (1,024 blocks of eight 32-bit
 * words; Lance's source comment says 16 KiB, its sizing and pylance 14's files say 32). A key is its value's bytes (64-bit integers little-endian, strings as UTF-8, binaries
 * as they are); a key of several columns is each part's bytes followed by a zero byte.
 */
final class InsertedKeys(val bitmap: Array[Byte] = new Array[Byte](InsertedKeys.Bytes)) extends Serializable {
  require(bitmap.length == InsertedKeys.Bytes, s"an inserted-keys filter has ${InsertedKeys.Bytes} bytes")

  def addLong(v: Long): Unit = add(InsertedKeys.longBytes(v))

  def add(key: Array[Byte]): Unit = {
    val hash = InsertedKeys.xxh64.hash(key, 0, key.length, 0L)
    val blocks = InsertedKeys.Bytes / 32
    // The block: the hash's high 32 bits scaled to the block count.
    val block = (((hash >>> 32) * blocks) >>> 32).toInt
    val x = hash.toInt
    var i = 0
    while (i < 8) {
      val bit = (x * InsertedKeys.Salt(i)) >>> 27
      val at = block * 32 + i * 4 // word i of the block, little-endian
      val word = (bitmap(at) & 0xff) | (bitmap(at + 1) & 0xff) << 8 | (bitmap(at + 2) & 0xff) << 16 | (bitmap(at + 3) & 0xff) << 24
      val set = word | (1 << bit)
      bitmap(at) = set.toByte; bitmap(at + 1) = (set >>> 8).toByte; bitmap(at + 2) = (set >>> 16).toByte; bitmap(at + 3) = (set >>> 24).toByte
      i += 1
    }
  }

  /** Adds every key of `other` (the union of two filters is the OR of their bits). */
  def addAll(other: Array[Byte]): Unit = {
    require(other.length == bitmap.length, "inserted-keys filters of different sizes")
    var i = 0
    while (i < bitmap.length) { bitmap(i) = (bitmap(i) | other(i)).toByte; i += 1 }
  }

  def filter(fieldIds: IndexedSeq[Int]): KeyExistenceFilter =
    KeyExistenceFilter(fieldIds, KeyExistenceFilter.Bloom(bitmap.clone(), InsertedKeys.Bytes * 8, InsertedKeys.ExpectedKeys,
      InsertedKeys.FalsePositiveRate))
}

object InsertedKeys {
  val ExpectedKeys: Long = 8192L
  val FalsePositiveRate: Double = 0.00057
  /** What Lance's sizing (the smallest power of two bytes reaching the rate) gives for the two above. */
  val Bytes: Int = 32768

  private val Salt = Array(0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31)

  // The pure-Java XXH64 (Lance hashes with twox-hash's XxHash64; the algorithm is fixed).
  private lazy val xxh64 = XXHashFactory.safeInstance().hash64()

  def longBytes(v: Long): Array[Byte] = Array.tabulate(8)(i => (v >>> (8 * i)).toByte)

  /** The key of several columns: each part followed by a zero byte. */
  def composite(parts: Seq[Array[Byte]]): Array[Byte] = parts.flatMap(p => p :+ 0.toByte).toArray
}
