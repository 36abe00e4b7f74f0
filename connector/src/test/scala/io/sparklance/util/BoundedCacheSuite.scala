package io.sparklance.util

import org.scalatest.funsuite.AnyFunSuite

class BoundedCacheSuite extends AnyFunSuite {
  private final case class Value(name: String, bytes: Long)

  test("a key is loaded once, then served from the cache") {
    val cache = new BoundedCache[String, Value](100, _.bytes)
    var loads = 0
    def get(k: String) = cache.getOrLoad(k) { loads += 1; Value(k, 10) }
    val first = get("a")
    assert(get("a") eq first)
    assert(loads == 1 && cache.hits == 1 && cache.misses == 1)
    assert(get("b").name == "b" && loads == 2 && cache.size == 2 && cache.weight == 20)
  }

  test("the least recently used entries go first once the bound is passed") {
    val cache = new BoundedCache[String, Value](30, _.bytes)
    Seq("a", "b", "c").foreach(k => cache.getOrLoad(k)(Value(k, 10)))
    cache.getOrLoad("a")(fail("a is cached")) // a is now the most recent: b goes first
    cache.getOrLoad("d")(Value("d", 10))
    assert(cache.get("b").isEmpty && cache.get("a").isDefined && cache.get("c").isDefined && cache.get("d").isDefined)
    assert(cache.weight == 30)
    cache.getOrLoad("e")(Value("e", 25)) // needs the room of three entries
    assert(cache.size == 1 && cache.get("e").isDefined && cache.weight == 25)
  }

  test("a value larger than the bound is returned but not kept; failures are not kept") {
    val cache = new BoundedCache[String, Value](30, _.bytes)
    cache.getOrLoad("small")(Value("small", 10))
    assert(cache.getOrLoad("big")(Value("big", 31)).name == "big")
    assert(cache.get("big").isEmpty && cache.get("small").isDefined && cache.weight == 10)
    intercept[IllegalStateException](cache.getOrLoad("bad")(throw new IllegalStateException("no")))
    assert(cache.get("bad").isEmpty && cache.getOrLoad("bad")(Value("bad", 1)).name == "bad")
  }

  test("threads sharing the cache see every key's value and never pass the bound") {
    val cache = new BoundedCache[Int, Value](500, _.bytes)
    val pool = java.util.concurrent.Executors.newFixedThreadPool(4)
    try {
      val futures = (0 until 4).map { t =>
        pool.submit(() => (0 until 5000).forall { i => val k = (i * 7 + t) % 97; cache.getOrLoad(k)(Value(k.toString, 10)).name == k.toString })
      }
      assert(futures.forall(_.get()))
      assert(cache.weight <= 500 && cache.size == 50)
    } finally pool.shutdown()
  }
}
