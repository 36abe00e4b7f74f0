package io.sparklance.testutil

import java.util.concurrent.{CyclicBarrier, Executors, TimeUnit}

import scala.concurrent.duration._
import scala.concurrent.{Await, ExecutionContext, Future}

import io.sparklance.storage.{ObjectStore, PutResult}

/**
 * Races `threads` writers on one [[ObjectStore.putIfAbsent]] per round, all released at once by
 * a barrier, each with bytes of its own (`bytesOf(thread)`). Returns, per round, which threads
 * were told Created and what the file then holds.
 */
object PutRace {
  final case class Round(path: String, created: Seq[Int], alreadyExists: Int, content: Array[Byte])

  def run(store: ObjectStore, threads: Int, rounds: Int, pathOf: Int => String, bytesOf: Int => Array[Byte]): Seq[Round] = {
    val pool = Executors.newFixedThreadPool(threads)
    implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)
    try Range(0, rounds).map { r =>
      val path = pathOf(r)
      val barrier = new CyclicBarrier(threads)
      val outcomes = Await.result(Future.sequence((0 until threads).map { t =>
        Future { barrier.await(30, TimeUnit.SECONDS); t -> store.putIfAbsent(path, bytesOf(t)) }
      }), 2.minutes)
      Round(path, outcomes.collect { case (t, PutResult.Created) => t }, outcomes.count(_._2 == PutResult.AlreadyExists), store.readAll(path))
    } finally pool.shutdownNow()
  }
}
