package io.sparklance.table

import org.apache.arrow.vector.types.pojo.{ArrowType, Field}

import io.sparklance.format.{FixedWidths, LanceSchema}

/**
 * Estimated bytes per value of each field of a schema. The manifest records only whole
 * data file sizes; these widths share a file's bytes among its columns, so that a scan of
 * one column of eight is sized (and split) as the fraction of the file it reads, as Spark
 * scales file sizes by the projected row width.
 */
object ValueWidths {

  /** Strings and binary values, whose width the schema does not tell (Spark guesses 20 too). */
  private val VariableBytes = 20L

  def of(schema: LanceSchema, where: String): Map[Int, Long] =
    schema.fields.iterator.flatMap(_.preOrder).map { f =>
      // A parent's own data is only validity and offsets; its leaves carry the values.
      val w =
        if (f.children.nonEmpty) 1L
        else scala.util.Try(f.toArrow(where)).toOption.fold(VariableBytes)(width)
      f.id -> w
    }.toMap

  private def width(f: Field): Long = f.getType match {
    case l: ArrowType.FixedSizeList => l.getListSize.toLong * width(f.getChildren.get(0))
    case _: ArrowType.Bool | _: ArrowType.Null => 1
    case t => FixedWidths.bytes(t).fold(VariableBytes)(_.toLong)
  }
}
