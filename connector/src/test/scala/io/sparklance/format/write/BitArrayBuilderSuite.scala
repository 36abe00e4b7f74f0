package io.sparklance.format.write

import scala.util.Random

import org.apache.arrow.memory.RootAllocator
import org.scalatest.funsuite.AnyFunSuite

/** The bit builder against a plain Boolean model: single bits, runs of ones and slices of Arrow bitmaps at any alignment. */
class BitArrayBuilderSuite extends AnyFunSuite {

  test("append, appendOnes and appendBits build the bits a Boolean sequence says, at every alignment") {
    val allocator = new RootAllocator()
    val rnd = new Random(7)
    val source = Array.fill(300)(rnd.nextBoolean())
    val buf = allocator.buffer(64)
    try {
      buf.setZero(0, 64)
      source.indices.foreach(i => if (source(i)) buf.setByte(i >>> 3, buf.getByte(i >>> 3) | (1 << (i & 7))))
      for (round <- 0 until 200) {
        val b = new BitArrayBuilder
        val model = scala.collection.mutable.ArrayBuffer.empty[Boolean]
        (0 until 6).foreach { _ =>
          rnd.nextInt(3) match {
            case 0 => val x = rnd.nextBoolean(); b.append(x); model += x
            case 1 => val k = rnd.nextInt(40); b.appendOnes(k); model ++= Seq.fill(k)(true)
            case _ =>
              val from = rnd.nextInt(200); val k = rnd.nextInt(90)
              b.appendBits(buf, from, k); model ++= source.slice(from, from + k)
          }
        }
        val bits = b.toArray
        assert(b.length == model.length, s"round $round")
        assert(bits.length == (model.length + 7) / 8, s"round $round")
        assert(model.indices.forall(i => ((bits(i >>> 3) >> (i & 7)) & 1) == (if (model(i)) 1 else 0)), s"round $round")
        assert(bits.indices.forall(j => (j * 8 until j * 8 + 8).forall(i => i < model.length || ((bits(j) >> (i & 7)) & 1) == 0)), s"round $round: padding bits set")
        val from = if (model.isEmpty) 0 else rnd.nextInt(model.length)
        val k = model.length - from
        assert(b.countSet(from, k) == model.slice(from, from + k).count(identity), s"round $round")
      }
    } finally { buf.close(); allocator.close() }
  }
}
