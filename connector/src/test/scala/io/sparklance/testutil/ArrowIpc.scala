package io.sparklance.testutil

import java.nio.channels.SeekableByteChannel

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.BufferAllocator
import org.apache.arrow.vector.ipc.ArrowFileReader
import org.apache.arrow.vector.types.pojo.Schema

import io.sparklance.format.arrow.ArrowVectors

/** Arrow IPC files (pylance's expected rows) read into vectors of ours: on Spark 3.5's Arrow 12 the reader could not build half floats itself. */
object ArrowIpc {
  def reader(channel: SeekableByteChannel, allocator: BufferAllocator): ArrowFileReader = new ArrowFileReader(channel, allocator) {
    override protected def readSchema(): Schema = {
      val schema = super.readSchema()
      new Schema(schema.getFields.asScala.map(ArrowVectors.buildable).asJava, schema.getCustomMetadata)
    }
  }
}
