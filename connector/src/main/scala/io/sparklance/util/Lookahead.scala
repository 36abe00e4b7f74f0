package io.sparklance.util

import java.util.concurrent.{ExecutionException, Executors, Future}

/**
 * `load` applied to each of `items` on up to `threads` threads, at most `ahead` items ahead of
 * the consumer, the results handed out in the order of `items`: for work that is mostly waiting
 * on storage or decoding one small file after another (a compaction opening many one-row
 * fragments, a cleanup reading every manifest), done in order on one thread. A failure of
 * `load` is thrown by the `next()` that reaches it. `close()` (after a failure, or to stop
 * early) stops the threads and hands the results loaded but not consumed to `release`.
 */
final class Lookahead[A, B](items: IndexedSeq[A], threads: Int, ahead: Int, threadName: String)(load: A => B,
    release: B => Unit = (_: B) => ()) extends Iterator[B] with AutoCloseable {
  require(threads > 0 && ahead > 0, "threads and ahead must be positive")

  private val pool = Executors.newFixedThreadPool(math.max(1, math.min(threads, items.length)), { (r: Runnable) =>
    val t = new Thread(r, threadName)
    t.setDaemon(true)
    t
  })
  private val pending = scala.collection.mutable.Queue.empty[Future[B]]
  private var submitted = 0

  private def fill(): Unit = while (pending.length < ahead && submitted < items.length) {
    val item = items(submitted)
    pending.enqueue(pool.submit(() => load(item)))
    submitted += 1
  }
  fill()

  override def hasNext: Boolean = {
    val more = pending.nonEmpty
    if (!more) pool.shutdown()
    more
  }

  override def next(): B = {
    val head = pending.dequeue()
    fill()
    try head.get()
    catch { case e: ExecutionException => throw e.getCause }
  }

  override def close(): Unit = {
    pool.shutdownNow()
    pending.foreach(f => try release(f.get()) catch { case _: Throwable => () })
    pending.clear()
  }
}
