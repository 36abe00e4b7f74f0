package io.sparklance.table

import java.net.URLEncoder
import java.nio.charset.StandardCharsets.UTF_8

import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.util.{Errors, Json}

// Spec: lance-format/lance docs/src/format/table/branch_tag.md and
// rust/lance/src/dataset/refs.rs. Tags and branches are JSON files under `_refs/` of the
// root dataset (camelCase keys, as pylance writes them): a tag names a version (of the main
// line, or of a branch when "branch" is set); a branch is a dataset of its own rooted at
// `tree/<branch path>/`, whose file in `_refs/branches/` has '/' written as %2F.

/** A tag: a version of the main line or of a branch. */
final case class Tag(name: String, branch: Option[String], version: Long)

/** A branch and where it came from. */
final case class Branch(name: String, parentBranch: Option[String], parentVersion: Long)

object Refs {
  private def tagsDir(root: String) = Paths.join(root, "_refs", "tags")
  private def branchesDir(root: String) = Paths.join(root, "_refs", "branches")

  private def json(store: ObjectStore, path: String): Map[String, Any] =
    try Json.parse(new String(store.readAll(path), UTF_8)) match {
      case m: Map[_, _] => m.asInstanceOf[Map[String, Any]]
      case _ => throw Errors.corrupt(path, "expected a JSON object")
    } catch { case e: IllegalArgumentException => throw Errors.corrupt(path, 0, s"malformed JSON (${e.getMessage})", e) }

  private def long(m: Map[String, Any], key: String, path: String): Long = m.get(key) match {
    case Some(b: BigDecimal) if b.isValidLong => b.toLongExact
    case other => throw Errors.corrupt(path, s"'$key' should be a whole number, found ${other.orNull}")
  }

  private def optString(m: Map[String, Any], key: String): Option[String] = m.get(key).collect { case s: String => s }

  def tags(store: ObjectStore, root: String): Seq[String] =
    store.list(tagsDir(root)).map(_.name).filter(_.endsWith(".json")).map(_.dropRight(5)).sorted

  def tag(store: ObjectStore, root: String, name: String): Tag = {
    val path = Paths.join(tagsDir(root), s"$name.json")
    if (name.isEmpty || name.contains('/') || !store.exists(path)) throw Errors.refNotFound(root, "tag", name, tags(store, root))
    val m = json(store, path)
    Tag(name, optString(m, "branch"), long(m, "version", path))
  }

  def branches(store: ObjectStore, root: String): Seq[String] =
    store.list(branchesDir(root)).map(_.name).filter(_.endsWith(".json"))
      .map(n => java.net.URLDecoder.decode(n.dropRight(5), UTF_8)).sorted

  def branch(store: ObjectStore, root: String, name: String): Branch = {
    val path = Paths.join(branchesDir(root), URLEncoder.encode(name, UTF_8) + ".json")
    if (name.isEmpty || !store.exists(path)) throw Errors.refNotFound(root, "branch", name, branches(store, root))
    val m = json(store, path)
    Branch(name, optString(m, "parentBranch"), long(m, "parentVersion", path))
  }

  /** The root of a branch's own dataset: `tree/<branch path>` below the main root. */
  def branchRoot(root: String, branch: String): String = Paths.join(root, ("tree" +: branch.split('/').toSeq): _*)
}
