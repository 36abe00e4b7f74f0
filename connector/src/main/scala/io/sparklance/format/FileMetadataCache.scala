package io.sparklance.format

import io.sparklance.util.BoundedCache

// Spec: lance-format/lance docs/src/format/table/index.md (data files are written once,
// under new names, and never changed); rust/lance-file/src/reader.rs caches a file's
// metadata in the same way (the file metadata cache of a dataset). Opening a 2.x file
// costs a 64 KiB tail read, the footer and offset tables, and parsing every column's
// metadata; a point look-up then decodes one chunk per column. Executors see the same
// files query after query, so what the tail holds is kept here, once per JVM, and only the
// pages are read again.

/**
 * Which file, as far as the store can tell without another request: its path, size and,
 * where known, modification stamp (see [[io.sparklance.storage.RangeReader.modified]]).
 * Caches of what is parsed from immutable files key by it.
 */
final case class FileIdentity(path: String, size: Long, modified: Option[Long])

/**
 * What opening a 2.x file parses from its tail: immutable, shared by every reader of the
 * same file in this JVM (each reader keeps its own storage handle and read positions).
 */
final case class ParsedMetadata(footer: FileFooter, descriptor: FileDescriptor, columns: IndexedSeq[ColumnInfo])

/**
 * The JVM-wide cache of [[ParsedMetadata]], bounded by [[FileMetadataCache.MaxBytes]]
 * (least recently used first out). An entry is keyed by the file's path, size and, where
 * the store reports it while opening (local files; files opened without a known size), its
 * modification time, so that another file written at the same path is parsed afresh: with
 * another size or time it is another key. Lance never rewrites a data or index file in
 * place (its names are new UUIDs), so on object stores, where the size comes from the
 * manifest and no time is known, path and size are the file's identity.
 */
object FileMetadataCache {

  /**
   * At most this many estimated bytes of parsed metadata are kept: a few thousand
   * typical data files (an 8-column file with one page per column is about 3 KiB).
   */
  val MaxBytes: Long = 32L << 20

  private[format] val cache = new BoundedCache[FileIdentity, ParsedMetadata](MaxBytes, weigh)

  /**
   * Estimated heap bytes of `m`: the encodings' bytes, the buffer tables and about a
   * hundred bytes of objects per page, column and field.
   */
  private def weigh(m: ParsedMetadata): Long = {
    val pages = m.columns.iterator.flatMap(_.pages).map(p => 128L + 16L * p.numBuffers + p.encoding.value.length).sum
    val columns = m.columns.iterator.map(c => 96L + c.columnEncoding.fold(0)(_.value.length)).sum
    val fields = m.descriptor.fields.iterator.map(f => 128L + 2L * (f.name.length + f.logicalType.length)).sum
    val metadata = m.descriptor.schemaMetadata.iterator.map { case (k, v) => 64L + 2L * (k.length + v.length) }.sum
    256L + pages + columns + fields + metadata
  }

  /** Files held now (for tests and diagnostics). */
  def size: Int = cache.size
}
