package io.sparklance.table.commit

import java.nio.charset.StandardCharsets.UTF_8
import java.time.Instant
import java.util.UUID
import java.util.concurrent.ThreadLocalRandom

import scala.util.control.NonFatal

import io.sparklance.format.FileVersion
import io.sparklance.storage.{ObjectStore, Paths, PutResult}
import io.sparklance.table.{Manifest, ManifestFile, ManifestNaming, Snapshot}
import io.sparklance.table.commit.Operation.{Append, CreateIndex, Delete, Merge, Overwrite, Project, ReserveFragments, Restore, Rewrite, Update, UpdateBases, UpdateConfig}
import io.sparklance.table.proto.TransactionCodec
import io.sparklance.util.ScalaCompat._
import io.sparklance.util.{Bytes, Errors, NotFoundException, NothingWrittenException}

// Spec: lance-format/lance rust/lance/src/io/commit.rs (commit_transaction: load the
// transactions committed since the read version, check them, build the manifest, write it
// with create-if-absent, retry with slot back-off) and rust/lance-core/src/utils/backoff.rs
// (SlotBackoff). The one place that commits and the one place that retries.

/**
 * Commits transactions to the table at `root`. Each attempt: find the latest version; stop
 * if the request's AppTransaction is already recorded there; check every transaction
 * committed since the read version against Lance's rules ([[ConflictRules]]); write
 * `_transactions/<read>-<uuid>.txn`; build the next manifest on the latest one
 * ([[NextManifest]]) and create it with one atomic create-if-absent. Another writer's version
 * in the way means another attempt after a jittered wait, up to `options.maxRetries`. A write
 * whose outcome is unknown is settled by reading the version back, never by deleting.
 * Data files are never deleted here.
 */
final class TableCommitter(store: ObjectStore, root: String, options: CommitOptions = CommitOptions()) {
  private val table = Paths.stripTrailingSlash(root)
  private val versionsDir = Paths.join(table, Snapshot.VersionsDir)
  private val transactionsDir = Paths.join(table, "_transactions")

  /** Reads of a version whose write had an unknown outcome, before giving up. */
  private val SettleAttempts = 3

  def commit(request: CommitRequest): CommitOutcome = {
    store.requireAtomicCreate(table)
    request.operation match {
      case _: Append | _: Overwrite => ()
      case _: CreateIndex | _: Delete | _: Update | _: Merge | _: Project | _: UpdateConfig | _: Rewrite | _: Restore | _: UpdateBases |
          _: ReserveFragments
          if request.readVersion.isDefined => ()
      case other => throw new IllegalStateException(s"committing a ${other.name} is not supported yet")
    }
    if (request.readVersion.isEmpty && request.operation.isInstanceOf[Append] && request.newTable.isEmpty)
      throw new IllegalStateException("an Append without a read version needs the NewTable to create")
    val uuid = UUID.randomUUID().toString
    val properties = request.properties ++ request.appTransaction.map(a => a.configKey -> a.version.toString)
    val backoff = new SlotBackoff(options.maxBackoffMillis)
    val checked = new TransactionsSeen(uuid, request.rebase)
    var readVersion = request.readVersion
    var mine = request.operation
    var attempt = 0
    val started = System.nanoTime()
    while (true) {
      attempt += 1
      val manifests = versionFiles()
      val latest = manifests.maxByOption(_._1)
      val base = latest.map { case (v, name) => load(v, name) }
      val duplicate = for (app <- request.appTransaction; (m, _) <- base if recorded(m, app)) yield m.version
      if (duplicate.isDefined) {
        // The record may be our own: a version an earlier attempt of this call wrote.
        val own = checked.ownVersion(manifests)
        return CommitOutcome(own.getOrElse(duplicate.get), attempt, duplicate = own.isEmpty)
      }

      val (operation, newTable) = (readVersion, base) match {
        case (None, None) => (asCreate(request), Some(request.newTable.getOrElse(defaultNewTable(request.operation))))
        case (None, Some((m, _))) =>
          request.operation match {
            case _: Overwrite => throw Errors.tableAlreadyExists(table, m.version)
            // Its files went to bases the table created meanwhile does not have.
            case _ if request.newTable.exists(_.bases.nonEmpty) => throw Errors.tableAlreadyExists(table, m.version)
            case _ =>
              // Created meanwhile by another writer: append to it if it holds the same columns.
              val ours = request.newTable.get.schema
              if (!joinable(ours, m.schema)) throw Errors.createdConcurrently(table, describe(ours), describe(m.schema))
              readVersion = Some(m.version)
              (request.operation, None)
          }
        case (Some(r), _) =>
          val latestV = base.fold(throw Errors.notADataset(table, "its _versions/ folder holds no manifests"))(_._1.version)
          if (latestV < r) throw Errors.versionNotFound(table, r, Seq(latestV))
          checked.checkUpTo(r, latestV, mine, manifests) match {
            case Left(own) => return CommitOutcome(own, attempt, duplicate = false)
            case Right(rebased) => mine = rebased
          }
          (mine, None)
      }
      val read = base.fold(0L)(_._1.version)
      val txn = Transaction(read, uuid, operation, properties)
      val txnBytes = TransactionCodec.encode(txn)
      val txnPath = Paths.join(transactionsDir, txn.fileName)
      store.writeNew(txnPath, txnBytes)
      // A Restore's content is the restored version's manifest, as stored (base paths not made absolute).
      val restored = operation match {
        case Restore(v) => Some(manifests.get(v).fold(throw Errors.versionNotFound(table, v, manifests.keys.toSeq.sorted))(load(v, _)._1))
        case _ => None
      }
      val ctx = NextManifest.Context(Instant.now(), Some(txn.fileName), newTable,
        request.appTransaction.map(a => a.configKey -> a.version.toString).toMap, restored = restored)
      val next = NextManifest(base.map(_._1), txn, ctx)
      val naming = latest.flatMap { case (_, name) => ManifestNaming.parse(name).map(_._2) }.getOrElse(ManifestNaming.V2)
      val path = Paths.join(versionsDir, naming.fileName(next.version))
      checked.attempted(next.version)
      put(path, ManifestFile.serialize(next, Some(txnBytes)), next.version, uuid) match {
        case PutResult.Created =>
          writeHint(next.version)
          // The table's lance.auto_cleanup.* config, as Lance runs it after a commit; never fails this one.
          if (options.autoCleanup) io.sparklance.table.maintenance.AutoCleanup.afterCommit(store, table, next)
          return CommitOutcome(next.version, attempt, duplicate = false)
        case PutResult.AlreadyExists =>
          // Read back and found another writer's: the transaction file ours would have named is unused.
          try store.delete(txnPath) catch { case NonFatal(_) => () }
          if (attempt > options.maxRetries) throw Errors.commitRetriesExhausted(table, attempt, next.version)
          if (attempt == 1) backoff.unitFrom(System.nanoTime() - started)
          Thread.sleep(backoff.next())
      }
    }
    throw new IllegalStateException("unreachable")
  }

  /**
   * Makes the table at `root`, which must hold no version yet, a shallow clone of `source`
   * (a Clone: a branch's first version, rust/lance/src/dataset.rs create_branch): its first
   * manifest keeps the source's version number and names the source's files through a new
   * base path. One atomic create-if-absent decides between two writers making the same
   * clone; the loser gets LANCE_TABLE_ALREADY_EXISTS and leaves nothing but nothing.
   */
  def commitClone(source: Snapshot, clone: Operation.Clone): CommitOutcome = {
    store.requireAtomicCreate(table)
    val existing = versionFiles()
    if (existing.nonEmpty) throw Errors.tableAlreadyExists(table, existing.keys.max)
    val uuid = UUID.randomUUID().toString
    val base = ManifestFile.read(store, source.manifestPath) // the base paths as stored, not made absolute
    val txn = Transaction(base.version, uuid, clone)
    val txnBytes = TransactionCodec.encode(txn)
    val txnPath = Paths.join(transactionsDir, txn.fileName)
    store.writeNew(txnPath, txnBytes)
    val next = NextManifest(Some(base), txn, NextManifest.Context(Instant.now(), Some(txn.fileName)))
    val naming = ManifestNaming.parse(Paths.name(source.manifestPath)).map(_._2).getOrElse(ManifestNaming.V2)
    put(Paths.join(versionsDir, naming.fileName(next.version)), ManifestFile.serialize(next, Some(txnBytes)), next.version, uuid) match {
      case PutResult.Created =>
        writeHint(next.version)
        CommitOutcome(next.version, 1, duplicate = false)
      case PutResult.AlreadyExists =>
        try store.delete(txnPath) catch { case NonFatal(_) => () }
        throw Errors.tableAlreadyExists(table, next.version)
    }
  }

  /** True if `app` (or a later version of the same appId) is already committed at the latest version. */
  def alreadyCommitted(app: AppTransaction): Boolean =
    versionFiles().maxByOption(_._1).exists { case (v, name) => recorded(load(v, name)._1, app) }

  private def recorded(m: Manifest, app: AppTransaction): Boolean =
    m.config.get(app.configKey).flatMap(_.toLongOption).exists(_ >= app.version)

  /** Creating the table is an Overwrite, as pylance's create; the NewTable's config goes with it. */
  private def asCreate(request: CommitRequest): Operation = {
    val config = request.newTable.fold(Map.empty[String, String])(_.config)
    request.operation match {
      case Append(fragments) => Overwrite(fragments, request.newTable.get.schema, config)
      case o: Overwrite => o.copy(configUpserts = config ++ o.configUpserts)
      case other => other
    }
  }

  private def defaultNewTable(op: Operation): NewTable = op match {
    case o: Overwrite => NewTable(o.schema, FileVersion.V2_2, stableRowIds = false)
    case other => throw new IllegalStateException(s"cannot create a table with a ${other.name}")
  }

  /**
   * True if rows written for `ours` may join a table created meanwhile with `theirs`: the same
   * field ids, parents, names and types, and no field the table declares NOT NULL that ours
   * lets be null (a write checked against a nullable column may hold nulls).
   */
  private def joinable(ours: io.sparklance.format.LanceSchema, theirs: io.sparklance.format.LanceSchema): Boolean = {
    def shape(s: io.sparklance.format.LanceSchema) = s.flatFields.map(f => (f.id, f.parentId, f.name, f.logicalType))
    shape(ours) == shape(theirs) && ours.flatFields.zip(theirs.flatFields).forall { case (o, t) => t.nullable || !o.nullable }
  }
  private def describe(s: io.sparklance.format.LanceSchema) =
    s.flatFields.map(f => s"${f.name}:${f.logicalType}${if (f.nullable) "" else " not null"}#${f.id}").mkString("[", ", ", "]")

  /**
   * Every version of the table with its manifest's file name, from one listing of `_versions/`.
   * An empty listing means "no table yet" only when `_versions` is not something else: listing
   * a file lists the file, and a write must not create a table over it.
   */
  private def versionFiles(): Map[Long, String] = {
    val found = store.listNames(versionsDir).flatMap(n => ManifestNaming.parse(n).map { case (v, _) => (v, n) }).toMap
    if (found.isEmpty && store.entryExists(versionsDir) && !store.isDirectory(versionsDir))
      throw Errors.notADataset(table, s"${Snapshot.VersionsDir} is a file, not the folder of its versions")
    found
  }

  private def load(version: Long, name: String): (Manifest, Bytes) = CommittedVersion.manifest(store, table, version, name)

  private def transactionOf(m: Manifest, bytes: Bytes): Option[Transaction] = CommittedVersion.transaction(store, table, m, bytes)

  /**
   * The transactions committed after a read version, each checked once against ours, which
   * comes back rebased where a deletion rebase applied.
   */
  private final class TransactionsSeen(uuid: String, rebase: Option[DeletionRebase]) {
    private var upTo = -1L
    private var tried = Set.empty[Long]

    /** This call is about to create the manifest of `version`. */
    def attempted(version: Long): Unit = tried += version

    /**
     * A version this call tried to create that names our transaction. Every put's outcome is
     * settled by reading the version back, so this finds none; it is asked before anything is
     * taken for another writer's, so that no settled answer is ever trusted over the table.
     */
    def ownVersion(names: Map[Long, String]): Option[Long] =
      tried.toSeq.sorted.find(v => names.get(v).exists(n => ownedBy(load(v, n), uuid)))

    /**
     * Checks ours against every transaction committed after `read` up to `latest` (`names`:
     * the attempt's listing of `_versions/`, which holds all of them). Right: ours, rebased
     * where a deletion rebase applied; Left: the version that is ours already.
     */
    def checkUpTo(read: Long, latest: Long, operation: Operation, names: Map[Long, String]): Either[Long, Operation] = {
      var mine = operation
      var v = math.max(read, upTo) + 1
      while (v <= latest) {
        val name = names.getOrElse(v, throw Errors.versionNotFound(table, v, names.keys.toSeq.sorted))
        val (m, bytes) = load(v, name)
        val theirs = transactionOf(m, bytes).getOrElse(throw Errors.commitConflict(table, mine.name, read, "commit", v,
          "(none recorded)", "that version records no transaction, so whether this one still applies cannot be decided", retryable = false))
        if (theirs.uuid == uuid) return Left(v)
        def conflict(why: String, retryable: Boolean) =
          Errors.commitConflict(table, mine.name, read, theirs.operation.name, v, theirs.uuid, why, retryable)
        ConflictRules.check(mine, theirs.operation) match {
          case Verdict.Compatible => ()
          case Verdict.Rebased(operation) => mine = operation
          case Verdict.Retryable(why) => throw conflict(why, retryable = true)
          case Verdict.Incompatible(why) => throw conflict(why, retryable = false)
          case Verdict.RebaseDeletions(why) =>
            val at = Snapshot(table, Paths.join(versionsDir, name), m)
            mine = rebase.getOrElse(throw conflict(why, retryable = true)).rebase(mine, theirs.operation, at)
              .fold(cannot => throw conflict(s"$why, and $cannot", retryable = true), identity)
        }
        upTo = v
        v += 1
      }
      Right(mine)
    }
  }

  /**
   * Creates the manifest of `version` at `path` and settles what happened. Neither answer of
   * the store but "created" is taken at its word: "already exists" may answer our own request
   * sent again below us (S3A and the AWS SDK retry a PUT whose response was lost, and the
   * retry meets our stored manifest with 412; an HDFS client retries a rename that went
   * through), and an exception may follow a stored file. So the version is read back: naming
   * our transaction it is ours (created), naming another it is taken (already exists), absent
   * the put is tried again. When that cannot be established the commit's state is unknown.
   * A failure the store reports as "nothing was written" is final, unless an earlier try's
   * outcome is still open. Nothing is deleted here.
   * (Lance fixed the same trust in its own commit: lance-format/lance#8123.)
   */
  private def put(path: String, bytes: Array[Byte], version: Long, uuid: String): PutResult = {
    var lastError: Option[Throwable] = None
    var tries = 0
    while (tries < SettleAttempts) {
      tries += 1
      val answer =
        try Right(store.putIfAbsent(path, bytes))
        catch {
          // Final only while no earlier try of this put may still land (a request delayed in flight).
          case e: NothingWrittenException if lastError.isEmpty => throw e
          case NonFatal(e) => Left(e)
        }
      if (answer == Right(PutResult.Created)) return PutResult.Created
      answer.left.foreach(e => lastError = Some(e))
      try readBack(path, version) match {
        case Some(m) => return if (ownedBy(m, uuid)) PutResult.Created else PutResult.AlreadyExists
        case None => if (answer.isRight) lastError = Some(Errors.io(path, "creating the file if absent",
          new java.io.IOException("the store answered that the file exists, but reading it back finds none")))
      } catch { case NonFatal(e) => lastError = Some(e) }
    }
    throw Errors.commitStateUnknown(table, version, uuid, lastError.get)
  }

  /** The manifest at `path` as the store holds it now, None if absent. */
  private def readBack(path: String, version: Long): Option[(Manifest, Bytes)] =
    try Some(load(version, Paths.name(path)))
    catch { case _: NotFoundException => None }

  /** True if the manifest `m` (with its file's bytes) records transaction `uuid`. */
  private def ownedBy(m: (Manifest, Bytes), uuid: String): Boolean =
    transactionOf(m._1, m._2).map(_.uuid).contains(uuid) || m._1.transactionFile.exists(_.endsWith(s"-$uuid.txn"))

  /** `_versions/latest_version_hint.json` as pylance 14 writes it; best effort (readers check it). */
  private def writeHint(version: Long): Unit = {
    val hint = Paths.join(versionsDir, Snapshot.VersionHintFile)
    try {
      store.delete(hint)
      store.putIfAbsent(hint, s"""{"version":$version}""".getBytes(UTF_8))
    } catch { case NonFatal(_) => () }
  }
}

/**
 * Rust's SlotBackoff (rust/lance-core/src/utils/backoff.rs): attempt i waits a random whole
 * number of units below 4 * 2^i, the unit being 1.1 times how long the first attempt took, so
 * that writers racing for one version spread out. Here the unit stays between 5 and 50 ms
 * (Rust's default unit): a first attempt in a fresh JVM is slow for reasons (class loading,
 * compiling) that say nothing about the race. Each wait is capped as well.
 */
private final class SlotBackoff(maxMillis: Long) {
  private var unit = 50L
  private var attempt = 0

  def unitFrom(firstAttemptNanos: Long): Unit = unit = math.min(50L, math.max(5L, firstAttemptNanos * 11 / 10 / 1000000L))

  def next(): Long = {
    val slots = 1L << math.min(attempt + 2, 30)
    attempt += 1
    math.min(maxMillis, ThreadLocalRandom.current().nextLong(slots) * unit)
  }
}
