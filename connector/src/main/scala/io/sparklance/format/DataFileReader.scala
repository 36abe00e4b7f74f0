package io.sparklance.format

import io.sparklance.storage.ObjectStore

// Every data file version the table layer meets (legacy 0.1, 2.0, 2.1, 2.2) is read through
// this one interface: open the file, then scan each projected field front to back.

/** An open data file of any supported format version. Closing it releases the storage handle. */
trait DataFileReader extends AutoCloseable {
  def path: String
  def version: FileVersion
  def numRows: Long

  /** Bytes read from storage so far (footer and metadata included). */
  def bytesRead: Long

  /**
   * A scanner of top-level `field`, starting at row 0. `columnOf` maps a field id to its
   * column index in this file (from the manifest's DataFile), if the file stores it.
   */
  def scan(field: LanceField, columnOf: Int => Option[Int]): FieldScanner
}

object DataFileReader {
  /**
   * Opens `path`, whose format version the manifest records; `sparse` when only a few rows
   * will be taken from it (see [[LanceFileReader.open]]). `knownSize` is the manifest's
   * file_size_bytes, trusted for 2.x files only: the releases that recorded it for legacy
   * files (0.39 to 4.x at least) took it before the file's page table, metadata and footer
   * were written (rust/lance/src/dataset/write.rs, `V1WriterAdapter::finish` called `tell()`
   * before `finish()`), so a legacy file's size is asked of storage, as Lance itself does
   * (rust/lance/src/dataset/fragment.rs opens legacy files with `object_store.open(path)`,
   * without the recorded size).
   */
  def open(store: ObjectStore, path: String, knownSize: Option[Long], version: FileVersion, sparse: Boolean = false): DataFileReader =
    version match {
      case FileVersion.Legacy => legacy.LegacyFileReader.open(store, path)
      case _ => LanceFileReader.open(store, path, knownSize, sparse)
    }
}
