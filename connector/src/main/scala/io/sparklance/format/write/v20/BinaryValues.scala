package io.sparklance.format.write.v20

import java.nio.ByteBuffer

import org.apache.arrow.vector.{BaseLargeVariableWidthVector, BaseVariableWidthVector, FieldVector, ValueVector}

import io.sparklance.format.v20.{ArrayEncoding => AE, FlatCompression}
import io.sparklance.format.encoding.{BitCopy, FsstEncoder, VariableData}
import io.sparklance.format.write.{ByteArrayBuilder, LongArrayBuilder}

// Spec: rust/lance-encoding/src/previous/encodings/physical/{binary,dictionary}.rs and data.rs
// (arrow_binary_to_data_block): the strings and binaries of one 2.0 page.

/**
 * Strings and binaries (binary.rs BinaryEncoder): `binary{indices, bytes, null_adjustment}`,
 * or, for `Utf8` pages the strategy picks it for, a dictionary (dictionary.rs). Each value's
 * bytes span what its Arrow offsets say, a null's included, as Rust copies them.
 */
private[v20] final class BinaryValues(large: Boolean, dictionary: ArrayEncodingStrategy.DictionaryMode, compression: ArrayEncodingStrategy.BinaryCompression) extends PageValues {
  import ArrayEncodingStrategy.DictionaryMode
  private val bytes = new ByteArrayBuilder()
  private val ends = new LongArrayBuilder()
  private val validity = new ValidityBits

  def count: Long = ends.length

  private def offset(v: ValueVector, i: Int): Long = v match {
    case l: BaseLargeVariableWidthVector => l.getOffsetBuffer.getLong(i.toLong * 8)
    case s: BaseVariableWidthVector => s.getOffsetBuffer.getInt(i.toLong * 4).toLong
    case other => throw new IllegalStateException(s"not a variable-width vector: ${other.getClass}")
  }

  def arrowBytes(v: ValueVector, from: Int, len: Int): Long =
    offset(v, from + len) - offset(v, from) + (len + 1L) * (if (large) 8 else 4) + (if (v.getNullCount > 0) (len + 7L) / 8 else 0)

  def append(v: ValueVector, from: Int, len: Int): Unit = {
    validity.append(v, from, len)
    val start = offset(v, from)
    val total = offset(v, from + len) - start
    val out = bytes.reserve(total)
    v.asInstanceOf[FieldVector].getDataBuffer.getBytes(start, out, bytes.length, total.toInt)
    val base = bytes.length.toLong - start
    bytes.advance(total.toInt)
    val offsets = v.asInstanceOf[FieldVector].getOffsetBuffer
    var i = 1
    if (large) while (i <= len) { ends.append(base + offsets.getLong((from + i).toLong * 8)); i += 1 }
    else while (i <= len) { ends.append(base + offsets.getInt((from + i).toLong * 4)); i += 1 }
  }

  def encode(out: PageBuffers): AE = {
    val valid = validity.toArray
    val page = new BinaryPage(ends.length, i => ends(i), i => !BitCopy.getBit(valid, i), bytes.array, validity.nulls)
    val few = if (dictionary == DictionaryMode.FewDistinct) ArrayEncodingStrategy.dictionary(page) else None
    dictionary match {
      case DictionaryMode.Keys(bits) => return keyedDictionary(page, bits, out)
      case _ =>
    }
    few.map(dictionaryEncoding(_, out))
      .orElse(if (compression.fsst && !large && page.nulls < page.count) Some(fsst(page, out)) else None)
      .getOrElse(binary(page, out, compression.flat, compression.compress))
  }

  // dictionary.rs AlreadyDictionaryEncoder and data.rs arrow_dictionary_to_data_block: a field
  // typed as a dictionary is stored as one, whatever its cardinality. The batches hold the
  // values, so the dictionary is built here, distinct values in first-seen order, the keys
  // counting from 0 at the key type's width. Null rows point at one null item after the values
  // (Rust appends it so that the keys need no validity); a key type too narrow for the items
  // widens to 32 bits, as Rust widens it.
  private def keyedDictionary(p: BinaryPage, keyBits: Int, out: PageBuffers): AE = {
    val seen = new java.util.HashMap[ByteBuffer, Integer]()
    val first = scala.collection.mutable.ArrayBuffer.empty[Int]
    val keys = new Array[Long](p.count)
    var i = 0
    while (i < p.count) {
      if (!p.isNull(i)) {
        val s = p.start(i).toInt
        val key = ByteBuffer.wrap(p.data, s, p.end(i).toInt - s)
        var k = seen.get(key)
        if (k == null) { k = first.length; seen.put(key, k); first += i }
        keys(i) = k.longValue
      }
      i += 1
    }
    val withNull = p.nulls > 0
    val items = first.length + (if (withNull) 1 else 0)
    i = 0
    while (i < p.count) { if (p.isNull(i)) keys(i) = first.length; i += 1 }
    val bits = if (items - 1 > (1L << (keyBits - 1)) - 1) 32 else keyBits
    val keyBytes = java.nio.ByteBuffer.allocate(p.count * (bits / 8)).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    keys.foreach(k => bits match { case 8 => keyBytes.put(k.toByte); case 16 => keyBytes.putShort(k.toShort); case 32 => keyBytes.putInt(k.toInt); case _ => keyBytes.putLong(k) })
    val idx = AE.NoNulls(AE.Flat(bits, out.add(keyBytes.array()), None))
    val itemEnds = first.scanLeft(0L)((e, j) => e + p.end(j) - p.start(j)).tail
    val itemBytes = new ByteArrayBuilder()
    first.foreach(j => itemBytes.append(p.data, p.start(j).toInt, (p.end(j) - p.start(j)).toInt))
    val itemsPage = new BinaryPage(items, j => if (j < itemEnds.length) itemEnds(j) else itemEnds.lastOption.getOrElse(0L),
      j => withNull && j == first.length, itemBytes.toArray, if (withNull) 1 else 0)
    AE.Dictionary(idx, binary(itemsPage, out, None, identity), items.toLong)
  }

  // fsst.rs FsstArrayEncoder: the values FSST-compressed with one table for the page, then
  // stored as a plain binary. Rust writes it for 32-bit offsets only (it asserts so), and a page
  // without a valid value is all-null in Rust, which FSST does not take: both stay plain here.
  private def fsst(p: BinaryPage, out: PageBuffers): AE = {
    val offsets = new Array[Int](p.count + 1)
    var i = 0
    while (i < p.count) { offsets(i + 1) = p.end(i).toInt; i += 1 }
    val c = FsstEncoder.compress(new VariableData(offsets, p.data))
    val codes = new BinaryPage(p.count, i => c.values.offsets(i + 1).toLong, p.isNull, c.values.bytes, p.nulls)
    AE.Fsst(binary(codes, out, None, identity), c.symbolTable)
  }

  // binary.rs get_indices_from_string_arrays: indices are the values' cumulative end offsets,
  // a null's raised by null_adjustment = total bytes + 1. A page with no valid value is
  // DataBlock::AllNull in Rust: no bytes, every index 1 and null_adjustment 1.
  private def binary(p: BinaryPage, out: PageBuffers, flat: Option[FlatCompression], compress: Array[Byte] => Array[Byte]): AE = {
    val allNull = p.count > 0 && p.nulls == p.count
    val total = if (p.count == 0 || allNull) 0L else p.end(p.count - 1)
    val adjustment = if (p.count == 0) 0L else total + 1
    val indices = PageBuffers.longs(p.count, i => if (allNull) 1L else if (p.isNull(i)) p.end(i) + adjustment else p.end(i))
    val idx = AE.NoNulls(AE.Flat(64, out.add(indices), None))
    val raw = java.util.Arrays.copyOf(p.data, total.toInt)
    AE.Binary(idx, AE.Flat(8, out.add(compress(raw)), flat), adjustment)
  }

  // dictionary.rs DictionaryEncoder: u8 indices counting from 1 (0 = null), then the distinct
  // strings in first-seen order as a binary without compression; a page whose values are all
  // null gets a dictionary of one null item.
  private def dictionaryEncoding(d: ArrayEncodingStrategy.Dictionary, out: PageBuffers): AE = {
    val idx = AE.NoNulls(AE.Flat(8, out.add(d.indices), None))
    val items =
      if (d.items.isEmpty) AE.Binary(AE.NoNulls(AE.Flat(64, out.add(PageBuffers.longs(1, _ => 1L)), None)), AE.Flat(8, out.add(Array.emptyByteArray), None), 1)
      else {
        val itemEnds = d.items.scanLeft(0L)(_ + _.length).tail
        val itemBytes = new ByteArrayBuilder()
        d.items.foreach(b => itemBytes.append(b, 0, b.length))
        AE.Binary(AE.NoNulls(AE.Flat(64, out.add(PageBuffers.longs(itemEnds.length, itemEnds(_))), None)),
          AE.Flat(8, out.add(itemBytes.toArray), None), itemEnds.last + 1)
      }
    AE.Dictionary(idx, items, math.max(1, d.items.length).toLong)
  }

  def reset(): Unit = { bytes.clear(); ends.clear(); validity.reset() }
}

/** One page of strings or binaries as the encoding strategy sees it: value `i` is `data[start(i), end(i))`. */
private[v20] final class BinaryPage(val count: Int, val end: Int => Long, val isNull: Int => Boolean, val data: Array[Byte], val nulls: Long) {
  def start(i: Int): Long = if (i == 0) 0L else end(i - 1)
}
