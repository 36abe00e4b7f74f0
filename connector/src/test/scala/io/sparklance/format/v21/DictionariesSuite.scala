package io.sparklance.format.v21

import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.encoding.{FixedWidthValues, VariableData}
import io.sparklance.util.CorruptFileException

class DictionariesSuite extends AnyFunSuite {

  private def strings(s: String*): VariableData = VariableData.of(s.map(_.getBytes(UTF_8)))

  /** `values` as little-endian indices of `bits` bits. */
  private def indices(bits: Int, values: Long*): FixedWidthValues = {
    val bb = ByteBuffer.allocate(values.length * bits / 8).order(ByteOrder.LITTLE_ENDIAN)
    values.foreach(v => bits match { case 8 => bb.put(v.toByte); case 16 => bb.putShort(v.toShort); case 32 => bb.putInt(v.toInt); case 64 => bb.putLong(v) })
    new FixedWidthValues(bits, bb.array(), values.length)
  }

  test("string items short and long, empty and repeated, looked up through every index width") {
    // Items of 0, 3, 8, 9 and 40 bytes: both the one-word copy and arraycopy paths, at the end too.
    val items = Seq("", "red", "exactly8", "nine char", "a long item that is well over eight bytes")
    val dict = Dictionaries.prepare(strings(items: _*), "test")
    val picks = Seq(4, 0, 2, 2, 3, 1, 4, 0, 3, 1)
    for (bits <- Seq(8, 16, 32, 64)) {
      val out = Dictionaries.lookup(dict, indices(bits, picks.map(_.toLong): _*), "test").asInstanceOf[VariableData]
      assert(out.count == picks.length)
      assert(out.offsets(0) == 0)
      picks.indices.foreach(i => assert(new String(out.value(i), UTF_8) == items(picks(i)), s"$bits-bit indices, value $i"))
    }
  }

  test("fixed-width items of 1, 2, 4, 8 and 16 bytes") {
    for (w <- Seq(1, 2, 4, 8, 16)) {
      val data = Array.tabulate(3 * w)(i => (i * 7 + 1).toByte)
      val expected = Seq(2, 0, 2, 1).flatMap(k => data.slice(k * w, k * w + w))
      // The same items at offset 0 and as a view one item into a larger array.
      val padded = Array.fill[Byte](w)(99) ++ data
      for (items <- Seq(new FixedWidthValues(w * 8, data, 3), new FixedWidthValues(w * 8, padded, 3, w))) {
        val dict = Dictionaries.prepare(items, "test")
        val out = Dictionaries.lookup(dict, indices(32, 2, 0, 2, 1), "test").asInstanceOf[FixedWidthValues]
        assert(out.data.slice(out.offset, out.offset + 4 * w).sameElements(expected), s"$w-byte items at offset ${items.offset}")
      }
    }
  }

  test("an index outside the dictionary is a CorruptFile error at every width") {
    val dict = Dictionaries.prepare(strings("a", "b"), "test")
    for (bits <- Seq(8, 16, 32, 64)) intercept[CorruptFileException](Dictionaries.lookup(dict, indices(bits, 0, 2), "test"))
    // Unsigned 32- and 64-bit indices with the top bit set are huge, not negative.
    intercept[CorruptFileException](Dictionaries.lookup(dict, indices(32, -1), "test"))
    intercept[CorruptFileException](Dictionaries.lookup(dict, indices(64, Long.MinValue), "test"))
    intercept[CorruptFileException](Dictionaries.lookup(dict, new FixedWidthValues(24, new Array[Byte](3), 1), "test"))
  }
}
