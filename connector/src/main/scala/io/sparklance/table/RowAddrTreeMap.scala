package io.sparklance.table

import java.nio.{ByteBuffer, ByteOrder}

import org.roaringbitmap.RoaringBitmap

import io.sparklance.util.Errors

// Spec: rust/lance-select/src/mask.rs (RowAddrTreeMap::serialize_into, formerly lance-core's
// RowIdTreeMap): a set of row addresses as bitmap indices and zone maps store it,
// little-endian: u32 entries, then per entry, by ascending fragment id: u32 fragment id,
// u32 size, `size` bytes of a portable 32-bit Roaring bitmap of offsets in the fragment
// (size 0: every row of the fragment).

object RowAddrTreeMap {

  /** Per fragment id, its offsets (None: every row), in the order stored. */
  def decode(bytes: Array[Byte], where: String): Seq[(Long, Option[RoaringBitmap])] = {
    val buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)
    def u32(what: String): Long = {
      if (buf.remaining < 4) throw Errors.corrupt(where, buf.position().toLong, s"the row address map ends inside its $what")
      buf.getInt() & 0xffffffffL
    }
    val entries = u32("entry count")
    // Each entry takes at least 8 bytes: a count beyond that is damage, not a huge map.
    if (entries > buf.remaining / 8) throw Errors.corrupt(where, 0, s"the row address map declares $entries fragments in ${bytes.length} bytes")
    val out = (0L until entries).map { _ =>
      val fragment = u32("fragment id")
      val size = u32("bitmap size")
      if (size > buf.remaining) throw Errors.corrupt(where, buf.position().toLong, s"fragment $fragment's bitmap of $size bytes runs past the ${bytes.length}-byte map")
      if (size == 0) fragment -> None
      else {
        val slice = buf.slice().limit(size.toInt)
        val b = new RoaringBitmap()
        try b.deserialize(slice)
        catch { case e: Exception => throw Errors.corrupt(where, buf.position().toLong, s"fragment $fragment's bitmap is not a roaring bitmap (${e.getMessage})", e) }
        if (b.serializedSizeInBytes != size)
          throw Errors.corrupt(where, buf.position().toLong, s"fragment $fragment's bitmap takes ${b.serializedSizeInBytes} of its $size bytes")
        buf.position(buf.position() + size.toInt)
        fragment -> Some(b)
      }
    }
    if (buf.hasRemaining) throw Errors.corrupt(where, buf.position().toLong, s"${buf.remaining} bytes follow the row address map")
    out
  }

  /** The serialization of `entries` (fragment id, offsets or None for every row), by ascending id. */
  def encode(entries: Seq[(Long, Option[RoaringBitmap])]): Array[Byte] = {
    val sorted = entries.sortBy(_._1)
    if (sorted.map(_._1).distinct.length != sorted.length) throw Errors.invalidArgument("a fragment appears twice in a row address map")
    val out = ByteBuffer.allocate(4 + sorted.map(8 + _._2.fold(0)(_.serializedSizeInBytes())).sum).order(ByteOrder.LITTLE_ENDIAN)
    out.putInt(sorted.length)
    sorted.foreach { case (id, offsets) =>
      out.putInt(id.toInt).putInt(offsets.fold(0)(_.serializedSizeInBytes()))
      offsets.foreach(_.serialize(out))
    }
    out.array()
  }
}
