package io.sparklance.format.write.v21

import org.apache.arrow.vector.ValueVector

import io.sparklance.format.{FileVersion, LanceField}
import io.sparklance.format.encoding._
import io.sparklance.format.layout.{PageLayout, RepDefLayer}
import io.sparklance.format.proto.PageLayoutCodec
import io.sparklance.format.write.EncodedPage

// Spec: rust/lance-encoding/src/encodings/logical/primitive.rs (PrimitiveStructuralEncoder:
// maybe_encode, do_flush, encode_page) and lance-format-facts §16. One leaf column of a 2.1/2.2
// file: rows are shredded into levels and value slots as they arrive; a page is flushed when the
// buffered values pass the budget, in the layout pylance picks for it:
//  1. no value slot at all (every list null or empty): levels only (constant layout);
//  2. every slot null: no buffers for a top-level leaf, levels only below structs or lists;
//  3. (2.2) every valid value the same: the value once (constant layout);
//  4. few distinct strings, 64-bit (2.2) or 128-bit values: mini-block over a dictionary;
//  5. values narrower than 256 bytes (or mini-block requested): mini-block;
//  6. otherwise full-zip.

private[write] final class LeafColumnEncoder(
    val field: LanceField,
    scheme: LevelScheme,
    values: LeafValues,
    bitsPerOffset: Int,
    column: Int,
    version: FileVersion,
    pageBytes: Long,
    compression: CompressionStrategy) {

  private val shredder = new RepDefShredder(scheme, values)
  private var rowsBuffered = 0L
  private var firstRow = 0L
  private val requested = field.metadata.get("lance-encoding:structural-encoding").map(_.toLowerCase)
  // A dictionary-typed field (`dict:<values>:<keys>:false`) is always stored with a dictionary.
  private val dictionaryKeyBytes: Option[Int] =
    if (!field.logicalType.startsWith("dict:")) None
    else field.logicalType.split(':').reverse.drop(1).headOption.collect {
      case "int8" | "uint8" => 1
      case "int16" | "uint16" => 2
      case "int32" | "uint32" => 4
      case "int64" | "uint64" => 8
    }.orElse(Some(4))
  private val fieldCompression = FieldCompression.fromMetadata(field.name, field.metadata, bitsPerOffset,
    binary = field.logicalType == "binary" || field.logicalType == "large_binary")
  // Dictionary items are block compressed with lz4 unless the field asks otherwise
  // (primitive.rs resolve_dict_values_compression_metadata).
  private val dictionaryCompression = FieldCompression.fromMetadata(field.name,
    Map(FieldCompression.CompressionKey -> field.metadata.getOrElse("lance-encoding:dict-values-compression", "lz4")) ++
      field.metadata.get("lance-encoding:dict-values-compression-level").map(FieldCompression.LevelKey -> _),
    bitsPerOffset)

  def append(top: ValueVector, from: Int, count: Int): Unit = {
    shredder.shred(top, from, count)
    rowsBuffered += count
  }

  def bufferedBytes: Long = values.bytes + shredder.numEntries * (if (scheme.maxRep > 0) 4 else 2)
  def hasRows: Boolean = rowsBuffered > 0
  /** Buffered bytes per buffered row (0 when nothing is buffered). */
  def bytesPerRow: Double = if (rowsBuffered == 0) 0.0 else bufferedBytes.toDouble / rowsBuffered
  def full: Boolean = bufferedBytes >= pageBytes

  def flush(): EncodedPage = {
    val numEntries = shredder.numEntries.toInt
    // The shredder's own arrays (it is reset when the page is out); entries past `numEntries` are stale.
    val rep = if (shredder.rep != null) shredder.rep.buffer else null
    val (layers, remap) = scheme.pageLayers(shredder.occurs)
    // A layer that may be null in this page has definition levels, even if all of them are 0.
    val defs = if (shredder.hasDefs) {
      val d = shredder.defs.buffer
      var i = 0
      while (i < numEntries) { d(i) = remap(d(i).toInt); i += 1 }
      d
    } else if (shredder.occurs.contains(true)) new Array[Short](numEntries) else null
    var maxVisible = 0
    var l = 1
    while (l <= scheme.maxVisible) { maxVisible = math.max(maxVisible, remap(l).toInt); l += 1 }
    val anyValid = countValid(defs, numEntries) > 0
    val vals = values.take()
    val rows = rowsBuffered
    lazy val constant = ConstantValue.find(vals, validSlot(defs, numEntries, maxVisible), bitsPerOffset)
    lazy val dictionary =
      if (dictionaryKeyBytes.isDefined) Some(DictionaryEncoder.forced(vals, validSlot(defs, numEntries, maxVisible), dictionaryKeyBytes.get))
      else if (requested.contains("fullzip")) None
      else DictionaryEncoder.encode(vals, bitsPerOffset, version >= FileVersion.V2_2, field.metadata)
    val page =
      if (field.blobVersion.isDefined) {
        // The descriptors are never null (nulls are smuggled into them): a plain mini-block page
        // inside a blob layout that carries the field's own layers.
        val (buffers, inner) = miniBlock(vals, None, null, null, vals.count, 0, IndexedSeq(RepDefLayer.AllValidItem))
        (buffers, PageLayout.Blob(inner, layers))
      } else if (vals.count == 0 || !anyValid) {
        if (scheme.nodes.isEmpty) (IndexedSeq.empty, PageLayout.Constant(IndexedSeq(RepDefLayer.NullableItem), None, None, None, 0, 0))
        else levelsOnly(rep, defs, numEntries, layers)
      } else if (version >= FileVersion.V2_2 && dictionaryKeyBytes.isEmpty && constant.isDefined) constantPage(constant.get, rep, defs, numEntries, layers)
      else if (dictionary.isDefined) miniBlock(dictionary.get.indices, Some(dictionary.get.dictionary), rep, defs, numEntries, maxVisible, layers)
      else if (vals.isInstanceOf[StructValues] && vals.asInstanceOf[StructValues].children.exists(_.isInstanceOf[VariableData]))
        fullZip(vals, rep, defs, numEntries, maxVisible, layers)
      else if (requested.contains("miniblock") || (!requested.contains("fullzip") && narrow(vals))) miniBlock(vals, None, rep, defs, numEntries, maxVisible, layers)
      else fullZip(vals, rep, defs, numEntries, maxVisible, layers)
    val out = EncodedPage(column, page._1, rows, firstRow, PageLayoutCodec.toAny(page._2))
    firstRow += rows
    rowsBuffered = 0
    shredder.reset()
    out
  }

  /** Whether value slot `i` holds a valid value: slots follow the visible level entries. */
  private def validSlot(defs: Array[Short], n: Int, maxVisible: Int): Int => Boolean =
    if (defs == null) _ => true else new LeafColumnEncoder.ValidSlots(defs, n, maxVisible)

  // constant.rs encode_constant_page: the levels, when there are any, are stored plain (u16).
  private def constantPage(value: Either[Array[Byte], Array[Byte]], rep: Array[Short], defs: Array[Short], n: Int,
      layers: IndexedSeq[RepDefLayer]): (IndexedSeq[Array[Byte]], PageLayout) = {
    val valueBuffer = value.toOption.toIndexedSeq
    val levels =
      if (rep == null && defs == null) IndexedSeq.empty
      else IndexedSeq(Option(rep).fold(Array.emptyByteArray)(levelBytes(_, n).data), Option(defs).fold(Array.emptyByteArray)(levelBytes(_, n).data))
    (valueBuffer ++ levels, PageLayout.Constant(layers, value.left.toOption, None, None, 0, 0))
  }

  private def countValid(defs: Array[Short], n: Int): Int =
    if (defs == null) n else { var c = 0; var i = 0; while (i < n) { c += (defs(i) - 1) >>> 31; i += 1 }; c } // levels are >= 0

  // primitive.rs is_narrow: every value under 256 bytes.
  private def narrow(v: DecodedValues): Boolean = v match {
    case f: FixedWidthValues => f.bitsPerValue / 8 < 256
    case l: FixedSizeListValues => l.items match {
      case f: FixedWidthValues => l.dimension.toLong * math.max(f.bitsPerValue, 8) / 8 < 256
      case _ => false
    }
    case d: VariableData =>
      var i = 0
      while (i < d.count) { if (d.length(i) >= 256) return false; i += 1 }
      true
    case _ => true
  }

  // A mini-block page's levels as bytes are read only while its chunks are compressed (each
  // chunk's levels are copied into the page), so one array per column serves every page.
  private var repScratch = Array.emptyByteArray
  private var defScratch = Array.emptyByteArray

  /** `levels` as little-endian bytes in `scratch`, or in a larger array that it returns. */
  private def levelBytesIn(scratch: Array[Byte], levels: Array[Short], n: Int): Array[Byte] = {
    val out = if (scratch.length >= 2 * n) scratch else new Array[Byte](math.max(2 * n, math.min(Int.MaxValue - 16L, 2L * scratch.length).toInt))
    java.nio.ByteBuffer.wrap(out).order(java.nio.ByteOrder.LITTLE_ENDIAN).asShortBuffer().put(levels, 0, n)
    out
  }

  /** `levels` as little-endian bytes in an array of their own (a page's buffer). */
  private def levelBytes(levels: Array[Short], n: Int): FixedWidthValues =
    new FixedWidthValues(16, levelBytesIn(Array.emptyByteArray, levels, n), n)

  // primitive.rs encode_complex_all_null: 2.1 stores the levels plain (u16), 2.2 compresses them.
  private def levelsOnly(rep: Array[Short], defs: Array[Short], n: Int, layers: IndexedSeq[RepDefLayer]): (IndexedSeq[Array[Byte]], PageLayout) = {
    val repV = Option(rep).map(levelBytes(_, n))
    val defV = Option(defs).map(levelBytes(_, n))
    if (version < FileVersion.V2_2)
      (IndexedSeq(repV.fold(Array.emptyByteArray)(_.data), defV.fold(Array.emptyByteArray)(_.data)),
        PageLayout.Constant(layers, None, None, None, 0, 0))
    else {
      val r = repV.map { v => val c = compression.levels(v); (c.compress(v), c.encoding) }
      val d = defV.map { v => val c = compression.levels(v); (c.compress(v), c.encoding) }
      (IndexedSeq(r.fold(Array.emptyByteArray)(_._1), d.fold(Array.emptyByteArray)(_._1)),
        PageLayout.Constant(layers, None, r.map(_._2), d.map(_._2), if (rep == null) 0 else n, if (defs == null) 0 else n))
    }
  }

  private def miniBlock(vals: DecodedValues, dictionary: Option[DecodedValues], rep: Array[Short], defs: Array[Short], n: Int,
      maxVisible: Int, layers: IndexedSeq[RepDefLayer]): (IndexedSeq[Array[Byte]], PageLayout) = {
    val (compressed, encoding) = compression.miniBlock(fieldCompression, vals).compress(vals)
    val dict = dictionary.map { d => val c = compression.block(dictionaryCompression, d); (c.compress(d), c.encoding, d.count.toLong) }
    val repAll = if (rep == null) null else { repScratch = levelBytesIn(repScratch, rep, n); new FixedWidthValues(16, repScratch, n) }
    val defAll = if (defs == null) null else { defScratch = levelBytesIn(defScratch, defs, n); new FixedWidthValues(16, defScratch, n) }
    val repC = Option(repAll).map(compression.levels)
    val defC = Option(defAll).map(compression.levels)
    val large = version >= FileVersion.V2_2
    val b = MiniBlockPageWriter.write(compressed, rep, defs, n, maxVisible, scheme.maxRep, repC, defC, large, repAll, defAll)
    (IndexedSeq(b.metadata, b.data) ++ dict.map(_._1) ++ b.repetitionIndex,
      PageLayout.MiniBlock(repC.map(_.encoding), defC.map(_.encoding), encoding, dict.map(_._2), dict.fold(0L)(_._3), layers, compressed.numBuffers,
        if (b.repetitionIndex.isDefined) 1 else 0, vals.count, large))
  }

  private def fullZip(vals: DecodedValues, rep: Array[Short], defs: Array[Short], n: Int, maxVisible: Int,
      layers: IndexedSeq[RepDefLayer]): (IndexedSeq[Array[Byte]], PageLayout) = {
    val compressor = vals match {
      // packed.rs PackedStructVariablePerValueEncoder: each member compressed as its own field would be.
      case s: StructValues => new PackedStruct.VariablePerValue(s.children.zip(field.children).map { case (v, f) =>
        compression.perValue(FieldCompression.fromMetadata(f.name, f.metadata, if (f.logicalType.startsWith("large_")) 64 else 32,
          binary = f.logicalType == "binary" || f.logicalType == "large_binary"), v)
      })
      case _ => compression.perValue(fieldCompression, vals)
    }
    val (data, encoding) = compressor.compress(vals)
    val b = FullZipPageWriter.write(data, rep, defs, n, maxVisible, scheme.maxRep)
    val (bpv, bpo) = data match {
      case PerValueData.Fixed(bits, _, _) => (Some(bits), None)
      case PerValueData.Variable(bits, _) => (None, Some(bits))
    }
    (IndexedSeq(b.zipped) ++ b.repetitionIndex,
      PageLayout.FullZip(b.bitsRep, b.bitsDef, bpv, bpo, n, vals.count, encoding, layers))
  }
}

private object LeafColumnEncoder {
  /**
   * Whether each value slot holds a valid value, found by walking the definition levels as the
   * slots are asked for: the constant check usually stops after a few slots, and the dictionary
   * asks in order, so neither pays for a pass over every level entry up front.
   */
  final class ValidSlots(defs: Array[Short], n: Int, maxVisible: Int) extends (Int => Boolean) {
    private var slot = -1  // the slot last found, at level entry `entry - 1`
    private var entry = 0
    private var valid = false

    def apply(i: Int): Boolean = {
      if (i < slot) { slot = -1; entry = 0 }
      while (slot < i) {
        while (entry < n && defs(entry) > maxVisible) entry += 1
        if (entry == n) throw new IndexOutOfBoundsException(s"value slot $i of ${slot + 1}")
        valid = defs(entry) == 0
        slot += 1
        entry += 1
      }
      valid
    }
  }
}
