package io.sparklance

import java.io.{DataInputStream, File, FileInputStream}

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

/**
 * The layering rules of ARCHITECTURE.md, checked on the compiled classes rather than on
 * source text, so that renamed imports (`import org.apache.{spark => s}`), chained package
 * clauses and fully qualified names cannot slip past: no Spark below the spark layer, no
 * Hadoop outside storage.hadoop, generated protobuf classes only inside the *.proto wrapper
 * packages, and each layer using only the layers below it.
 */
class LayeringSuite extends AnyFunSuite {
  import LayeringSuite._

  private lazy val classesRoot: File = {
    val dir = new File(classOf[io.sparklance.util.LanceException].getProtectionDomain.getCodeSource.getLocation.toURI)
    assert(new File(dir, "io/sparklance").isDirectory, s"compiled classes not found under $dir")
    dir
  }

  /** (path below io/sparklance, every class name the class file refers to). */
  private lazy val classes: Seq[(String, Set[String])] = {
    val base = new File(classesRoot, "io/sparklance")
    def walk(d: File): Seq[File] =
      Option(d.listFiles()).toSeq.flatten.flatMap(f => if (f.isDirectory) walk(f) else Seq(f).filter(_.getName.endsWith(".class")))
    walk(base).map(f => base.toPath.relativize(f.toPath).toString.replace('\\', '/') -> referencedClasses(f))
  }

  private def violations(allowed: String => Boolean, prefix: String): Seq[String] =
    classes.collect { case (path, refs) if !allowed(path) && refs.exists(_.startsWith(prefix)) => path }

  test("the check sees what compiled classes refer to") {
    val table = classes.collectFirst { case (p, refs) if p == "spark/LanceTable.class" => refs }.get
    assert(table.exists(_.startsWith("org/apache/spark/sql/connector/catalog/")))
    assert(table.exists(_.startsWith("io/sparklance/table/")))
    assert(classes.length > 200)
  }

  test("Spark is used only in the spark layer") {
    assert(violations(_.startsWith("spark/"), "org/apache/spark/").isEmpty)
  }

  test("Hadoop is used only in storage.hadoop") {
    // The spark layer hands Spark's Hadoop configuration to storage.hadoop, untouched: the
    // one Hadoop class it may name.
    val handle = "org/apache/hadoop/conf/Configuration"
    val bad = classes.collect { case (path, refs) if !path.startsWith("storage/hadoop/") &&
      refs.exists(r => r.startsWith("org/apache/hadoop/") && !(path.startsWith("spark/") && r == handle)) => path }
    assert(bad.isEmpty)
  }

  test("S3A and the AWS SDK are used only by the conditional PUT of lines whose S3A lacks one") {
    // One class, reached only for s3a paths (storage.hadoop.S3aPutIfAbsent): a jar without
    // hadoop-aws on the classpath never loads it.
    val aws = Seq("org/apache/hadoop/fs/s3a/", "software/amazon/", "com/amazonaws/")
    val users = classes.collect { case (path, refs) if refs.exists(r => aws.exists(r.startsWith)) => path }
    assert(users.forall(_.startsWith("storage/hadoop/S3aConditionalPut")), users)
  }

  test("generated protobuf classes stay in the proto wrapper packages") {
    val wrappers = (p: String) => p.startsWith("format/proto/") || p.startsWith("table/proto/")
    assert(violations(wrappers, "com/google/protobuf/").isEmpty)
    for {
      c <- Seq("FileProtos", "File2Protos", "Encodings20Protos", "Encodings21Protos", "TableProtos", "TransactionProtos", "RowIdProtos", "IndexProtos")
      pkg <- Seq("format", "table")
    } assert(violations(wrappers, s"io/sparklance/$pkg/proto/$c").isEmpty, c)
  }

  test("each layer uses only the layers below it") {
    val order = Seq("util", "storage", "format", "table", "spark")
    order.zipWithIndex.foreach { case (layer, i) =>
      order.drop(i + 1).foreach { upper =>
        val bad = violations(p => !p.startsWith(layer + "/"), s"io/sparklance/$upper/")
        assert(bad.isEmpty, s"$layer must not use $upper: $bad")
      }
    }
  }
}

object LayeringSuite {

  /**
   * The internal names of every class a class file mentions: its constant pool's class
   * entries and the class names inside field and method descriptors and generic signatures
   * (JVM spec §4.4). Anything a class can call, extend, catch or hold appears there.
   */
  def referencedClasses(f: File): Set[String] = {
    val in = new DataInputStream(new java.io.BufferedInputStream(new FileInputStream(f)))
    try {
      require(in.readInt() == 0xCAFEBABE, s"$f is not a class file")
      in.readUnsignedShort(); in.readUnsignedShort()
      val count = in.readUnsignedShort()
      val utf8 = mutable.Map.empty[Int, String]
      val classRefs = mutable.ArrayBuffer.empty[Int]
      var i = 1
      while (i < count) {
        in.readUnsignedByte() match {
          case 1 => utf8(i) = in.readUTF()
          case 7 => classRefs += in.readUnsignedShort()
          case 8 | 16 | 19 | 20 => in.readUnsignedShort()
          case 15 => in.readUnsignedByte(); in.readUnsignedShort()
          case 3 | 4 | 9 | 10 | 11 | 12 | 17 | 18 => in.readInt()
          case 5 | 6 => in.readLong(); i += 1 // long and double take two slots
          case tag => throw new IllegalStateException(s"$f: constant pool tag $tag")
        }
        i += 1
      }
      val descriptorNames = utf8.values.flatMap(s => """L([\w/$]+)[;<]""".r.findAllMatchIn(s).map(_.group(1)))
      classRefs.flatMap(utf8.get).map(_.stripPrefix("[").replaceAll("^\\[*L|;$", "")).toSet ++ descriptorNames
    } finally in.close()
  }
}
