package io.sparklance.format.write

import scala.jdk.CollectionConverters._

import org.apache.arrow.vector.{ValueVector, VectorSchemaRoot}
import org.apache.arrow.vector.complex.{FixedSizeListVector, LargeListVector, ListVector, StructVector}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, Schema}

import io.sparklance.util.Errors

// A batch handed to the file writer must have the file's schema: the same fields, in order, with
// the same types, and no null where a field is not nullable. A batch that differs would write
// a file whose columns disagree with its schema, so it is refused before anything is buffered.

private[write] object BatchCheck {

  def check(schema: Schema, batch: VectorSchemaRoot, where: String): Unit = {
    val expected = schema.getFields.asScala
    val got = batch.getSchema.getFields.asScala
    if (expected.length != got.length || expected.zip(got).exists { case (e, g) => !sameShape(e, g) })
      throw Errors.invalidArgument(
        s"a batch written to $where has schema ${describe(got.toSeq)} but the file's schema is ${describe(expected.toSeq)}; " +
          "cast the batch to the file's schema before writing")
    expected.zip(batch.getFieldVectors.asScala).foreach { case (f, v) => checkNulls(f, v, f.getName, 0, v.getValueCount) }
  }

  private def describe(fs: Seq[Field]): String = fs.map(f => s"${f.getName}: ${f.getType}${if (f.isNullable) "" else " not null"}").mkString("<", ", ", ">")

  // Names, types and nullability, recursively; field metadata may differ, and so may the name of
  // a list's item field (producers call it "item", "element" or "$data$").
  private def sameShape(e: Field, g: Field, checkName: Boolean = true): Boolean = {
    val itemNamesFree = e.getType match {
      case _: ArrowType.List | _: ArrowType.LargeList | _: ArrowType.FixedSizeList => true
      case _ => false
    }
    (!checkName || e.getName == g.getName) && e.getType == g.getType && e.isNullable == g.isNullable &&
      e.getChildren.size == g.getChildren.size &&
      e.getChildren.asScala.zip(g.getChildren.asScala).forall { case (a, b) => sameShape(a, b, !itemNamesFree) }
  }

  // A null under a null parent is no value at all, so only rows whose parents are valid count.
  private def checkNulls(f: Field, v: ValueVector, path: String, from: Int, until: Int, parentValid: Int => Boolean = _ => true): Unit = {
    if (!f.isNullable && v.getNullCount > 0) {
      var i = from
      while (i < until) {
        if (v.isNull(i) && parentValid(i)) throw Errors.invalidArgument(
          s"field '$path' is not nullable but row $i of a batch written to the file has a null there; " +
            "fill the nulls or declare the field nullable")
        i += 1
      }
    }
    v match {
      case s: StructVector =>
        f.getChildren.asScala.zipWithIndex.foreach { case (c, i) =>
          checkNulls(c, s.getChildByOrdinal(i), s"$path.${c.getName}", 0, s.getValueCount, r => parentValid(r) && !s.isNull(r))
        }
      case l: ListVector => checkNulls(f.getChildren.get(0), l.getDataVector, s"$path.item", 0, l.getDataVector.getValueCount)
      case l: LargeListVector => checkNulls(f.getChildren.get(0), l.getDataVector, s"$path.item", 0, l.getDataVector.getValueCount)
      case l: FixedSizeListVector =>
        val n = l.getListSize
        checkNulls(f.getChildren.get(0), l.getDataVector, s"$path.item", 0, l.getDataVector.getValueCount, r => parentValid(r / n) && !l.isNull(r / n))
      case _ =>
    }
  }
}
