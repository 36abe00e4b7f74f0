package io.sparklance.format.proto

import scala.jdk.CollectionConverters._

import com.google.protobuf.InvalidProtocolBufferException

import io.sparklance.format.EncodingAny
import io.sparklance.format.encoding.{BufferCompression, CompressionScheme, CompressiveEncoding => CE}
import io.sparklance.format.layout.{PageLayout, RepDefLayer}
import io.sparklance.util.Errors

// Spec: protos/lance/encodings_v2_1.proto. Turns the page description of a 2.1/2.2
// file into the Scala PageLayout / CompressiveEncoding trees.

object PageLayoutCodec {
  val PageLayoutTypeUrl = "/lance.encodings21.PageLayout"
  val ArrayEncodingTypeUrl = "/lance.encodings.ArrayEncoding"

  import Encodings21Protos.{CompressiveEncoding => P, PageLayout => PL}

  def parse(any: EncodingAny, where: String): PageLayout = any.typeUrl match {
    case PageLayoutTypeUrl =>
      val pl =
        try PL.parseFrom(any.value)
        catch { case e: InvalidProtocolBufferException => throw Errors.corruptProto(where, -1, "PageLayout", e) }
      layout(pl, where)
    case ArrayEncodingTypeUrl =>
      throw Errors.unsupported("file format 2.0 page encodings (ArrayEncoding)", where)
    case other => throw Errors.unsupportedEncoding(where, "?", s"page description of type '$other'")
  }

  private def layers(l: java.util.List[Encodings21Protos.RepDefLayer], where: String): IndexedSeq[RepDefLayer] =
    l.asScala.map {
      case Encodings21Protos.RepDefLayer.REPDEF_ALL_VALID_ITEM => RepDefLayer.AllValidItem
      case Encodings21Protos.RepDefLayer.REPDEF_ALL_VALID_LIST => RepDefLayer.AllValidList
      case Encodings21Protos.RepDefLayer.REPDEF_NULLABLE_ITEM => RepDefLayer.NullableItem
      case Encodings21Protos.RepDefLayer.REPDEF_NULLABLE_LIST => RepDefLayer.NullableList
      case Encodings21Protos.RepDefLayer.REPDEF_EMPTYABLE_LIST => RepDefLayer.EmptyableList
      case Encodings21Protos.RepDefLayer.REPDEF_NULL_AND_EMPTY_LIST => RepDefLayer.NullAndEmptyList
      case other => throw Errors.corrupt(where, s"unknown repetition/definition layer $other")
    }.toIndexedSeq

  private def layout(pl: PL, where: String): PageLayout = pl.getLayoutCase match {
    case PL.LayoutCase.MINI_BLOCK_LAYOUT =>
      val m = pl.getMiniBlockLayout
      if (!m.hasValueCompression) throw Errors.corrupt(where, "the mini-block layout has no value compression")
      PageLayout.MiniBlock(
        if (m.hasRepCompression) Some(compression(m.getRepCompression, where)) else None,
        if (m.hasDefCompression) Some(compression(m.getDefCompression, where)) else None,
        compression(m.getValueCompression, where),
        if (m.hasDictionary) Some(compression(m.getDictionary, where)) else None,
        m.getNumDictionaryItems,
        layers(m.getLayersList, where),
        m.getNumBuffers,
        m.getRepetitionIndexDepth,
        m.getNumItems,
        m.getHasLargeChunk)
    case PL.LayoutCase.FULL_ZIP_LAYOUT =>
      val f = pl.getFullZipLayout
      PageLayout.FullZip(
        f.getBitsRep, f.getBitsDef,
        if (f.hasBitsPerValue) Some(f.getBitsPerValue.toLong & 0xffffffffL) else None,
        if (f.hasBitsPerOffset) Some(f.getBitsPerOffset) else None,
        f.getNumItems.toLong & 0xffffffffL, f.getNumVisibleItems.toLong & 0xffffffffL,
        compression(f.getValueCompression, where),
        layers(f.getLayersList, where))
    case PL.LayoutCase.CONSTANT_LAYOUT =>
      val c = pl.getConstantLayout
      PageLayout.Constant(
        layers(c.getLayersList, where),
        if (c.hasInlineValue) Some(c.getInlineValue.toByteArray) else None,
        if (c.hasRepCompression) Some(compression(c.getRepCompression, where)) else None,
        if (c.hasDefCompression) Some(compression(c.getDefCompression, where)) else None,
        c.getNumRepValues, c.getNumDefValues)
    case PL.LayoutCase.BLOB_LAYOUT =>
      val b = pl.getBlobLayout
      PageLayout.Blob(layout(b.getInnerLayout, where), layers(b.getLayersList, where))
    case PL.LayoutCase.SPARSE_LAYOUT =>
      throw Errors.unsupportedEncoding(where, "?", "sparse layout (file format 2.3)")
    case _ => throw Errors.corrupt(where, "the page layout is empty")
  }

  private def bufferCompression(b: Encodings21Protos.BufferCompression, where: String): BufferCompression = {
    val scheme = b.getScheme match {
      case Encodings21Protos.CompressionScheme.COMPRESSION_ALGORITHM_LZ4 => CompressionScheme.Lz4
      case Encodings21Protos.CompressionScheme.COMPRESSION_ALGORITHM_ZSTD => CompressionScheme.Zstd
      case other => throw Errors.unsupportedEncoding(where, "?", s"general compression scheme $other")
    }
    BufferCompression(scheme, if (b.hasLevel) Some(b.getLevel) else None)
  }

  private def intBits(v: Long, what: String, where: String): Int =
    if (v < 0 || v > 4096 * 64) throw Errors.corrupt(where, s"$what of $v bits is out of range") else v.toInt

  def compression(c: P, where: String): CE = c.getCompressionCase match {
    case P.CompressionCase.FLAT =>
      val f = c.getFlat
      CE.Flat(intBits(f.getBitsPerValue, "a flat value width", where), if (f.hasData) Some(bufferCompression(f.getData, where)) else None)
    case P.CompressionCase.VARIABLE =>
      val v = c.getVariable
      CE.Variable(compression(v.getOffsets, where), if (v.hasValues) Some(bufferCompression(v.getValues, where)) else None)
    case P.CompressionCase.CONSTANT =>
      val k = c.getConstant
      CE.Constant(if (k.hasValue) Some(k.getValue.toByteArray) else None)
    case P.CompressionCase.OUT_OF_LINE_BITPACKING =>
      val o = c.getOutOfLineBitpacking
      CE.OutOfLineBitpacking(intBits(o.getUncompressedBitsPerValue, "a bit-packed value width", where), compression(o.getValues, where))
    case P.CompressionCase.INLINE_BITPACKING =>
      val i = c.getInlineBitpacking
      if (i.hasValues) throw Errors.unsupportedEncoding(where, "?", "inline bitpacking with buffer compression")
      CE.InlineBitpacking(intBits(i.getUncompressedBitsPerValue, "a bit-packed value width", where), None)
    case P.CompressionCase.FSST =>
      val f = c.getFsst
      CE.Fsst(f.getSymbolTable.toByteArray, compression(f.getValues, where))
    case P.CompressionCase.DICTIONARY =>
      val d = c.getDictionary
      CE.Dictionary(compression(d.getIndices, where), compression(d.getItems, where), d.getNumDictionaryItems.toLong & 0xffffffffL)
    case P.CompressionCase.RLE =>
      val r = c.getRle
      CE.Rle(compression(r.getValues, where), compression(r.getRunLengths, where))
    case P.CompressionCase.BYTE_STREAM_SPLIT =>
      CE.ByteStreamSplit(compression(c.getByteStreamSplit.getValues, where))
    case P.CompressionCase.GENERAL =>
      val g = c.getGeneral
      CE.General(bufferCompression(g.getCompression, where), compression(g.getValues, where))
    case P.CompressionCase.FIXED_SIZE_LIST =>
      val f = c.getFixedSizeList
      CE.FixedSizeList(f.getItemsPerValue, f.getHasValidity, compression(f.getValues, where))
    case P.CompressionCase.PACKED_STRUCT =>
      val p = c.getPackedStruct
      CE.PackedStruct(p.getBitsPerValueList.asScala.map(_.longValue).toIndexedSeq, compression(p.getValues, where))
    case P.CompressionCase.VARIABLE_PACKED_STRUCT =>
      CE.VariablePackedStruct(c.getVariablePackedStruct.getFieldsList.asScala.map { f =>
        CE.PackedField(compression(f.getValue, where),
          if (f.hasBitsPerValue) Some(f.getBitsPerValue) else None,
          if (f.hasBitsPerLength) Some(f.getBitsPerLength) else None)
      }.toIndexedSeq)
    case P.CompressionCase.RANGE => CE.Unknown("range")
    case P.CompressionCase.DELTA => CE.Unknown("delta")
    case _ => throw Errors.corrupt(where, "a compressive encoding is empty")
  }
}
