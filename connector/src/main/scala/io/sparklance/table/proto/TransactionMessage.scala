package io.sparklance.table.proto

/** The protobuf a table.commit.Transaction was parsed from (opaque outside this package). */
final class TransactionMessage private[proto] (private[proto] val transaction: TransactionProtos.Transaction) extends Serializable {
  override def equals(other: Any): Boolean = other match {
    case t: TransactionMessage => transaction == t.transaction
    case _ => false
  }
  override def hashCode: Int = transaction.hashCode
  override def toString: String = s"TransactionMessage(${transaction.getSerializedSize} bytes)"
}
