package io.sparklance.table.commit

import io.sparklance.format.{FileVersion, LanceSchema}
import io.sparklance.table.BasePath

// The contract between the Spark write path and the transaction manager (the #19 interfaces).

/** How to create the table when it does not exist yet; `bases`: its named base paths (ids 0: numbered from 1). */
final case class NewTable(schema: LanceSchema, fileVersion: FileVersion, stableRowIds: Boolean, config: Map[String, String] = Map.empty,
    bases: IndexedSeq[BasePath] = IndexedSeq.empty)

/**
 * An idempotent write's identity (Delta's txnAppId / txnVersion): a write whose appId is
 * already recorded with this version or a later one is not committed again.
 */
final case class AppTransaction(appId: String, version: Long) {
  /** The table config key recording the latest committed version of `appId`. */
  def configKey: String = AppTransaction.ConfigPrefix + appId
}

object AppTransaction {
  val ConfigPrefix = "spark-lance.txn."
}

/** `rebase`: how a Delete or Update rebases over another's deletions in its fragments (None: it cannot). */
final case class CommitRequest(
    readVersion: Option[Long],
    operation: Operation,
    properties: Map[String, String] = Map.empty,
    appTransaction: Option[AppTransaction] = None,
    newTable: Option[NewTable] = None,
    rebase: Option[DeletionRebase] = None)

/** `duplicate`: the AppTransaction was already committed and nothing was done. */
final case class CommitOutcome(version: Long, attempts: Int, duplicate: Boolean)

/**
 * @param maxRetries  commit attempts after the first that found the version taken (Lance's
 *                    default, rust/lance-table/src/io/commit.rs CommitConfig: 20)
 * @param maxBackoffMillis  the longest wait between two attempts
 * @param autoCleanup  run the table's `lance.auto_cleanup.*` config after a commit (maintenance.AutoCleanup)
 */
final case class CommitOptions(maxRetries: Int = 20, maxBackoffMillis: Long = 5000L, autoCleanup: Boolean = true)
