package io.sparklance.format.v20

// Spec: lance-format/lance protos/encodings_v2_0.proto `Dictionary` and
// rust/lance-encoding/src/previous/encodings/physical/dictionary.rs, plus data.rs
// (`arrow_dictionary_to_data_block`).
//
// Two writers produce this message and the schema tells them apart:
//  * a string column the writer chose to dictionary-encode (fewer than 100 distinct values):
//    u8 indices counting from 1, 0 meaning null; the items are the distinct non-null strings;
//  * a column whose schema type is an Arrow dictionary: the Arrow keys as they are (0-based,
//    the key type's width); a null row points at a null item the writer appends if needed.
// The items are decoded once per page; rows are expanded per batch.

object DictionaryDecoder {

  def decode(d: ArrayEncoding.Dictionary, n: Long, ctx: PageContext): PageValues = {
    val len = ctx.arrayLength(n, "dictionary indices")
    val numItems = d.numDictionaryItems
    if (numItems > Int.MaxValue - 8) throw ctx.corrupt(s"a dictionary of $numItems items")
    val (raw, indexValues) = PageDecoder.unsignedLongs(d.indices, n, ctx, "dictionary indices")
    val items = PageDecoder.decode(d.items, numItems, ctx)
    val indices = new Array[Int](len)
    var i = 0
    while (i < len) {
      val v = raw(i)
      indices(i) =
        if (!indexValues.isValid(i.toLong)) -1
        else {
          val k = if (ctx.zeroBasedDictionary) v else v - 1
          if (k >= numItems || k < -1 || (k == -1 && ctx.zeroBasedDictionary))
            throw ctx.corrupt(s"dictionary index $i is ${java.lang.Long.toUnsignedString(v)} but the dictionary has $numItems items" +
              (if (ctx.zeroBasedDictionary) "" else " (indices count from 1)"))
          k.toInt
        }
      i += 1
    }
    PageValues.Dictionary(indices, items)
  }
}
