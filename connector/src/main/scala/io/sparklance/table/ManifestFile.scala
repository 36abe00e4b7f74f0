package io.sparklance.table

import io.sparklance.storage.ObjectStore
import io.sparklance.table.proto.ManifestCodec
import io.sparklance.util.{Bytes, Errors}

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
      case Some(at) =>
        val sectionLen = bytes.u32(at)
        manifest.copy(indices = ManifestCodec.parseIndexSection(bytes.slice(at + 4, sectionLen, "index section")))
      case None => manifest
    }
  }
}
