package io.sparklance.format.write.v21

import org.apache.arrow.vector.ValueVector
import org.apache.arrow.vector.complex.{BaseRepeatedValueVector, LargeListVector, StructVector}

import io.sparklance.format.layout.RepDefLayer
import io.sparklance.format.write.ShortArrayBuilder
import io.sparklance.util.LittleEndian

// Spec: rust/lance-encoding/src/repdef.rs (RepDefBuilder, serialize) and lance-format-facts
// §15.3. In 2.1+ files only leaves have columns; every struct and list above a leaf becomes a
// layer of repetition/definition levels in the leaf's pages.
//
// The shredder walks one leaf's path for a run of top-level rows and produces, per level entry,
// a repetition level, a definition level and (for visible entries) a value slot. It numbers
// definition levels as if every layer could be null (and every list empty): item layers take one
// level, list layers two (null, then empty), innermost first. A page then keeps only the levels
// that occurred (PageLevels), so a column without nulls has no definition levels at all.

/** A node on the way from a top-level field down to a leaf, outermost first. */
private[write] sealed trait PathNode
private[write] object PathNode {
  /** A struct; the path continues into child `child`. */
  final case class Struct(child: Int) extends PathNode
  /** A list, large list or map; the path continues into its items. */
  case object List extends PathNode
}

/** The full-numbered levels of one leaf path (every layer present, every list null-and-empty). */
private[write] final class LevelScheme(val nodes: IndexedSeq[PathNode]) {
  /** Number of list nodes: the highest repetition level. */
  val maxRep: Int = nodes.count(_ == PathNode.List)

  // Levels, innermost first: the leaf's null level is 1, then each node outward.
  private val nullLevel = new Array[Int](nodes.length)
  private val emptyLevel = new Array[Int](nodes.length)
  /** The leaf item's null level. */
  val leafNull: Int = 1
  /** The highest definition level (all layers counted). */
  val maxDef: Int = {
    var next = 2
    var i = nodes.length - 1
    while (i >= 0) {
      nodes(i) match {
        case PathNode.List => nullLevel(i) = next; emptyLevel(i) = next + 1; next += 2
        case _: PathNode.Struct => nullLevel(i) = next; next += 1
      }
      i -= 1
    }
    next - 1
  }
  def nodeNull(i: Int): Int = nullLevel(i)
  def nodeEmpty(i: Int): Int = emptyLevel(i)

  /** Entries with a definition level up to this have a value slot: the layers inside the innermost list. */
  val maxVisible: Int = {
    val innermostList = nodes.lastIndexWhere(_ == PathNode.List)
    if (innermostList < 0) maxDef else nullLevel(innermostList) - 1
  }

  /** The repetition level of node `i` if it is a list (outermost list = maxRep). */
  def listRep(i: Int): Int = nodes.take(i + 1).count(_ == PathNode.List) match { case k => maxRep - k + 1 }

  /**
   * The page's layers (innermost first) given which full levels occur in it, and the map from
   * full levels to the page's levels.
   */
  def pageLayers(occurs: Array[Boolean]): (IndexedSeq[RepDefLayer], Array[Short]) = {
    val remap = new Array[Short](maxDef + 1)
    val layers = IndexedSeq.newBuilder[RepDefLayer]
    var next = 1
    def item(full: Int): Unit =
      if (occurs(full)) { remap(full) = next.toShort; next += 1; layers += RepDefLayer.NullableItem }
      else layers += RepDefLayer.AllValidItem
    item(leafNull)
    var i = nodes.length - 1
    while (i >= 0) {
      nodes(i) match {
        case _: PathNode.Struct => item(nullLevel(i))
        case PathNode.List =>
          val n = occurs(nullLevel(i))
          val e = occurs(emptyLevel(i))
          if (n) { remap(nullLevel(i)) = next.toShort; next += 1 }
          if (e) { remap(emptyLevel(i)) = next.toShort; next += 1 }
          layers += (if (n && e) RepDefLayer.NullAndEmptyList else if (n) RepDefLayer.NullableList
            else if (e) RepDefLayer.EmptyableList else RepDefLayer.AllValidList)
      }
      i -= 1
    }
    (layers.result(), remap)
  }
}

/**
 * Shreds top-level rows into one leaf's levels and values. `rep` and `defs` receive one entry
 * per level entry (rep only when the path has lists; defs lazily, see `defsMaterialized`).
 */
private[write] final class RepDefShredder(scheme: LevelScheme, values: LeafValues) {
  val rep: ShortArrayBuilder = if (scheme.maxRep > 0) new ShortArrayBuilder() else null
  val defs = new ShortArrayBuilder()
  /** False while every definition level so far was 0; `defs` is then empty and `entries` counts. */
  private var defsMaterialized = false
  private var entries = 0L
  /** Which full definition levels occurred since the last `reset`. */
  val occurs = new Array[Boolean](scheme.maxDef + 1)

  def numEntries: Long = entries
  def hasDefs: Boolean = defsMaterialized
  def reset(): Unit = {
    if (rep != null) rep.clear()
    defs.clear(); defsMaterialized = false; entries = 0
    java.util.Arrays.fill(occurs, false)
  }

  /** Shreds rows `[from, from + count)` of the top-level vector `top`. */
  def shred(top: ValueVector, from: Int, count: Int): Unit =
    if (scheme.nodes.isEmpty) shredLeaf(top, from, count)
    else if (scheme.nodes == RepDefShredder.SingleList) shredList(top, from, count)
    else shredPath(top, from, count)

  // A top-level leaf: one entry per row, at most its own null level, values in runs of rows.
  private def shredLeaf(leaf: ValueVector, from: Int, count: Int): Unit = {
    val level = scheme.leafNull
    val nulls = RepDefShredder.nulls(leaf, from, from + count)
    if (nulls == null || !nulls.contains(true)) {
      if (defsMaterialized) defs.appendZeros(count)
      entries += count
      values.appendRun(leaf, from, count)
      return
    }
    occurs(level) = true
    if (!defsMaterialized) { defs.appendZeros(entries.toInt); defsMaterialized = true }
    var i = 0
    while (i < count) {
      if (nulls(i)) { defs.append(level.toShort); values.appendNull(); i += 1 }
      else {
        var j = i + 1
        while (j < count && !nulls(j)) j += 1
        defs.appendZeros(j - i)
        values.appendRun(leaf, from + i, j - i)
        i = j
      }
    }
    entries += count
  }

  // A top-level list of values (array<int>, array<string>), the most common nested leaf: what
  // `shredPath` computes for it, written straight into the level builders, with the items of
  // consecutive rows copied as one run, and no per-entry position arrays.
  private def shredList(list: ValueVector, from: Int, count: Int): Unit = {
    val first = scheme.maxRep.toShort // a row's first item; the others continue it at level 0
    val nullL = scheme.nodeNull(0).toShort
    val emptyL = scheme.nodeEmpty(0).toShort
    val offsets = RepDefShredder.offsets(list, from, from + count)
    val nulls = RepDefShredder.nulls(list, from, from + count)
    @inline def isNull(r: Int): Boolean = nulls != null && nulls(r)
    val leaf = RepDefShredder.items(list)
    val itemsLo = offsets(0).toInt
    // Null when no item in the range is null (Arrow's null count is the whole vector's).
    val itemNulls = RepDefShredder.nulls(leaf, itemsLo, offsets(count).toInt) match {
      case a if a != null && a.contains(true) => a
      case _ => null
    }
    // The batch's level entries: one per null or empty list, one per item of the others.
    var m = 0L
    var r = 0
    while (r < count) {
      val items = offsets(r + 1) - offsets(r)
      if (isNull(r)) { occurs(nullL) = true; m += 1 }
      else if (items == 0) { occurs(emptyL) = true; m += 1 }
      else m += items
      r += 1
    }
    if (itemNulls != null) occurs(scheme.leafNull) = true
    if (!defsMaterialized && (occurs(nullL) || occurs(emptyL) || occurs(scheme.leafNull))) {
      defs.appendZeros(entries.toInt); defsMaterialized = true
    }
    // All are appended as zeros at once; then each row's first entry gets its repetition level
    // and entries that are not a valid item their definition level.
    if (m > Int.MaxValue - 16) throw new IllegalStateException("a batch expands to more than 2^31 list items")
    val repOut = rep.appendZerosIn(m.toInt)
    val defOut = if (defsMaterialized) defs.appendZerosIn(m.toInt) else null
    var at = rep.length - m.toInt // the same index in `defOut`: both hold one level per entry
    entries += m
    val leafNull = scheme.leafNull.toShort
    var runFrom = 0
    var runEnd = 0
    r = 0
    while (r < count) {
      val s = offsets(r).toInt
      val e = offsets(r + 1).toInt
      repOut(at) = first
      if (isNull(r) || s == e) {
        if (defOut != null) defOut(at) = if (isNull(r)) nullL else emptyL
        at += 1
      } else if (itemNulls == null) {
        if (s != runEnd) { if (runEnd > runFrom) values.appendRun(leaf, runFrom, runEnd - runFrom); runFrom = s }
        runEnd = e
        at += e - s
      } else {
        var i = s
        while (i < e) {
          if (itemNulls(i - itemsLo)) {
            if (runEnd > runFrom) values.appendRun(leaf, runFrom, runEnd - runFrom)
            defOut(at) = leafNull
            values.appendNull()
            runFrom = i + 1; runEnd = i + 1
          } else {
            if (i != runEnd) { if (runEnd > runFrom) values.appendRun(leaf, runFrom, runEnd - runFrom); runFrom = i }
            runEnd = i + 1
          }
          at += 1
          i += 1
        }
      }
      r += 1
    }
    if (runEnd > runFrom) values.appendRun(leaf, runFrom, runEnd - runFrom)
  }

  /** The general walk down any path (package-visible so that tests can hold `shredList` to it). */
  private[v21] def shredPath(top: ValueVector, from: Int, count: Int): Unit = {
    // The range of each vector these rows cover, below null parents too: a layer is nullable in a
    // page when its vector has a null anywhere in that range, as the Rust writer decides from
    // each Arrow array's null buffer (an all-null struct's members are nullable layers too).
    var lo = from
    var hi = from + count
    var n = count
    var pos = new Array[Int](n)
    var i = 0
    while (i < n) { pos(i) = from + i; i += 1 }
    var reps: Array[Short] = if (scheme.maxRep > 0) Array.fill(n)(scheme.maxRep.toShort) else null
    var d = new Array[Short](n)
    var vec = top
    var k = 0
    while (k < scheme.nodes.length) {
      scheme.nodes(k) match {
        case PathNode.Struct(child) =>
          nullsInRange(vec, lo, hi, pos, d, n, scheme.nodeNull(k))
          vec = vec.asInstanceOf[StructVector].getChildByOrdinal(child)
        case PathNode.List =>
          val nullL = scheme.nodeNull(k).toShort
          val emptyL = scheme.nodeEmpty(k).toShort
          // An item after the first continues this list: its repetition level is the next inner
          // list's (0 for the innermost list); the first item keeps the level its parent started.
          val continued = (scheme.listRep(k) - 1).toShort
          // The range's offsets and validity read out of Arrow's buffers once, in bulk.
          val offsets = RepDefShredder.offsets(vec, lo, hi)
          val nulls = RepDefShredder.nulls(vec, lo, hi)
          val base = lo
          @inline def start(p: Int): Long = offsets(p - base)
          @inline def isNull(p: Int): Boolean = nulls != null && nulls(p - base)
          if (nulls != null && nulls.contains(true)) occurs(nullL) = true
          var p = lo
          while (p < hi) { if (!isNull(p) && start(p + 1) == start(p)) { occurs(emptyL) = true; p = hi }; p += 1 }
          val childLo = if (hi > lo) start(lo).toInt else 0
          val childHi = if (hi > lo) start(hi).toInt else 0
          lo = childLo; hi = childHi
          var m = 0L
          i = 0
          while (i < n) {
            if (d(i) == 0 && !isNull(pos(i))) m += math.max(1L, start(pos(i) + 1) - start(pos(i))) else m += 1
            i += 1
          }
          if (m > Int.MaxValue - 16) throw new IllegalStateException("a batch expands to more than 2^31 list items")
          val pos2 = new Array[Int](m.toInt)
          val rep2 = new Array[Short](m.toInt)
          val d2 = new Array[Short](m.toInt)
          var j = 0
          i = 0
          while (i < n) {
            if (d(i) != 0) { pos2(j) = pos(i); rep2(j) = reps(i); d2(j) = d(i); j += 1 }
            else if (isNull(pos(i))) { rep2(j) = reps(i); d2(j) = nullL; j += 1 }
            else {
              val s = start(pos(i)); val e = start(pos(i) + 1)
              if (s == e) { rep2(j) = reps(i); d2(j) = emptyL; j += 1 }
              else {
                var c = s
                while (c < e) { pos2(j) = c.toInt; rep2(j) = if (c == s) reps(i) else continued; j += 1; c += 1 }
              }
            }
            i += 1
          }
          pos = pos2; reps = rep2; d = d2; n = m.toInt
          vec = RepDefShredder.items(vec)
      }
      k += 1
    }
    nullsInRange(vec, lo, hi, pos, d, n, scheme.leafNull)
    emit(vec, pos, reps, d, n)
  }

  /**
   * Notes whether rows `[lo, hi)` of `vec` hold a null (the layer's nullability in this page) and
   * gives the entries still defined there that land on a null the level `level`. The range's
   * validity is read once, in bulk: entries of a defined parent always fall inside it.
   */
  private def nullsInRange(vec: ValueVector, lo: Int, hi: Int, pos: Array[Int], d: Array[Short], n: Int, level: Int): Unit = {
    val nulls = RepDefShredder.nulls(vec, lo, hi)
    if (nulls != null) {
      if (!occurs(level) && nulls.contains(true)) occurs(level) = true
      var i = 0
      while (i < n) { if (d(i) == 0 && nulls(pos(i) - lo)) d(i) = level.toShort; i += 1 }
    }
  }

  private def emit(leaf: ValueVector, pos: Array[Int], reps: Array[Short], d: Array[Short], n: Int): Unit = {
    if (rep != null) rep.appendAll(reps, n)
    var anyDef = false
    var i = 0
    while (i < n) { if (d(i) != 0) { anyDef = true; occurs(d(i)) = true }; i += 1 }
    if (anyDef && !defsMaterialized) { defs.appendZeros(entries.toInt); defsMaterialized = true }
    if (defsMaterialized) defs.appendAll(d, n)
    entries += n
    // Value slots: runs of consecutive Arrow positions of valid items are copied at once.
    val maxVisible = scheme.maxVisible
    i = 0
    while (i < n) {
      if (d(i) == 0) {
        var j = i + 1
        while (j < n && d(j) == 0 && pos(j) == pos(j - 1) + 1) j += 1
        values.appendRun(leaf, pos(i), j - i)
        i = j
      } else {
        if (d(i) <= maxVisible) values.appendNull()
        i += 1
      }
    }
  }
}

private[write] object RepDefShredder {
  private val SingleList: IndexedSeq[PathNode] = IndexedSeq(PathNode.List)

  /** The items vector of a list, large list or map vector. */
  def items(vec: ValueVector): ValueVector = vec match {
    case l: LargeListVector => l.getDataVector
    case l: BaseRepeatedValueVector => l.getDataVector
    case other => throw new IllegalStateException(s"not a list vector: ${other.getClass}")
  }

  /** Offsets `lo..hi` (inclusive) of a list, large list or map vector. */
  def offsets(vec: ValueVector, lo: Int, hi: Int): Array[Long] = {
    val n = hi - lo + 1
    val out = new Array[Long](n)
    vec match {
      case l: LargeListVector =>
        val raw = new Array[Byte](n * 8)
        l.getOffsetBuffer.getBytes(lo.toLong * 8, raw, 0, raw.length)
        var i = 0
        while (i < n) { out(i) = LittleEndian.getLong(raw, 8 * i); i += 1 }
      case l: BaseRepeatedValueVector =>
        val raw = new Array[Byte](n * 4)
        l.getOffsetBuffer.getBytes(lo.toLong * 4, raw, 0, raw.length)
        var i = 0
        while (i < n) { out(i) = LittleEndian.getInt(raw, 4 * i).toLong; i += 1 }
      case other => throw new IllegalStateException(s"not a list vector: ${other.getClass}")
    }
    out
  }

  /** Which of rows `[lo, hi)` of `vec` are null, or null when none can be. */
  def nulls(vec: ValueVector, lo: Int, hi: Int): Array[Boolean] =
    if (vec.getNullCount == 0) null
    else {
      val out = new Array[Boolean](hi - lo)
      var i = lo
      while (i < hi) { out(i - lo) = vec.isNull(i); i += 1 }
      out
    }
}
