package io.sparklance.util

import java.io.File
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.util.ScalaCompat._

/** Every error class has a SQLSTATE of its own, and a class not in the table its family's. */
class ErrorStatesSuite extends AnyFunSuite {

  private val ErrorsSource = "src/main/scala/io/sparklance/util/Errors.scala"

  test("every error class Errors builds has an entry in the SQLSTATE table") {
    val source = Seq(new File(ErrorsSource), new File("connector", ErrorsSource)).find(_.isFile)
      .getOrElse(fail(s"$ErrorsSource not found from ${new File(".").getAbsolutePath}"))
    val classes = "\"(LANCE_[A-Z_]+)\"".r.findAllMatchIn(new String(Files.readAllBytes(source.toPath), "UTF-8")).map(_.group(1)).toSet
    assert(classes.size >= 10)
    assert(classes.filterNot(ErrorStates.byClass.contains).isEmpty)
    ErrorStates.byClass.values.foreach(s => assert(s.matches("[0-9A-Z]{5}"), s))
  }

  test("states by class and by family") {
    assert(Errors.notADataset("/x", "nothing there").sqlState == "42P01")
    assert(Errors.versionNotFound("/x", 3, Seq(1)).sqlState == "42704")
    assert(Errors.corrupt("/x", 4, "bad").sqlState == "XX001")
    assert(Errors.invalidOption("batchSize", "0", "a positive number").sqlState == "22023")
    assert(Errors.unsupportedFileVersion("/x", 2, 3).sqlState == "0A000")
    assert(new CorruptFileException("LANCE_SOMETHING_NEW", "m").sqlState == "XX001")
    assert(new NotFoundException("LANCE_SOMETHING_NEW", "m").sqlState == "42704")
    assert(new LanceException("LANCE_SOMETHING_NEW", "m").sqlState == "58030")
  }
}
