package io.sparklance.table.proto

// The parsed protobuf behind a table.Manifest: generated classes stay in this package
// (LayeringSuite), so the rest of the code holds them through this opaque handle and asks
// ManifestCodec to build the next manifest from it.

/** A manifest message and, when the file has one, its index section, as parsed. */
final class ManifestMessage private[proto] (
    private[proto] val manifest: TableProtos.Manifest,
    private[proto] val indexSection: Option[TableProtos.IndexSection]) extends Serializable {

  override def equals(other: Any): Boolean = other match {
    case m: ManifestMessage => manifest == m.manifest && indexSection == m.indexSection
    case _ => false
  }
  override def hashCode: Int = manifest.hashCode
  override def toString: String = s"ManifestMessage(${manifest.getSerializedSize} bytes)"
}

object ManifestMessage {
  /** The message a new table's first manifest is built on. */
  val Empty: ManifestMessage = new ManifestMessage(TableProtos.Manifest.getDefaultInstance, None)
}
