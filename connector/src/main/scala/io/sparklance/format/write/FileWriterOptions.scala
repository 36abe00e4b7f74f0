package io.sparklance.format.write

import io.sparklance.format.FileVersion
import io.sparklance.util.Errors

/**
 * How a data file is written.
 *
 * @param version   file format version: 2.0, 2.1 or 2.2 (pylance 14's default)
 * @param pageBytes the values a column buffers before it writes a page (Rust
 *                  `cache_bytes_per_column`, 8 MiB): a writer holds about this much per column
 */
final case class FileWriterOptions(version: FileVersion = FileVersion.V2_2, pageBytes: Long = FileWriterOptions.DefaultPageBytes) {
  if (version == FileVersion.Legacy)
    throw Errors.unsupported("writing legacy (0.1) data files; choose file format 2.0, 2.1 or 2.2", "the file writer")
  if (pageBytes < 1024)
    throw Errors.invalidOption("pageBytes", pageBytes.toString, "at least 1024")
}

object FileWriterOptions {
  val DefaultPageBytes: Long = 8L * 1024 * 1024
}
