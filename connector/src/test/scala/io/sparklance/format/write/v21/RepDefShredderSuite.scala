package io.sparklance.format.write.v21

import java.util.SplittableRandom

import org.apache.arrow.memory.RootAllocator
import org.apache.arrow.vector.IntVector
import org.apache.arrow.vector.complex.ListVector
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType}
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.encoding.FixedWidthValues

/**
 * The shredder's path for a top-level list of values writes what its general walk writes: the
 * same repetition and definition levels, the same levels noted as occurring, and the same value
 * slots, for random lists with null and empty lists, null items, null lists that still own items
 * in Arrow's buffers, and batches starting anywhere.
 */
class RepDefShredderSuite extends AnyFunSuite {
  private val itemField = new Field("item", FieldType.nullable(new ArrowType.Int(32, true)), null)

  /** A list vector of `rows` random rows; null rows own 0-3 items when `nullsOwnItems`. */
  private def randomList(alloc: RootAllocator, rnd: SplittableRandom, rows: Int, nullLists: Double, emptyLists: Double,
      nullItems: Double, nullsOwnItems: Boolean): ListVector = {
    val list = ListVector.empty("l", alloc)
    list.addOrGetVector[IntVector](FieldType.nullable(new ArrowType.Int(32, true)))
    val items = list.getDataVector.asInstanceOf[IntVector]
    var item = 0
    (0 until rows).foreach { r =>
      val kind = rnd.nextDouble()
      val isNull = kind < nullLists
      val len = if (isNull) (if (nullsOwnItems) rnd.nextInt(4) else 0) else if (kind < nullLists + emptyLists) 0 else 1 + rnd.nextInt(19)
      list.startNewValue(r)
      (0 until len).foreach { k =>
        if (rnd.nextDouble() < nullItems) items.setNull(item + k) else items.setSafe(item + k, rnd.nextInt(1000))
      }
      item += len
      list.endValue(r, len)
      if (isNull) list.setNull(r)
    }
    items.setValueCount(item)
    list.setValueCount(rows)
    list
  }

  private def shredded(list: ListVector, batches: Seq[(Int, Int)], general: Boolean) = {
    val scheme = new LevelScheme(IndexedSeq(PathNode.List))
    val values = LeafValues.forType(itemField, "l.item")
    val s = new RepDefShredder(scheme, values)
    batches.foreach { case (from, n) => if (general) s.shredPath(list, from, n) else s.shred(list, from, n) }
    val rep = (0 until s.rep.length).map(s.rep(_))
    val defs = if (s.hasDefs) (0 until s.defs.length).map(s.defs(_)) else Seq.empty
    val v = values.take().asInstanceOf[FixedWidthValues]
    (s.numEntries, rep, defs, s.occurs.toSeq, v.count, v.data.take(v.count * 4).toSeq)
  }

  for {
    (name, nullLists, emptyLists, nullItems, nullsOwnItems) <- Seq(
      ("no nulls, no empty lists", 0.0, 0.0, 0.0, false),
      ("null and empty lists", 0.1, 0.1, 0.0, false),
      ("null items", 0.0, 0.0, 0.2, false),
      ("null lists owning items, null items, empty lists", 0.15, 0.1, 0.1, true))
  } test(s"a top-level list shreds as the general walk does: $name") {
    val alloc = new RootAllocator(Long.MaxValue)
    try {
      (0 until 20).foreach { seed =>
        val rnd = new SplittableRandom(seed)
        val rows = 1 + rnd.nextInt(300)
        val list = randomList(alloc, rnd, rows, nullLists, emptyLists, nullItems, nullsOwnItems)
        try {
          // Batches of random sizes, the first not at row 0 for odd seeds.
          val start = if (seed % 2 == 1) rnd.nextInt(rows) else 0
          val cuts = (start +: (0 until 3).map(_ => start + rnd.nextInt(rows - start + 1)) :+ rows).sorted
          val batches = cuts.zip(cuts.tail).map { case (a, b) => (a, b - a) }.filter(_._2 > 0)
          val fast = shredded(list, batches, general = false)
          val general = shredded(list, batches, general = true)
          assert(fast == general, s"seed $seed, batches $batches")
          assert(fast._1 >= batches.map(_._2).sum, "at least one level entry per row")
        } finally list.close()
      }
    } finally alloc.close()
  }
}
