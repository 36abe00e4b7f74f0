package io.sparklance.format.proto

import scala.jdk.CollectionConverters._

import com.google.protobuf.{ByteString, InvalidProtocolBufferException}

import io.sparklance.format.EncodingAny
import io.sparklance.format.encoding.{BufferCompression, CompressionScheme, CompressiveEncoding => CE}
import io.sparklance.format.layout.{PageLayout, RepDefLayer}
import io.sparklance.util.Errors

// Spec: protos/lance/encodings_v2_1.proto. Turns the page description of a 2.1/2.2
// file into the Scala PageLayout / CompressiveEncoding trees, and those trees back into the
// protobuf a writer stores.

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

  // ---- build side (the file writer) ----

  def toAny(layout: PageLayout): EncodingAny = EncodingAny(PageLayoutTypeUrl, layoutProto(layout).toByteArray)

  private def layerProto(l: RepDefLayer): Encodings21Protos.RepDefLayer = l match {
    case RepDefLayer.AllValidItem => Encodings21Protos.RepDefLayer.REPDEF_ALL_VALID_ITEM
    case RepDefLayer.AllValidList => Encodings21Protos.RepDefLayer.REPDEF_ALL_VALID_LIST
    case RepDefLayer.NullableItem => Encodings21Protos.RepDefLayer.REPDEF_NULLABLE_ITEM
    case RepDefLayer.NullableList => Encodings21Protos.RepDefLayer.REPDEF_NULLABLE_LIST
    case RepDefLayer.EmptyableList => Encodings21Protos.RepDefLayer.REPDEF_EMPTYABLE_LIST
    case RepDefLayer.NullAndEmptyList => Encodings21Protos.RepDefLayer.REPDEF_NULL_AND_EMPTY_LIST
  }

  private def layoutProto(layout: PageLayout): PL = {
    val b = PL.newBuilder()
    layout match {
      case m: PageLayout.MiniBlock =>
        val mb = Encodings21Protos.MiniBlockLayout.newBuilder()
        m.repCompression.foreach(c => mb.setRepCompression(compressionProto(c)))
        m.defCompression.foreach(c => mb.setDefCompression(compressionProto(c)))
        mb.setValueCompression(compressionProto(m.valueCompression))
        m.dictionary.foreach(c => mb.setDictionary(compressionProto(c)))
        mb.setNumDictionaryItems(m.numDictionaryItems)
        m.layers.foreach(l => mb.addLayers(layerProto(l)))
        mb.setNumBuffers(m.numBuffers).setRepetitionIndexDepth(m.repetitionIndexDepth).setNumItems(m.numItems)
          .setHasLargeChunk(m.hasLargeChunk)
        b.setMiniBlockLayout(mb)
      case f: PageLayout.FullZip =>
        val fb = Encodings21Protos.FullZipLayout.newBuilder().setBitsRep(f.bitsRep).setBitsDef(f.bitsDef)
        f.bitsPerValue.foreach(v => fb.setBitsPerValue(v.toInt))
        f.bitsPerOffset.foreach(v => fb.setBitsPerOffset(v))
        fb.setNumItems(f.numItems.toInt).setNumVisibleItems(f.numVisibleItems.toInt)
          .setValueCompression(compressionProto(f.valueCompression))
        f.layers.foreach(l => fb.addLayers(layerProto(l)))
        b.setFullZipLayout(fb)
      case c: PageLayout.Constant =>
        val cb = Encodings21Protos.ConstantLayout.newBuilder()
        c.layers.foreach(l => cb.addLayers(layerProto(l)))
        c.inlineValue.foreach(v => cb.setInlineValue(ByteString.copyFrom(v)))
        c.repCompression.foreach(r => cb.setRepCompression(compressionProto(r)))
        c.defCompression.foreach(d => cb.setDefCompression(compressionProto(d)))
        cb.setNumRepValues(c.numRepValues).setNumDefValues(c.numDefValues)
        b.setConstantLayout(cb)
      case bl: PageLayout.Blob =>
        val bb = Encodings21Protos.BlobLayout.newBuilder().setInnerLayout(layoutProto(bl.inner))
        bl.layers.foreach(l => bb.addLayers(layerProto(l)))
        b.setBlobLayout(bb)
    }
    b.build()
  }

  private def bufferCompressionProto(c: BufferCompression): Encodings21Protos.BufferCompression = {
    val b = Encodings21Protos.BufferCompression.newBuilder().setScheme(c.scheme match {
      case CompressionScheme.Lz4 => Encodings21Protos.CompressionScheme.COMPRESSION_ALGORITHM_LZ4
      case CompressionScheme.Zstd => Encodings21Protos.CompressionScheme.COMPRESSION_ALGORITHM_ZSTD
    })
    c.level.foreach(l => b.setLevel(l))
    b.build()
  }

  def compressionProto(e: CE): P = {
    val b = P.newBuilder()
    e match {
      case CE.Flat(bits, data) =>
        val f = Encodings21Protos.Flat.newBuilder().setBitsPerValue(bits.toLong)
        data.foreach(d => f.setData(bufferCompressionProto(d)))
        b.setFlat(f)
      case CE.Variable(offsets, values) =>
        val v = Encodings21Protos.Variable.newBuilder().setOffsets(compressionProto(offsets))
        values.foreach(d => v.setValues(bufferCompressionProto(d)))
        b.setVariable(v)
      case CE.Constant(value) =>
        val c = Encodings21Protos.Constant.newBuilder()
        value.foreach(v => c.setValue(ByteString.copyFrom(v)))
        b.setConstant(c)
      case CE.OutOfLineBitpacking(bits, values) =>
        b.setOutOfLineBitpacking(Encodings21Protos.OutOfLineBitpacking.newBuilder()
          .setUncompressedBitsPerValue(bits.toLong).setValues(compressionProto(values)))
      case CE.InlineBitpacking(bits, values) =>
        // The reader refuses buffer compression inside inline bit packing, so the writer never makes it.
        if (values.isDefined) throw new IllegalArgumentException("cannot write inline bit packing with buffer compression")
        b.setInlineBitpacking(Encodings21Protos.InlineBitpacking.newBuilder().setUncompressedBitsPerValue(bits.toLong))
      case CE.Fsst(table, values) =>
        b.setFsst(Encodings21Protos.Fsst.newBuilder().setSymbolTable(ByteString.copyFrom(table)).setValues(compressionProto(values)))
      case CE.Dictionary(indices, items, n) =>
        b.setDictionary(Encodings21Protos.Dictionary.newBuilder()
          .setIndices(compressionProto(indices)).setItems(compressionProto(items)).setNumDictionaryItems(n.toInt))
      case CE.Rle(values, runs) =>
        b.setRle(Encodings21Protos.Rle.newBuilder().setValues(compressionProto(values)).setRunLengths(compressionProto(runs)))
      case CE.ByteStreamSplit(values) =>
        b.setByteStreamSplit(Encodings21Protos.ByteStreamSplit.newBuilder().setValues(compressionProto(values)))
      case CE.General(c, values) =>
        b.setGeneral(Encodings21Protos.General.newBuilder().setCompression(bufferCompressionProto(c)).setValues(compressionProto(values)))
      case CE.FixedSizeList(n, hasValidity, values) =>
        b.setFixedSizeList(Encodings21Protos.FixedSizeList.newBuilder()
          .setItemsPerValue(n).setHasValidity(hasValidity).setValues(compressionProto(values)))
      case CE.PackedStruct(bits, values) =>
        val p = Encodings21Protos.PackedStruct.newBuilder().setValues(compressionProto(values))
        bits.foreach(x => p.addBitsPerValue(x))
        b.setPackedStruct(p)
      case CE.VariablePackedStruct(fields) =>
        val v = Encodings21Protos.VariablePackedStruct.newBuilder()
        fields.foreach { f =>
          val fb = Encodings21Protos.VariablePackedStruct.FieldEncoding.newBuilder().setValue(compressionProto(f.value))
          f.bitsPerValue.foreach(x => fb.setBitsPerValue(x))
          f.bitsPerLength.foreach(x => fb.setBitsPerLength(x))
          v.addFields(fb)
        }
        b.setVariablePackedStruct(v)
      case CE.Unknown(name) => throw new IllegalArgumentException(s"cannot write the unknown encoding '$name'")
    }
    b.build()
  }
}
