package io.sparklance.spark.procedures

import java.util.Locale

import org.apache.spark.sql.connector.catalog.Identifier

import io.sparklance.spark.LanceSparkException
import io.sparklance.util.Errors

/**
 * The procedures of namespace `system`, as every Lance catalog serves them (both of ours and
 * the procedure-only catalog `pyspark_lance.configure` registers as `lance`), in the manner of
 * Iceberg's `CALL <catalog>.system.<name>`.
 */
object LanceProcedures {
  val Namespace = "system"

  private val all: Map[String, ProcedureContext => LanceProcedure] = Map(
    "create_tag" -> (new CreateTagProcedure(_)),
    "delete_tag" -> (new DeleteTagProcedure(_)),
    "create_branch" -> (new CreateBranchProcedure(_)),
    "delete_branch" -> (new DeleteBranchProcedure(_)),
    "compact" -> (new CompactProcedure(_)),
    "restore" -> (new RestoreProcedure(_)),
    "clone" -> (new CloneProcedure(_)),
    "add_bases" -> (new AddBasesProcedure(_)),
    "cleanup" -> (new CleanupProcedure(_)),
  )

  def names: Seq[String] = all.keys.toSeq.sorted

  /** The procedure `ident` names, as served by `catalog` (whose tables its names resolve in; None: the session's). */
  def load(ident: Identifier, catalog: Option[String]): LanceProcedure = LanceSparkException.boundary {
    val ns = ident.namespace().toSeq
    val name = ident.name().toLowerCase(Locale.ROOT)
    all.get(name).filter(_ => ns.map(_.toLowerCase(Locale.ROOT)) == Seq(Namespace)).map(_(ProcedureContext(name, catalog)))
      .getOrElse(throw Errors.invalidArgument(
        s"no Lance procedure ${(ns :+ ident.name()).mkString(".")}; the procedures are ${names.map(n => s"$Namespace.$n").mkString(", ")}"))
  }

  def list(namespace: Array[String]): Array[Identifier] =
    if (namespace.toSeq.map(_.toLowerCase(Locale.ROOT)) == Seq(Namespace)) names.map(n => Identifier.of(Array(Namespace), n)).toArray
    else Array.empty
}
