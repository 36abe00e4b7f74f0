package io.sparklance.table

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

/**
 * A branch and where it came from. `identifier`: Lance's lineage of the branch, (version of
 * the parent, uuid) from the main line down, which tells the branches based on it from a
 * branch that merely reuses a deleted one's name.
 */
final case class Branch(name: String, parentBranch: Option[String], parentVersion: Long, identifier: Seq[(Long, String)] = Nil) {
  /** True when `other` is based on this branch (on it, or on a branch based on it). */
  def isBaseOf(other: Branch): Boolean =
    identifier.nonEmpty && other.identifier.length > identifier.length && other.identifier.take(identifier.length) == identifier
}

object Refs {
  private[table] def tagsDir(root: String) = Paths.join(root, "_refs", "tags")
  private[table] def branchesDir(root: String) = Paths.join(root, "_refs", "branches")

  private[table] def json(store: ObjectStore, path: String): Map[String, Any] =
    try Json.parse(new String(store.readAll(path, Json.MaxFileBytes), UTF_8)) match {
      case m: Map[_, _] => m.asInstanceOf[Map[String, Any]]
      case _ => throw Errors.corrupt(path, "expected a JSON object")
    } catch { case e: IllegalArgumentException => throw Errors.corrupt(path, 0, s"malformed JSON (${e.getMessage})", e) }

  private def long(m: Map[String, Any], key: String, path: String): Long = m.get(key) match {
    case Some(b: BigDecimal) if b.isValidLong => b.toLongExact
    case other => throw Errors.corrupt(path, s"'$key' should be a whole number, found ${other.orNull}")
  }

  private def optString(m: Map[String, Any], key: String): Option[String] = m.get(key).collect { case s: String => s }

  /** A branch name read from a ref file: valid, or the file is corrupt. */
  private def branchIn(m: Map[String, Any], key: String, path: String): Option[String] =
    optString(m, key).map { b =>
      branchNameProblem(b).foreach(why => throw Errors.corrupt(path, s"'$key' names branch '$b', which is not a valid branch name ($why)"))
      b
    }

  // Rust's char::is_alphanumeric: the Unicode Alphabetic property or a numeric category.
  private def alphanumeric(cp: Int): Boolean = Character.isAlphabetic(cp) || (Character.getType(cp) match {
    case Character.DECIMAL_DIGIT_NUMBER | Character.LETTER_NUMBER | Character.OTHER_NUMBER => true
    case _ => false
  })

  private def plainChars(s: String): Boolean = s.codePoints().allMatch(c => alphanumeric(c) || c == '.' || c == '-' || c == '_')

  /**
   * Why `name` is not a tag name Lance accepts, or None (rust/lance/src/dataset/refs.rs,
   * check_valid_tag): letters, digits, '.', '-' and '_'; not starting or ending with '.',
   * no "..", not ending in ".lock". So a tag name is one path segment that cannot climb.
   */
  def tagNameProblem(name: String): Option[String] =
    if (name.isEmpty) Some("it is empty")
    else if (!plainChars(name)) Some("only letters, digits, '.', '-' and '_' are allowed")
    else if (name.startsWith(".") || name.endsWith(".")) Some("it may not start or end with '.'")
    else if (name.endsWith(".lock")) Some("it may not end with '.lock'")
    else if (name.contains("..")) Some("it may not contain '..'")
    else None

  /**
   * Why `name` is not a branch name Lance accepts, or None (refs.rs, check_valid_branch):
   * '/'-separated segments of letters, digits, '.', '-' and '_', no empty segment, no "..",
   * no '\\', not ending in ".lock", and not "main" (the main line has no branch name). So
   * `tree/<branch>` always stays inside the table.
   */
  def branchNameProblem(name: String): Option[String] =
    if (name.isEmpty) Some("it is empty")
    else if (name.contains("..") || name.contains("\\")) Some("it may not contain '..' or '\\'")
    else if (name.split("/", -1).exists(_.isEmpty)) Some("it may not start or end with '/' or contain '//'")
    else if (!name.split('/').forall(plainChars)) Some("each '/'-separated part may only hold letters, digits, '.', '-' and '_'")
    else if (name.endsWith(".lock")) Some("it may not end with '.lock'")
    else if (name == "main") Some("'main' is the main line, read without a branch")
    else None

  private[table] def checkName(kind: String, name: String, problem: Option[String]): Unit =
    problem.foreach(why => throw Errors.invalidArgument(s"'$name' is not a valid $kind name: $why"))

  def tags(store: ObjectStore, root: String): Seq[String] =
    store.list(tagsDir(root)).map(_.name).filter(_.endsWith(".json")).map(_.dropRight(5)).sorted

  def tag(store: ObjectStore, root: String, name: String): Tag = {
    checkName("tag", name, tagNameProblem(name))
    val path = tagPath(root, name)
    if (!store.exists(path)) throw Errors.refNotFound(root, "tag", name, tags(store, root))
    val m = json(store, path)
    Tag(name, branchIn(m, "branch", path), long(m, "version", path))
  }

  def branches(store: ObjectStore, root: String): Seq[String] =
    store.list(branchesDir(root)).map(_.name).filter(_.endsWith(".json"))
      .map(n => java.net.URLDecoder.decode(n.dropRight(5), UTF_8)).sorted

  def branch(store: ObjectStore, root: String, name: String): Branch = {
    checkName("branch", name, branchNameProblem(name))
    val path = branchPath(root, name)
    if (!store.exists(path)) throw Errors.refNotFound(root, "branch", name, branches(store, root))
    val m = json(store, path)
    Branch(name, branchIn(m, "parentBranch", path), long(m, "parentVersion", path), identifier(m, path))
  }

  def tagPath(root: String, name: String): String = Paths.join(tagsDir(root), s"$name.json")

  /** The file of a branch: '/' written as %2F, the only character of a valid name Lance's paths encode. */
  def branchPath(root: String, name: String): String = Paths.join(branchesDir(root), name.replace("/", "%2F") + ".json")

  /** `identifier.version_mapping`: [[version, uuid], ...]; absent in files of older writers (then empty). */
  private def identifier(m: Map[String, Any], path: String): Seq[(Long, String)] = m.get("identifier") match {
    case Some(id: Map[_, _]) => id.asInstanceOf[Map[String, Any]].get("version_mapping") match {
      case Some(pairs: Vector[_]) => pairs.map {
        case Vector(v: BigDecimal, u: String) if v.isValidLong => (v.toLongExact, u)
        case other => throw Errors.corrupt(path, s"'identifier.version_mapping' holds $other, not a [version, uuid] pair")
      }
      case _ => Nil
    }
    case _ => Nil
  }

  /** The root of a branch's own dataset: `tree/<branch path>` below the main root. */
  def branchRoot(root: String, branch: String): String = {
    checkName("branch", branch, branchNameProblem(branch))
    Paths.join(root, ("tree" +: branch.split('/').toSeq): _*)
  }
}
