package io.sparklance

import java.io.File

import scala.io.Source

import org.scalatest.funsuite.AnyFunSuite

/**
 * The import rules of ARCHITECTURE.md: no Spark below the spark layer, no Hadoop outside
 * storage.hadoop, generated protobuf classes only inside the *.proto wrapper packages.
 */
class LayeringSuite extends AnyFunSuite {
  private val root = new File("src/main/scala/io/sparklance")

  private def sources(dir: File): Seq[File] =
    Option(dir.listFiles()).toSeq.flatten.flatMap(f => if (f.isDirectory) sources(f) else Seq(f).filter(_.getName.endsWith(".scala")))

  private lazy val files: Seq[(String, String)] = {
    assert(root.isDirectory, s"sources not found at ${root.getAbsolutePath}")
    sources(root).map { f =>
      val src = Source.fromFile(f, "UTF-8")
      try (root.toPath.relativize(f.toPath).toString.replace('\\', '/'), src.mkString) finally src.close()
    }
  }

  private def violations(allowed: String => Boolean, pattern: String): Seq[String] =
    files.collect { case (path, text) if !allowed(path) && text.contains(pattern) => path }

  test("Spark is used only in the spark layer") {
    assert(violations(_.startsWith("spark/"), "org.apache.spark").isEmpty)
  }

  test("Hadoop is used only in storage.hadoop") {
    assert(violations(_.startsWith("storage/hadoop/"), "org.apache.hadoop").isEmpty)
  }

  test("generated protobuf classes stay in the proto wrapper packages") {
    val wrappers = (p: String) => p.startsWith("format/proto/") || p.startsWith("table/proto/")
    assert(violations(wrappers, "com.google.protobuf").isEmpty)
    Seq("FileProtos", "File2Protos", "Encodings20Protos", "Encodings21Protos", "TableProtos", "TransactionProtos", "RowIdProtos", "IndexProtos")
      .foreach(c => assert(violations(wrappers, c + ".").isEmpty, c))
  }

  test("each layer imports only the layers below it") {
    val order = Seq("util", "storage", "format", "table", "spark")
    order.zipWithIndex.foreach { case (layer, i) =>
      val above = order.drop(i + 1)
      above.foreach { upper =>
        val bad = files.collect { case (path, text) if path.startsWith(layer + "/") && text.contains(s"io.sparklance.$upper") => path }
        assert(bad.isEmpty, s"$layer must not use $upper: $bad")
      }
    }
  }
}
