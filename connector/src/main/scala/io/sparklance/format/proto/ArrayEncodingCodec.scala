package io.sparklance.format.proto

import scala.jdk.CollectionConverters._

import com.google.protobuf.InvalidProtocolBufferException

import io.sparklance.format.EncodingAny
import io.sparklance.format.v20.{ArrayEncoding => AE, BufferKind, BufferRef, ColumnEncoding, FlatCompression}
import io.sparklance.util.Errors

// Spec: protos/lance/encodings_v2_0.proto. Turns the page and column descriptions of a
// file format 2.0 data file into the Scala ArrayEncoding / ColumnEncoding trees. Numbers
// the proto declares unsigned arrive here as signed Java values; they are widened so that a
// huge value stays huge (and fails a later bounds check) rather than turning negative.

object ArrayEncodingCodec {
  val ArrayEncodingTypeUrl = "/lance.encodings.ArrayEncoding"
  val ColumnEncodingTypeUrl = "/lance.encodings.ColumnEncoding"

  import Encodings20Protos.{ArrayEncoding => P}

  /** The page encoding of a 2.0 page of `path`; `column` names the column and page for errors. */
  def parse(any: EncodingAny, path: String, column: String): AE = {
    val where = s"$path, column '$column'"
    any.typeUrl match {
      case ArrayEncodingTypeUrl =>
        val p =
          try P.parseFrom(any.value)
          catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(where, -1, "ArrayEncoding", e) }
        arrayEncoding(p, where)
      case other => throw Errors.unsupportedEncoding(path, column, s"page description of type '$other' in a file format 2.0 file")
    }
  }

  /** A column's own encoding; `None` (no description) reads as plain values. */
  def parseColumn(any: Option[EncodingAny], path: String, column: String): ColumnEncoding = any match {
    case None => ColumnEncoding.Values
    case Some(a) if a.typeUrl == ColumnEncodingTypeUrl =>
      val c =
        try Encodings20Protos.ColumnEncoding.parseFrom(a.value)
        catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(s"$path, column '$column'", -1, "ColumnEncoding", e) }
      columnEncoding(c)
    case Some(a) => throw Errors.unsupportedEncoding(path, column, s"column description of type '${a.typeUrl}'")
  }

  private def columnEncoding(c: Encodings20Protos.ColumnEncoding): ColumnEncoding = c.getColumnEncodingCase match {
    case Encodings20Protos.ColumnEncoding.ColumnEncodingCase.VALUES => ColumnEncoding.Values
    case Encodings20Protos.ColumnEncoding.ColumnEncodingCase.BLOB =>
      val b = c.getBlob
      ColumnEncoding.Blob(if (b.hasInner) columnEncoding(b.getInner) else ColumnEncoding.Values)
    case Encodings20Protos.ColumnEncoding.ColumnEncodingCase.ZONE_INDEX =>
      val z = c.getZoneIndex
      ColumnEncoding.ZoneIndex(if (z.hasInner) columnEncoding(z.getInner) else ColumnEncoding.Values)
    case _ => ColumnEncoding.Values
  }

  private def unsigned(v: Int): Long = v.toLong & 0xffffffffL

  private def buffer(has: Boolean, b: Encodings20Protos.Buffer, what: String, where: String): BufferRef = {
    if (!has) throw Errors.corrupt(where, s"the $what encoding names no buffer")
    val kind = b.getBufferType match {
      case Encodings20Protos.Buffer.BufferType.page => BufferKind.Page
      case Encodings20Protos.Buffer.BufferType.column => BufferKind.Column
      case Encodings20Protos.Buffer.BufferType.file => BufferKind.File
      case _ => throw Errors.corrupt(where, s"the $what encoding names buffer type ${b.getBufferTypeValue}")
    }
    val index = unsigned(b.getBufferIndex)
    if (index > Int.MaxValue) throw Errors.corrupt(where, s"the $what encoding names buffer $index")
    BufferRef(index.toInt, kind)
  }

  private def child(has: Boolean, p: => P, what: String, where: String): AE =
    if (!has) throw Errors.corrupt(where, s"the $what encoding lacks a required inner encoding")
    else arrayEncoding(p, where)

  private def arrayEncoding(p: P, where: String): AE = p.getArrayEncodingCase match {
    case P.ArrayEncodingCase.FLAT =>
      val f = p.getFlat
      AE.Flat(f.getBitsPerValue, buffer(f.hasBuffer, f.getBuffer, "flat", where),
        if (f.hasCompression) Some(FlatCompression(f.getCompression.getScheme,
          if (f.getCompression.hasLevel) Some(f.getCompression.getLevel) else None))
        else None)
    case P.ArrayEncodingCase.NULLABLE =>
      val n = p.getNullable
      n.getNullabilityCase match {
        case Encodings20Protos.Nullable.NullabilityCase.NO_NULLS =>
          AE.NoNulls(child(n.getNoNulls.hasValues, n.getNoNulls.getValues, "nullable", where))
        case Encodings20Protos.Nullable.NullabilityCase.SOME_NULLS =>
          val s = n.getSomeNulls
          AE.SomeNulls(child(s.hasValidity, s.getValidity, "nullable validity", where),
            child(s.hasValues, s.getValues, "nullable", where))
        case Encodings20Protos.Nullable.NullabilityCase.ALL_NULLS => AE.AllNulls
        case _ => throw Errors.corrupt(where, "a nullable encoding says neither no_nulls, some_nulls nor all_nulls")
      }
    case P.ArrayEncodingCase.FIXED_SIZE_LIST =>
      val f = p.getFixedSizeList
      AE.FixedSizeList(unsigned(f.getDimension), f.getHasValidity, child(f.hasItems, f.getItems, "fixed_size_list", where))
    case P.ArrayEncodingCase.LIST =>
      val l = p.getList
      AE.ListOffsets(child(l.hasOffsets, l.getOffsets, "list", where), l.getNullOffsetAdjustment, l.getNumItems)
    case P.ArrayEncodingCase.STRUCT => AE.SimpleStruct
    case P.ArrayEncodingCase.BINARY =>
      val b = p.getBinary
      AE.Binary(child(b.hasIndices, b.getIndices, "binary indices", where),
        child(b.hasBytes, b.getBytes, "binary bytes", where), b.getNullAdjustment)
    case P.ArrayEncodingCase.DICTIONARY =>
      val d = p.getDictionary
      AE.Dictionary(child(d.hasIndices, d.getIndices, "dictionary indices", where),
        child(d.hasItems, d.getItems, "dictionary items", where), unsigned(d.getNumDictionaryItems))
    case P.ArrayEncodingCase.FSST =>
      val f = p.getFsst
      AE.Fsst(child(f.hasBinary, f.getBinary, "fsst", where), f.getSymbolTable.toByteArray)
    case P.ArrayEncodingCase.PACKED_STRUCT =>
      val s = p.getPackedStruct
      AE.PackedStruct(s.getInnerList.asScala.map(arrayEncoding(_, where)).toIndexedSeq,
        buffer(s.hasBuffer, s.getBuffer, "packed_struct", where))
    case P.ArrayEncodingCase.BITPACKED =>
      val b = p.getBitpacked
      AE.Bitpacked(b.getCompressedBitsPerValue, b.getUncompressedBitsPerValue,
        buffer(b.hasBuffer, b.getBuffer, "bitpacked", where), b.getSigned)
    case P.ArrayEncodingCase.BITPACKED_FOR_NON_NEG =>
      val b = p.getBitpackedForNonNeg
      AE.BitpackedForNonNeg(b.getCompressedBitsPerValue, b.getUncompressedBitsPerValue,
        buffer(b.hasBuffer, b.getBuffer, "bitpacked_for_non_neg", where))
    case P.ArrayEncodingCase.FIXED_SIZE_BINARY =>
      val f = p.getFixedSizeBinary
      AE.FixedSizeBinary(child(f.hasBytes, f.getBytes, "fixed_size_binary", where), unsigned(f.getByteWidth))
    case P.ArrayEncodingCase.CONSTANT => AE.Constant(p.getConstant.getValue.toByteArray)
    case P.ArrayEncodingCase.INLINE_BITPACKING => AE.Unsupported("inline_bitpacking")
    case P.ArrayEncodingCase.OUT_OF_LINE_BITPACKING => AE.Unsupported("out_of_line_bitpacking")
    case P.ArrayEncodingCase.VARIABLE => AE.Unsupported("variable")
    case P.ArrayEncodingCase.PACKED_STRUCT_FIXED_WIDTH_MINI_BLOCK => AE.Unsupported("packed_struct_fixed_width_mini_block")
    case P.ArrayEncodingCase.BLOCK => AE.Unsupported("block")
    case P.ArrayEncodingCase.RLE => AE.Unsupported("rle")
    case P.ArrayEncodingCase.GENERAL_MINI_BLOCK => AE.Unsupported("general_mini_block")
    case P.ArrayEncodingCase.BYTE_STREAM_SPLIT => AE.Unsupported("byte_stream_split")
    case _ => throw Errors.corrupt(where, "an array encoding is empty")
  }

  // ---- writer side (tests build hand-made pages with these) ---------------------------------

  /** The `google.protobuf.Any` bytes of `e`, as a 2.0 writer stores them in `DirectEncoding`. */
  def toAny(e: AE): EncodingAny = EncodingAny(ArrayEncodingTypeUrl, toProto(e).toByteArray)

  private def bufferProto(b: BufferRef): Encodings20Protos.Buffer =
    Encodings20Protos.Buffer.newBuilder().setBufferIndex(b.index).setBufferType(b.kind match {
      case BufferKind.Page => Encodings20Protos.Buffer.BufferType.page
      case BufferKind.Column => Encodings20Protos.Buffer.BufferType.column
      case BufferKind.File => Encodings20Protos.Buffer.BufferType.file
    }).build()

  def toProto(e: AE): P = {
    val b = P.newBuilder()
    e match {
      case AE.Flat(bits, buf, c) =>
        val f = Encodings20Protos.Flat.newBuilder().setBitsPerValue(bits).setBuffer(bufferProto(buf))
        c.foreach { c =>
          val cb = Encodings20Protos.Compression.newBuilder().setScheme(c.scheme)
          c.level.foreach(cb.setLevel)
          f.setCompression(cb)
        }
        b.setFlat(f)
      case AE.NoNulls(v) =>
        b.setNullable(Encodings20Protos.Nullable.newBuilder().setNoNulls(
          Encodings20Protos.Nullable.NoNull.newBuilder().setValues(toProto(v))))
      case AE.SomeNulls(validity, v) =>
        b.setNullable(Encodings20Protos.Nullable.newBuilder().setSomeNulls(
          Encodings20Protos.Nullable.SomeNull.newBuilder().setValidity(toProto(validity)).setValues(toProto(v))))
      case AE.AllNulls =>
        b.setNullable(Encodings20Protos.Nullable.newBuilder().setAllNulls(Encodings20Protos.Nullable.AllNull.getDefaultInstance))
      case AE.FixedSizeList(dim, hasValidity, items) =>
        b.setFixedSizeList(Encodings20Protos.FixedSizeList.newBuilder().setDimension(dim.toInt)
          .setHasValidity(hasValidity).setItems(toProto(items)))
      case AE.ListOffsets(offsets, adj, n) =>
        b.setList(Encodings20Protos.List.newBuilder().setOffsets(toProto(offsets)).setNullOffsetAdjustment(adj).setNumItems(n))
      case AE.SimpleStruct => b.setStruct(Encodings20Protos.SimpleStruct.getDefaultInstance)
      case AE.Binary(indices, bytes, adj) =>
        b.setBinary(Encodings20Protos.Binary.newBuilder().setIndices(toProto(indices)).setBytes(toProto(bytes)).setNullAdjustment(adj))
      case AE.Dictionary(indices, items, n) =>
        b.setDictionary(Encodings20Protos.Dictionary.newBuilder().setIndices(toProto(indices)).setItems(toProto(items))
          .setNumDictionaryItems(n.toInt))
      case AE.Fsst(binary, table) =>
        b.setFsst(Encodings20Protos.Fsst.newBuilder().setBinary(toProto(binary))
          .setSymbolTable(com.google.protobuf.ByteString.copyFrom(table)))
      case AE.PackedStruct(inner, buf) =>
        val s = Encodings20Protos.PackedStruct.newBuilder().setBuffer(bufferProto(buf))
        inner.foreach(i => s.addInner(toProto(i)))
        b.setPackedStruct(s)
      case AE.Bitpacked(c, u, buf, signed) =>
        b.setBitpacked(Encodings20Protos.Bitpacked.newBuilder().setCompressedBitsPerValue(c)
          .setUncompressedBitsPerValue(u).setBuffer(bufferProto(buf)).setSigned(signed))
      case AE.BitpackedForNonNeg(c, u, buf) =>
        b.setBitpackedForNonNeg(Encodings20Protos.BitpackedForNonNeg.newBuilder().setCompressedBitsPerValue(c)
          .setUncompressedBitsPerValue(u).setBuffer(bufferProto(buf)))
      case AE.FixedSizeBinary(bytes, w) =>
        b.setFixedSizeBinary(Encodings20Protos.FixedSizeBinary.newBuilder().setBytes(toProto(bytes)).setByteWidth(w.toInt))
      case AE.Constant(v) =>
        b.setConstant(Encodings20Protos.Constant.newBuilder().setValue(com.google.protobuf.ByteString.copyFrom(v)))
      case AE.Unsupported(name) => throw new IllegalArgumentException(s"cannot write the $name encoding")
    }
    b.build()
  }

  /** The column description every column but a 2.0 blob column carries: `values{}`. */
  val valuesColumnEncoding: EncodingAny = EncodingAny(ColumnEncodingTypeUrl,
    Encodings20Protos.ColumnEncoding.newBuilder().setValues(com.google.protobuf.Empty.getDefaultInstance).build().toByteArray)

  /** The column description of a 2.0 blob column: `blob{inner: values{}}`. */
  def blobColumnAny: EncodingAny = {
    val values = Encodings20Protos.ColumnEncoding.newBuilder().setValues(com.google.protobuf.Empty.getDefaultInstance)
    EncodingAny(ColumnEncodingTypeUrl, Encodings20Protos.ColumnEncoding.newBuilder()
      .setBlob(Encodings20Protos.Blob.newBuilder().setInner(values)).build().toByteArray)
  }
}
