package io.sparklance.testutil

import java.io.File
import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

import org.apache.arrow.memory.BufferAllocator

/**
 * The golden datasets written by dev/golden/generate.py (pinned pylance) and what pylance
 * read back from each version. `make test` generates them first; the build points
 * SPARK_LANCE_GOLDEN at the folder.
 */
object Golden {
  lazy val root: File = {
    val dir = new File(sys.env.getOrElse("SPARK_LANCE_GOLDEN", "target/golden"))
    require(new File(dir, "index.json").isFile,
      s"golden datasets missing under ${dir.getAbsolutePath}: run `make golden` (dev/golden/generate.py) first")
    dir
  }

  final case class Dataset(name: String, versions: Seq[Long]) {
    def uri: String = new File(new File(root, name), "dataset").getAbsolutePath
    def expectedFile(version: Long): File = new File(new File(new File(root, name), "expected"), s"v$version.arrow")
  }

  private val versionsPattern = "\"versions\"\\s*:\\s*\\[([0-9,\\s]*)\\]".r

  def dataset(name: String): Dataset = {
    val info = new String(Files.readAllBytes(Paths.get(root.getPath, name, "info.json")), "UTF-8")
    val versions = versionsPattern.findFirstMatchIn(info).map(_.group(1)).getOrElse("")
      .split(',').map(_.trim).filter(_.nonEmpty).map(_.toLong).toSeq
    Dataset(name, versions)
  }

  /** The schema and the canonical rows of an expected Arrow IPC file. */
  def expectedRows(file: File, allocator: BufferAllocator): (org.apache.arrow.vector.types.pojo.Schema, IndexedSeq[IndexedSeq[Any]]) = {
    val reader = ArrowIpc.reader(Files.newByteChannel(file.toPath), allocator)
    try {
      val rows = reader.getRecordBlocks.asScala.toIndexedSeq.flatMap { block =>
        reader.loadRecordBatch(block)
        Canonical.rows(reader.getVectorSchemaRoot, reader)
      }
      (reader.getVectorSchemaRoot.getSchema, rows)
    } finally reader.close()
  }
}
