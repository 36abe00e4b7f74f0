package io.sparklance.storage.hadoop

import java.io.{ObjectInputStream, ObjectOutputStream}

import org.apache.hadoop.conf.Configuration

import io.sparklance.storage.{ObjectStore, ObjectStoreFactory}

/**
 * Ships a Hadoop configuration to executors (Configuration is only Writable) and opens
 * [[HadoopObjectStore]]s over it there.
 */
final class HadoopObjectStoreFactory(@transient private var conf: Configuration) extends ObjectStoreFactory {

  override def create(): ObjectStore = new HadoopObjectStore(conf)

  private def writeObject(out: ObjectOutputStream): Unit = {
    out.defaultWriteObject()
    conf.write(out)
  }

  private def readObject(in: ObjectInputStream): Unit = {
    in.defaultReadObject()
    conf = new Configuration(false)
    conf.readFields(in)
  }
}
