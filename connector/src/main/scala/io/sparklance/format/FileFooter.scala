package io.sparklance.format

import io.sparklance.util.{Bytes, Errors}

// Spec: lance-format/lance docs/src/format/file/index.md (file layout) and
// rust/lance-file/src/reader.rs. A 2.x data file ends with a fixed 40-byte footer:
//   u64 column_meta_start, u64 cmo_table_start, u64 gbo_table_start,
//   u32 num_global_buffers, u32 num_columns, u16 major, u16 minor, "LANC"
// Legacy (0.1) files end with the 16-byte footer `i64 metadata_position, u16 major,
// u16 minor, "LANC"` instead; both share the last 8 bytes.

/** The parsed 40-byte footer of a 2.x Lance data file, checked against the file size. */
final case class FileFooter(
    columnMetaStart: Long,
    cmoTableStart: Long,
    gboTableStart: Long,
    numGlobalBuffers: Int,
    numColumns: Int,
    version: FileVersion)

object FileFooter {
  val Size = 40
  val Magic: Array[Byte] = "LANC".getBytes("US-ASCII")

  /** Reads major/minor and checks the magic; `tail` must be the last bytes of the file. */
  def versionOf(tail: Bytes, fileSize: Long): (Int, Int) = {
    val path = tail.path
    if (tail.length < 8) throw Errors.corrupt(path, fileSize, s"the file is $fileSize bytes, too short for a Lance footer")
    val n = tail.length
    val magic = new Array[Byte](4)
    tail.copyTo(n - 4, magic, 0, 4)
    // The bytes found are not shown: a path that should not have been followed may name
    // any file, and an error message is no place to print its contents.
    if (!java.util.Arrays.equals(magic, Magic))
      throw Errors.corrupt(path, fileSize - 4, "the file does not end with the magic bytes 'LANC'; it is not a Lance file")
    (tail.u16(n - 8), tail.u16(n - 6))
  }

  /**
   * Parses the 2.x footer from `tail`, the last `tail.length` bytes of a `fileSize`-byte
   * file, and checks that every table it points to lies inside the file and in order.
   */
  def parse(tail: Bytes, fileSize: Long): FileFooter = {
    val path = tail.path
    val (major, minor) = versionOf(tail, fileSize)
    val version = FileVersion.fromFooter(path, major, minor)
    if (version == FileVersion.Legacy)
      throw Errors.unsupported("legacy (0.1) data files", path)
    if (tail.length < Size || fileSize < Size)
      throw Errors.corrupt(path, 0, s"the file is $fileSize bytes, too short for the 40-byte Lance footer")
    val f = tail.length - Size
    val footerStart = fileSize - Size
    val cms = tail.u64AsSize(f, "column_meta_start")
    val cmo = tail.u64AsSize(f + 8, "cmo_table_start")
    val gbo = tail.u64AsSize(f + 16, "gbo_table_start")
    val nGlobal = tail.i32(f + 24)
    val nCols = tail.i32(f + 28)
    def bad(what: String) = Errors.corrupt(path, footerStart, what)
    if (nGlobal < 1) throw bad(s"the footer declares $nGlobal global buffers; at least 1 (the schema) is required")
    if (nCols < 0) throw bad(s"the footer declares a negative column count $nCols")
    if (cms > cmo) throw bad(s"column metadata starts at $cms, after the column metadata offset table at $cmo")
    if (cmo + 16L * nCols != gbo)
      throw bad(s"the column metadata offset table ($nCols columns at $cmo) should end where the global buffer table starts ($gbo)")
    if (gbo + 16L * nGlobal != footerStart)
      throw bad(s"the global buffer table ($nGlobal buffers at $gbo) should end where the footer starts ($footerStart)")
    FileFooter(cms, cmo, gbo, nGlobal, nCols, version)
  }
}
