package io.sparklance.spark.procedures

import java.util.Locale

/**
 * Which argument of a `CALL` gives which parameter, by the rules Spark 4 applies to procedure
 * and function calls: positional arguments first, in parameter order; then named ones
 * (`name => value`, the name matched ignoring case), each parameter given at most once; every
 * required parameter given. On Spark 4 Spark itself does this (with its own error classes); on
 * Spark 3.5 our `CALL` does it with this, and an argument out of place is LANCE_INVALID_ARGUMENT
 * naming it, its position and the procedure's parameters.
 */
object CallBinding {

  /** For each of `procedure`'s parameters in order, the argument that gives it (None: its default applies). */
  def bind(call: CallStatement, procedure: LanceProcedure): Seq[Option[CallArgument]] = {
    val params = procedure.parameters
    def fail(at: Int, detail: String): Nothing =
      throw CallSyntax.error(call.text, at, s"system.${procedure.name}: $detail; its parameters are ${signature(params)}")

    val (positional, named) = call.args.span(_.name.isEmpty)
    named.find(_.name.isEmpty).foreach(a => fail(a.at, "a positional argument follows a named one; give it by name too"))
    if (positional.length > params.length)
      fail(positional(params.length).at, s"${positional.length} arguments given by position, but it takes at most ${params.length}")

    val bound = scala.collection.mutable.LinkedHashMap[String, CallArgument]()
    params.zip(positional).foreach { case (p, a) => bound(p.name) = a }
    named.foreach { a =>
      val written = a.name.get
      val p = params.find(_.name == written.toLowerCase(Locale.ROOT))
        .getOrElse(fail(a.at, s"it has no parameter '$written'"))
      bound.get(p.name).foreach { earlier =>
        fail(a.at, s"'${p.name}' is given twice (${if (earlier.name.isEmpty) "by position and by name" else "by name twice"})")
      }
      bound(p.name) = a
    }
    params.filter(p => p.required && !bound.contains(p.name)).foreach { p =>
      fail(call.nameAt, s"the required argument '${p.name}' is missing")
    }
    params.map(p => bound.get(p.name))
  }

  /** `table string, tag string, version bigint = NULL, ...`: what the procedure takes, for errors. */
  def signature(params: Seq[LanceProcedure.Param]): String =
    params.map(p => s"${p.name} ${p.dataType.sql.toLowerCase(Locale.ROOT)}${if (p.required) "" else s" = ${p.default}"}").mkString("(", ", ", ")")
}
