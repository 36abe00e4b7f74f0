package io.sparklance.spark

import org.apache.spark.broadcast.Broadcast

import io.sparklance.storage.{ObjectStore, ObjectStoreFactory}

/**
 * A table's store factory shipped to executors as a broadcast, as Spark's file sources ship
 * their Hadoop configuration: each executor deserializes the configuration once, not every
 * task (a Hadoop configuration is hundreds of compressed entries).
 */
private[spark] final class BroadcastStores(stores: Broadcast[ObjectStoreFactory]) extends ObjectStoreFactory {
  override def create(): ObjectStore = stores.value.create()
}
