package io.sparklance.table

import java.nio.charset.StandardCharsets.UTF_8
import java.time.Instant
import java.util.UUID

import io.sparklance.storage.{ObjectStore, Paths, PutResult}
import io.sparklance.table.commit.{Operation, TableCommitter}
import io.sparklance.util.ScalaCompat._
import io.sparklance.util.{Errors, LanceException}

// Spec: lance-format/lance docs/src/format/table/branch_tag.md and rust/lance/src/dataset/refs.rs
// (Tags::create/update/delete, Branches::create/delete), rust/lance/src/dataset.rs
// (create_branch). Tags and branches written as pylance 14 writes them: pretty-printed JSON
// (serde_json's two-space layout), camelCase keys, a tag's times in RFC 3339 and a branch's
// `createAt` in epoch seconds (pylance-14-on-disk.md section 7). A new ref is one atomic
// create-if-absent, so of two writers creating the same name one wins and the other is told.

/** A tag or branch as a procedure reports it: its name, the version it names, on which branch (None: main). */
final case class RefChange(name: String, version: Long, branch: Option[String])

object RefWrites {

  /** Lance's name of the main line (refs.rs MAIN_BRANCH): given as a branch, it means no branch. */
  private def line(branch: Option[String]): Option[String] = branch.filterNot(_ == "main")

  // ---- tags ------------------------------------------------------------------------------

  /**
   * Tags `version` (None: the latest) of the main line or of `branch`. With `replace`, an
   * existing tag of that name is moved (keeping its creation time and metadata, as Lance's
   * Tags::update does); without, a taken name is LANCE_REF_ALREADY_EXISTS. A version that
   * does not exist is LANCE_VERSION_NOT_FOUND, a branch that does not LANCE_REF_NOT_FOUND.
   */
  def createTag(store: ObjectStore, root: String, name: String, branch: Option[String], version: Option[Long],
      replace: Boolean): RefChange = {
    val main = Paths.stripTrailingSlash(root)
    Refs.checkName("tag", name, Refs.tagNameProblem(name))
    val onBranch = line(branch)
    onBranch.foreach(b => Refs.checkName("branch", b, Refs.branchNameProblem(b)))
    val target = Snapshot.resolve(store, main, onBranch, version.fold[VersionSpec](VersionSpec.Latest)(VersionSpec.Number))
    val size = store.size(target.manifestPath)
    val path = Refs.tagPath(main, name)
    val now = Instant.now()
    val previous = if (replace && store.exists(path)) Some(Refs.json(store, path)) else None
    val created = previous.flatMap(_.get("createdAt")).collect { case s: String => s }.getOrElse(rfc3339(now))
    val metadata = previous.flatMap(_.get("metadata")).collect { case m: Map[_, _] => m.asInstanceOf[Map[String, Any]] }.getOrElse(Map.empty)
    val bytes = pretty(Seq("branch" -> onBranch.orNull, "version" -> target.version, "createdAt" -> created,
      "updatedAt" -> rfc3339(now), "manifestSize" -> size, "metadata" -> metadata))
    // A move overwrites the tag file in one atomic step, as Lance's Tags::update puts it over the
    // old one: a reader sees the old version or the new one, never no tag. A new tag is created
    // if absent, so of two writers creating the name one wins and the other is told.
    if (previous.isDefined) store.replace(path, bytes)
    else create(store, path, bytes, Errors.refAlreadyExists(main, "tag", name, describe(store, main, name)))
    RefChange(name, target.version, onBranch)
  }

  /** Deletes a tag; one that does not exist is LANCE_REF_NOT_FOUND. Returns what it named. */
  def deleteTag(store: ObjectStore, root: String, name: String): RefChange = {
    val main = Paths.stripTrailingSlash(root)
    val tag = Refs.tag(store, main, name)
    if (!store.delete(Refs.tagPath(main, name))) throw Errors.refNotFound(main, "tag", name, Refs.tags(store, main))
    RefChange(name, tag.version, tag.branch)
  }

  private def describe(store: ObjectStore, root: String, tag: String): String =
    try { val t = Refs.tag(store, root, tag); s"on version ${t.version} of ${t.branch.fold("the main branch")(b => s"branch '$b'")}" }
    catch { case _: LanceException => "being written" }

  // ---- branches --------------------------------------------------------------------------

  /**
   * Creates branch `name` from a version of the main line or of `fromBranch` (None: the
   * latest), or from the version a tag names. As Lance does it, the branch's first version
   * (a shallow Clone under `tree/<name>/`) is committed first and its file in
   * `_refs/branches/` written last: a crash in between leaves a folder no listing shows,
   * never a branch without versions.
   */
  def createBranch(store: ObjectStore, root: String, name: String, fromBranch: Option[String], version: Option[Long],
      tag: Option[String]): RefChange = {
    val main = Paths.stripTrailingSlash(root)
    Refs.checkName("branch", name, Refs.branchNameProblem(name))
    val (parent, wanted) = tag match {
      case Some(t) =>
        if (fromBranch.isDefined || version.isDefined)
          throw Errors.invalidArgument(s"create_branch '$name': give a tag, or a version and/or a source branch, not both")
        val g = Refs.tag(store, main, t)
        (g.branch, Some(g.version))
      case None => (line(fromBranch), version)
    }
    val refFile = Refs.branchPath(main, name)
    if (store.exists(refFile)) throw Errors.refAlreadyExists(main, "branch", name, branchOrigin(store, main, name))
    val source = Snapshot.resolve(store, main, parent, wanted.fold[VersionSpec](VersionSpec.Latest)(VersionSpec.Number))
    val lineage = parent.fold(Seq.empty[(Long, String)])(p => Refs.branch(store, main, p).identifier)
    val branchRoot = Refs.branchRoot(main, name)
    val clone = Operation.Clone(shallow = true, source.version, source.root, Some(name), parent)
    try new TableCommitter(store, branchRoot).commitClone(source, clone)
    catch {
      case e: LanceException if e.errorClass == "LANCE_TABLE_ALREADY_EXISTS" =>
        throw Errors.refAlreadyExists(main, "branch", name,
          s"its folder $branchRoot already holds versions: another writer is creating it, or an earlier creation stopped " +
            "before naming it; delete_branch removes such a folder")
    }
    val bytes = pretty(Seq(
      "parentBranch" -> parent.orNull,
      "identifier" -> Map("version_mapping" -> (lineage :+ (source.version -> UUID.randomUUID().toString.replace("-", ""))).map {
        case (v, u) => Seq[Any](v, u)
      }),
      "parentVersion" -> source.version,
      "createAt" -> Instant.now().getEpochSecond,
      "manifestSize" -> store.size(source.manifestPath),
      "metadata" -> Map.empty[String, Any]))
    create(store, refFile, bytes, Errors.refAlreadyExists(main, "branch", name, "created meanwhile by another writer"))
    RefChange(name, source.version, parent)
  }

  private def branchOrigin(store: ObjectStore, root: String, name: String): String =
    try { val b = Refs.branch(store, root, name); s"from version ${b.parentVersion} of ${b.parentBranch.fold("the main branch")(p => s"branch '$p'")}" }
    catch { case _: LanceException => "being written" }

  /**
   * Deletes branch `name` and its folder, as Lance's Branches::delete does: refused
   * (LANCE_REF_IN_USE) while another branch is based on it or a tag names one of its
   * versions. Its file in `_refs/branches/` goes first, so that a crash leaves at most a
   * folder no listing shows. A branch nested below it by name (`dev/x` below `dev`, based on
   * another line) keeps its folder inside this one's, which Lance then leaves whole; here its
   * `_versions/` goes, so that nothing reads or extends the deleted branch and its name can be
   * used again (its other files are unreachable, for cleanup). A folder whose creation stopped
   * before its ref file was written (no listing shows it) is removed too, as Lance's
   * force_delete_branch does, so that the name can be used again.
   */
  def deleteBranch(store: ObjectStore, root: String, name: String): RefChange = {
    val main = Paths.stripTrailingSlash(root)
    Refs.checkName("branch", name, Refs.branchNameProblem(name))
    val others = Refs.branches(store, main).filterNot(_ == name).map(Refs.branch(store, main, _))
    if (!store.exists(Refs.branchPath(main, name))) {
      val leftover = leftoverVersions(store, main, name)
      if (leftover.isEmpty) throw Errors.refNotFound(main, "branch", name, others.map(_.name))
      removeFolder(store, main, name, others)
      return RefChange(name, leftover.max, None)
    }
    val branch = Refs.branch(store, main, name)
    // Files of older writers carry no lineage: then a branch naming this one as its parent is taken as based on it.
    val based = others.filter(o => branch.isBaseOf(o) || ((branch.identifier.isEmpty || o.identifier.isEmpty) && o.parentBranch.contains(name)))
    if (based.nonEmpty)
      throw Errors.refInUse(main, "branch", name, s"branches ${based.map(b => s"'${b.name}'").mkString(", ")} are based on it")
    val tags = Refs.tags(store, main).map(Refs.tag(store, main, _)).filter(_.branch.contains(name))
    if (tags.nonEmpty)
      throw Errors.refInUse(main, "branch", name, s"tags ${tags.map(t => s"'${t.name}' (version ${t.version})").mkString(", ")} name its versions")
    store.delete(Refs.branchPath(main, name))
    removeFolder(store, main, name, others)
    RefChange(name, branch.parentVersion, branch.parentBranch)
  }

  /** Versions under the folder of a branch that has no ref file: what a creation that stopped halfway left. */
  private def leftoverVersions(store: ObjectStore, main: String, name: String): Seq[Long] =
    store.listNames(Paths.join(Refs.branchRoot(main, name), Snapshot.VersionsDir)).flatMap(n => ManifestNaming.parse(n).map(_._1))

  private def removeFolder(store: ObjectStore, main: String, name: String, others: Seq[Branch]): Unit =
    folderToRemove(name, others.map(_.name)) match {
      case Some(dir) => store.deleteDirectory(Paths.join(main, ("tree" +: dir): _*))
      case None if !others.exists(o => (o.name + "/").startsWith(s"$name/${Snapshot.VersionsDir}/")) =>
        store.deleteDirectory(Paths.join(Refs.branchRoot(main, name), Snapshot.VersionsDir))
      case None => ()
    }

  /**
   * The folder below `tree/` a deleted branch leaves (Lance's get_cleanup_path): none while a
   * branch nested below it remains; else the part of its path below the deepest folder it
   * shares with a remaining branch.
   */
  def folderToRemove(deleted: String, remaining: Seq[String]): Option[Seq[String]] = {
    val gone = deleted.split('/').toSeq
    val shared = remaining.map(_.split('/').toSeq).map(r => r.zip(gone).takeWhile { case (a, b) => a == b }.length -> r)
    if (shared.exists { case (n, r) => n == gone.length && r.length > gone.length }) None
    else Some(gone.take(shared.map(_._1).maxOption.getOrElse(0) + 1))
  }

  // ---- files -----------------------------------------------------------------------------

  /**
   * Creates the ref file `path` or fails with `taken`. "Already exists" may answer this very
   * request sent again below us, so the file is read back: our own bytes mean it is ours.
   */
  private def create(store: ObjectStore, path: String, bytes: Array[Byte], taken: => LanceException): Unit =
    store.putIfAbsent(path, bytes) match {
      case PutResult.Created => ()
      case PutResult.AlreadyExists =>
        if (!java.util.Arrays.equals(store.readAll(path, io.sparklance.util.Json.MaxFileBytes), bytes)) throw taken
    }

  /** chrono's RFC 3339 for a UTC time (AutoSi): no fraction, or 3, 6 or 9 digits, and "Z". */
  private[table] def rfc3339(t: Instant): String = {
    val n = t.getNano
    val fraction = if (n == 0) "" else if (n % 1000000 == 0) f".${n / 1000000}%03d" else if (n % 1000 == 0) f".${n / 1000}%06d" else f".$n%09d"
    java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").withZone(java.time.ZoneOffset.UTC).format(t) + fraction + "Z"
  }

  /** serde_json's pretty layout: two-space indents, `"key": value`, `{}` and `[]` when empty. */
  private[table] def pretty(fields: Seq[(String, Any)]): Array[Byte] = {
    val out = new StringBuilder
    def value(v: Any, indent: String): Unit = v match {
      case null => out ++= "null"
      case s: String => string(s)
      case n: Long => out ++= n.toString
      case n: Int => out ++= n.toString
      case n: BigDecimal => out ++= n.bigDecimal.toPlainString
      case b: Boolean => out ++= b.toString
      case m: Map[_, _] => obj(m.asInstanceOf[Map[String, Any]].toSeq.sortBy(_._1), indent)
      case xs: Seq[_] =>
        if (xs.isEmpty) out ++= "[]"
        else {
          out ++= "[\n"
          xs.zipWithIndex.foreach { case (x, i) =>
            out ++= indent + "  "
            value(x, indent + "  ")
            out ++= (if (i < xs.length - 1) ",\n" else "\n")
          }
          out ++= indent + "]"
        }
      case other => throw new IllegalArgumentException(s"no JSON for ${other.getClass}")
    }
    def obj(kvs: Seq[(String, Any)], indent: String): Unit =
      if (kvs.isEmpty) out ++= "{}"
      else {
        out ++= "{\n"
        kvs.zipWithIndex.foreach { case ((k, v), i) =>
          out ++= indent + "  "
          string(k)
          out ++= ": "
          value(v, indent + "  ")
          out ++= (if (i < kvs.length - 1) ",\n" else "\n")
        }
        out ++= indent + "}"
      }
    def string(s: String): Unit = {
      out += '"'
      s.foreach {
        case '"' => out ++= "\\\""
        case '\\' => out ++= "\\\\"
        case '\n' => out ++= "\\n"
        case '\r' => out ++= "\\r"
        case '\t' => out ++= "\\t"
        case c if c < 0x20 => out ++= f"\\u${c.toInt}%04x"
        case c => out += c
      }
      out += '"'
    }
    obj(fields, "")
    out.toString.getBytes(UTF_8)
  }
}
