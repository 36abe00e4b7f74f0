package io.sparklance.table.commit

import io.sparklance.table.proto.TransactionMessage

// Spec: protos/lance/transaction.proto (Transaction). A transaction is data: the version it
// read, its id, what it did and free-form properties. It is stored twice per commit, byte for
// byte the same: inline in the manifest file and as `_transactions/{read_version}-{uuid}.txn`.

/**
 * One transaction. `message` keeps the protobuf a transaction read from storage was parsed
 * from, so that encoding it again (table.proto.TransactionCodec) loses nothing.
 */
final case class Transaction(
    readVersion: Long,
    uuid: String,
    operation: Operation,
    properties: Map[String, String] = Map.empty,
    tag: String = "",
    message: Option[TransactionMessage] = None) {

  /** The file name under `_transactions/`. */
  def fileName: String = s"$readVersion-$uuid.txn"
}
