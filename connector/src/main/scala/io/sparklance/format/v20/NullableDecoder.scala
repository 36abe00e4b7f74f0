package io.sparklance.format.v20

// Spec: lance-format/lance protos/encodings_v2_0.proto `Nullable` and
// rust/lance-encoding/src/previous/encodings/physical/basic.rs. `some_nulls` stores a
// validity bitmap (flat, 1 bit per value, set = valid) in one buffer and the values, nulls
// included as garbage slots, in the others.

object NullableDecoder {

  def someNulls(e: ArrayEncoding.SomeNulls, n: Long, ctx: PageContext): PageValues = {
    val bits = PageDecoder.decode(e.validity, n, ctx) match {
      case PageValues.Fixed(1, data, _, _) => Validity.Bits(data)
      case other => throw ctx.corrupt(s"a nullable validity decoded to ${PageDecoder.describe(other)}, not a bitmap")
    }
    val values = PageDecoder.decode(e.values, n, ctx)
    values.withValidity(Validity.and(values.validity, bits, ctx.arrayLength(n, "nullable values")))
  }
}
