package io.sparklance.format

import io.sparklance.util.Errors

// Spec: lance-format/lance rust/lance-encoding/src/version.rs and docs/src/format/file/versioning.md.
// The footer of a data file carries (major, minor). Version 2.0 files say (0, 3) in the
// footer while the manifest's DataFile says (2, 0); (0, 1) and (0, 2) are the legacy format.

/**
 * The Lance data file format versions this reader distinguishes. Serializable itself, not only
 * its case objects: Scala 2.12 deserializes an object by constructing it, which Java allows
 * only when the first non-serializable superclass has a no-argument constructor.
 */
sealed abstract class FileVersion(val name: String, val ordinal: Int) extends Ordered[FileVersion] with Serializable {
  override def compare(that: FileVersion): Int = ordinal.compare(that.ordinal)
  override def toString: String = name
}

object FileVersion {
  case object Legacy extends FileVersion("0.1", 0)
  case object V2_0 extends FileVersion("2.0", 1)
  case object V2_1 extends FileVersion("2.1", 2)
  case object V2_2 extends FileVersion("2.2", 3)

  /** The version named by a data file footer. */
  def fromFooter(path: String, major: Int, minor: Int): FileVersion = (major, minor) match {
    case (0, 0) | (0, 1) | (0, 2) => Legacy
    case (0, 3) | (2, 0) => V2_0
    case (2, 1) => V2_1
    case (2, 2) => V2_2
    case _ => throw Errors.unsupportedFileVersion(path, major, minor)
  }

  /** The version a manifest's `data_format.version` names ("0.1", "2.0", "2.1", "2.2"). */
  def fromName(name: String, where: String): FileVersion = name match {
    case "0.1" | "legacy" => Legacy
    case "2.0" | "0.3" => V2_0
    case "2.1" => V2_1
    case "2.2" => V2_2
    case other => throw Errors.unsupportedStorageVersion(where, other)
  }

  /** The version a manifest's DataFile records (`file_major_version`, `file_minor_version`). */
  def fromDataFile(path: String, major: Int, minor: Int): FileVersion = fromFooter(path, major, minor)

  /** The (`file_major_version`, `file_minor_version`) a manifest's DataFile records for `v`: 2.0 is (2, 0) there. */
  def dataFileVersion(v: FileVersion): (Int, Int) = v match {
    case Legacy => throw Errors.unsupported("writing legacy (0.1) data files", "a manifest's data file")
    case V2_0 => (2, 0)
    case V2_1 => (2, 1)
    case V2_2 => (2, 2)
  }
}
