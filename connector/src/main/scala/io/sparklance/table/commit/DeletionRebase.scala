package io.sparklance.table.commit

import io.sparklance.table.Snapshot

/**
 * How a Delete or Update that knows which rows it deleted rebases over another writer's Delete
 * or Update of the same fragments (lance-format/lance rust/lance/src/io/commit/conflict_resolver.rs:
 * merged deletion vectors). Given the other transaction and the version it made, it returns
 * ours rebuilt on that version, or why that cannot be (the other removed a fragment ours
 * changes, rewrote its data files, or deleted a row ours deleted too): then the commit is a
 * retryable conflict. Implementations may write files (new deletion files); they remove the
 * ones they replace that no version references.
 */
trait DeletionRebase {
  def rebase(mine: Operation, theirs: Operation, at: Snapshot): Either[String, Operation]
}
