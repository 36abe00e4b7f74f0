package io.sparklance.format.v21

import scala.collection.mutable

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.FieldVector
import org.apache.arrow.vector.complex.{LargeListVector, ListVector, StructVector}
import org.apache.arrow.vector.types.pojo.Field

import io.sparklance.format.LanceField
import io.sparklance.format.arrow.ArrowVectors
import io.sparklance.format.encoding.{BitCopy, DecodedValues}
import io.sparklance.format.layout.RepDefLayer
import io.sparklance.util.Errors
import io.sparklance.util.ScalaCompat._

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Repetition and definition
// levels"). In 2.1+ files a nested field is stored as its leaves; every leaf carries, per
// item, a repetition level and a definition level covering every layer from itself out to
// the top-level field (innermost layer first). This rebuilds the Arrow structure.
//
// Definition levels are renumbered per page (a page's layers may be all-valid on one page
// and nullable on the next), so each item is first reduced to the layer at which it stops
// (null, or an empty list), or -1 when it is valid all the way down. Then, with list
// layers l1 < l2 < … < lm (innermost first), the slots of a node at layer k are the items
// that start an element at k's "segment" — layers [l_s, l_{s+1}) — i.e. items whose
// repetition level is at least s and that do not stop at or above l_{s+1}. A slot is valid
// when its item stops below k; a list slot stopping exactly at k is null or empty; a list's
// children are the next segment's slots from its item up to the next slot of its own.

/** One leaf column's items for a batch, with definition levels reduced to stop layers. */
final class LeafStream(
    val numItems: Int,
    val reps: Array[Short],
    val stopLayer: Array[Byte],
    val stopIsEmpty: Array[Boolean],
    val values: IndexedSeq[DecodedValues],
    val listLayers: IndexedSeq[Int]) {

  private val cache = mutable.HashMap.empty[Int, Array[Int]]

  private def rep(i: Int): Int = if (reps == null) listLayers.length else reps(i)

  /** Items that open a slot in segment `s` (0 = below the innermost list). */
  def slots(s: Int): Array[Int] = cache.getOrElseUpdate(s, {
    val upper = if (s < listLayers.length) listLayers(s) else Int.MaxValue
    val out = mutable.ArrayBuilder.make[Int]
    var i = 0
    while (i < numItems) {
      if (rep(i) >= s && stopLayer(i) < upper) out += i
      i += 1
    }
    out.result()
  })

  def segmentOf(layer: Int): Int = listLayers.count(_ <= layer)
}

object LeafStream {

  /** Concatenates the pieces of one leaf, reducing each page's definition levels. */
  def apply(pieces: IndexedSeq[LeafData], numLayers: Int, listLayers: IndexedSeq[Int], where: String): LeafStream = {
    val n = pieces.iterator.map(_.numItems).sum
    val anyReps = pieces.exists(_.reps != null)
    val reps = if (anyReps || listLayers.nonEmpty) new Array[Short](n) else null
    val stop = new Array[Byte](n)
    val empty = new Array[Boolean](n)
    var pos = 0
    pieces.foreach { p =>
      if (p.layers.length != numLayers)
        throw Errors.corrupt(where, s"a page has ${p.layers.length} repetition/definition layers; the schema needs $numLayers")
      p.layers.indices.foreach { k =>
        if (p.layers(k).isList != listLayers.contains(k))
          throw Errors.corrupt(where, s"layer $k of a page is ${p.layers(k)}, which does not match the schema")
      }
      // Definition level d (1-based) -> (layer, empty?): numbered from the innermost layer out.
      val meaning = mutable.ArrayBuffer.empty[(Int, Boolean)]
      p.layers.zipWithIndex.foreach {
        case (RepDefLayer.NullableItem | RepDefLayer.NullableList, k) => meaning += ((k, false))
        case (RepDefLayer.EmptyableList, k) => meaning += ((k, true))
        case (RepDefLayer.NullAndEmptyList, k) => meaning += ((k, false)); meaning += ((k, true))
        case _ =>
      }
      var i = 0
      while (i < p.numItems) {
        val d = if (p.defs == null) 0 else p.defs(i).toInt
        if (d == 0) stop(pos + i) = -1
        else if (d > meaning.length) throw Errors.corrupt(where, s"definition level $d exceeds the ${meaning.length} levels of the page")
        else { stop(pos + i) = meaning(d - 1)._1.toByte; empty(pos + i) = meaning(d - 1)._2 }
        if (reps != null) {
          val r = if (p.reps == null) listLayers.length else p.reps(i).toInt
          if (r < 0 || r > listLayers.length) throw Errors.corrupt(where, s"repetition level $r exceeds ${listLayers.length}")
          reps(pos + i) = r.toShort
        }
        i += 1
      }
      pos += p.numItems
    }
    new LeafStream(n, reps, stop, empty, pieces.map(_.values), listLayers)
  }
}

object RepDefUnraveler {

  /** Leaves of a field in pre-order: the fields that own columns in 2.1+ files. */
  def leaves(field: LanceField): IndexedSeq[LanceField] =
    if (field.children.isEmpty) IndexedSeq(field) else field.children.flatMap(leaves)

  /** Layers from `leaf` out to `top`, innermost first: which of them are lists. */
  def listLayers(top: LanceField, leaf: LanceField): IndexedSeq[Int] = {
    val path = pathTo(top, leaf.id).getOrElse(throw new IllegalArgumentException(s"${leaf.name} is not under ${top.name}"))
    path.reverse.zipWithIndex.collect { case (f, k) if f.isList || f.isMap => k }.toIndexedSeq
  }

  private def pathTo(node: LanceField, id: Int): Option[List[LanceField]] =
    if (node.id == id) Some(List(node))
    else node.children.iterator.flatMap(c => pathTo(c, id)).nextOption().map(node :: _)

  def depth(top: LanceField, leaf: LanceField): Int = pathTo(top, leaf.id).map(_.length - 1).getOrElse(-1)

  /**
   * Builds the vector of top-level `field` for `rows` rows from its leaves' streams
   * (keyed by leaf field id).
   */
  def build(field: LanceField, arrow: Field, streams: Map[Int, LeafStream], rows: Int,
            allocator: BufferAllocator, where: String): FieldVector = {
    val v = node(field, field, arrow, 0, streams, allocator, where)
    if (v.getValueCount != rows) {
      v.close()
      throw Errors.corrupt(where, s"the levels describe ${v.getValueCount} rows where $rows were read")
    }
    v
  }

  private def node(top: LanceField, f: LanceField, arrow: Field, nodeDepth: Int, streams: Map[Int, LeafStream],
                   allocator: BufferAllocator, where: String): FieldVector = {
    val first = leaves(f).head
    val s = streams(first.id)
    val layer = depth(top, first) - nodeDepth
    val slots = s.slots(s.segmentOf(layer))
    val n = slots.length
    if (f.children.isEmpty) {
      // A leaf: its slots are exactly the visible items, one decoded value each.
      val validity = new Array[Byte]((n + 7) / 8)
      var j = 0
      while (j < n) { if (s.stopLayer(slots(j)) < 0) BitCopy.setBit(validity, j); j += 1 }
      ArrowAssembler.leaf(arrow, n, validity, s.values, allocator, s"$where, field '${f.name}'")
    } else {
      val vector = ArrowVectors.create(arrow, allocator)
      try {
        val validity = new Array[Byte]((n + 7) / 8)
        var j = 0
        while (j < n) {
          val st = s.stopLayer(slots(j))
          if (st < layer || (st == layer && (f.isList || f.isMap) && s.stopIsEmpty(slots(j)))) BitCopy.setBit(validity, j)
          j += 1
        }
        vector match {
          case sv: StructVector =>
            ArrowAssembler.load(sv, n, validity, Seq.empty, allocator)
            f.children.zipWithIndex.foreach { case (c, ci) =>
              val child = node(top, c, arrow.getChildren.get(ci), nodeDepth + 1, streams, allocator, where)
              try {
                if (child.getValueCount != n)
                  throw Errors.corrupt(where, s"struct '${f.name}' has $n slots but its child '${c.name}' has ${child.getValueCount}")
                child.makeTransferPair(sv.getChildByOrdinal(ci)).transfer()
              } finally child.close()
            }
          case lv @ (_: ListVector | _: LargeListVector) =>
            val childSlots = s.slots(s.segmentOf(layer) - 1)
            val large = lv.isInstanceOf[LargeListVector]
            // Children of slot j: child slots whose item lies in [slots(j), slots(j + 1)).
            val ends = new Array[Int](n + 1)
            var c = 0
            var k = 0
            while (k < n) {
              val end = if (k + 1 < n) slots(k + 1) else Int.MaxValue
              if (s.stopLayer(slots(k)) < layer) { while (c < childSlots.length && childSlots(c) < end) c += 1 }
              else if (c < childSlots.length && childSlots(c) < end)
                throw Errors.corrupt(where, s"a null or empty list of '${f.name}' has items")
              ends(k + 1) = c
              k += 1
            }
            if (c != childSlots.length) throw Errors.corrupt(where, s"${childSlots.length - c} items of '${f.name}' belong to no list")
            val ow = if (large) 8 else 4
            val offsets = allocator.buffer((n.toLong + 1) * ow)
            k = 0
            while (k <= n) { if (large) offsets.setLong(k.toLong * 8, ends(k).toLong) else offsets.setInt(k.toLong * 4, ends(k)); k += 1 }
            ArrowAssembler.load(vector, n, validity, Seq(offsets), allocator)
            val child = node(top, f.children.head, arrow.getChildren.get(0), nodeDepth + 1, streams, allocator, where)
            val data = lv match {
              case l: ListVector => l.getDataVector
              case l: LargeListVector => l.getDataVector
            }
            try child.makeTransferPair(data).transfer() finally child.close()
          case _ => throw Errors.unsupported(s"nested Arrow type ${arrow.getType}", where)
        }
        vector
      } catch { case t: Throwable => vector.close(); throw t }
    }
  }
}
