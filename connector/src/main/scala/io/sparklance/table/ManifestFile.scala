package io.sparklance.table

import io.sparklance.storage.ObjectStore
import io.sparklance.table.proto.ManifestCodec
import io.sparklance.util.{Bytes, Errors, LittleEndian}

// Spec: lance-format/lance rust/lance-table/src/io/manifest.rs. A manifest file is
//   [optional u32 len + IndexSection][optional u32 len + Transaction]
//   [u32 len + Manifest][u64 manifest position][u16 0][u16 2]["LANC"]
// and the Manifest message runs exactly from after its length to the 16-byte footer.

object ManifestFile {
  private val FooterSize = 16

  /** Reads and parses the manifest at `path`, with the repairs of [[WriterCorrections]]. */
  def read(store: ObjectStore, path: String): Manifest = {
    val bytes = Bytes.wrap(path, 0, store.readAll(path))
    WriterCorrections(parse(bytes))
  }

  def parse(bytes: Bytes): Manifest = {
    val path = bytes.path
    val n = bytes.length
    if (n < FooterSize + 4)
      throw Errors.corrupt(path, 0, s"a manifest needs at least ${FooterSize + 4} bytes but the file has $n; it is truncated")
    io.sparklance.format.FileFooter.versionOf(bytes, n) // checks the magic
    val pos = bytes.i64(n - FooterSize)
    if (pos < 0 || pos > n - FooterSize - 4)
      throw Errors.corrupt(path, n - FooterSize, s"the manifest position $pos lies outside the ${n}-byte file; it is truncated or damaged")
    val len = bytes.u32(pos)
    val expected = n - FooterSize - pos - 4
    if (len != expected)
      throw Errors.corrupt(path, pos, s"the manifest message declares $len bytes but $expected bytes lie before the footer")
    val manifest = ManifestCodec.parseManifest(bytes.slice(pos + 4, len, "manifest message"))
    manifest.indexSectionOffset match {
      case Some(at) => ManifestCodec.withIndexSection(manifest, lengthPrefixed(bytes, at, pos, "index section"))
      case None => manifest
    }
  }

  /** The u32-length-prefixed message at `at`, which must end by `end` (the manifest message). */
  private def lengthPrefixed(bytes: Bytes, at: Long, end: Long, what: String): Bytes = {
    if (at < 0 || at > end - 4) throw Errors.corrupt(bytes.path, at, s"the $what position $at lies outside the manifest file's sections")
    val len = bytes.u32(at)
    if (len > end - at - 4) throw Errors.corrupt(bytes.path, at, s"the $what declares $len bytes, past the manifest message")
    bytes.slice(at + 4, len, what)
  }

  /**
   * The serialized Transaction stored inline in the manifest file `bytes` (whose parsed
   * manifest is `m`), if the writer stored one (Lance 1.0 and later).
   */
  def inlineTransaction(bytes: Bytes, m: Manifest): Option[Bytes] =
    m.transactionSectionOffset.map(at => lengthPrefixed(bytes, at, bytes.i64(bytes.length - FooterSize), "inline transaction"))

  /**
   * The bytes of a manifest file for `m`, laid out as pylance 14 writes it
   * (rust/lance-table/src/io/manifest.rs, write_manifest): the index section (if `m` keeps
   * indices), the inline `transaction`, the manifest message, then the 16-byte footer.
   */
  def serialize(m: Manifest, transaction: Option[Array[Byte]]): Array[Byte] = {
    val out = new java.io.ByteArrayOutputStream()
    def lengthPrefixed(b: Array[Byte]): Long = {
      val at = out.size().toLong
      val len = new Array[Byte](4)
      LittleEndian.putInt(len, 0, b.length)
      out.write(len); out.write(b)
      at
    }
    val indexAt = ManifestCodec.encodeIndexSection(m).map(lengthPrefixed)
    val transactionAt = transaction.map(lengthPrefixed)
    val manifestAt = lengthPrefixed(ManifestCodec.encodeManifest(m, indexAt, transactionAt))
    val footer = new Array[Byte](12)
    LittleEndian.putLong(footer, 0, manifestAt)
    footer(10) = 2 // u16 major 0, u16 minor 2
    out.write(footer)
    out.write("LANC".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
    out.toByteArray
  }
}
