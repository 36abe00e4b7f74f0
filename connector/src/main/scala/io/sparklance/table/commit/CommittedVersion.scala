package io.sparklance.table.commit

import io.sparklance.storage.{ObjectStore, Paths}
import io.sparklance.table.{Manifest, ManifestFile, Snapshot}
import io.sparklance.table.proto.TransactionCodec
import io.sparklance.util.{Bytes, Errors}

/** One committed version as its files hold it: its manifest, and the transaction that made it. */
object CommittedVersion {

  /** The manifest of `version` in `_versions/<name>` of the table at `root`, with the file's bytes. */
  def manifest(store: ObjectStore, root: String, version: Long, name: String): (Manifest, Bytes) = {
    val path = Paths.join(root, Snapshot.VersionsDir, name)
    val bytes = Bytes.wrap(path, 0, store.readAll(path))
    val m = ManifestFile.parse(bytes)
    if (m.version != version) throw Errors.corrupt(path, s"the manifest says version ${m.version} but its file name says version $version")
    (m, bytes)
  }

  /** The transaction that made `m`: inline in its file `bytes`, else its `_transactions/` file (None: not recorded). */
  def transaction(store: ObjectStore, root: String, m: Manifest, bytes: Bytes): Option[Transaction] =
    ManifestFile.inlineTransaction(bytes, m).map(TransactionCodec.parse).orElse {
      m.transactionFile.filter(Paths.staysInside).map { f =>
        val path = Paths.join(root, "_transactions", f)
        TransactionCodec.parse(Bytes.wrap(path, 0, store.readAll(path)))
      }
    }
}
