package io.sparklance.table

// Spec: lance-format/lance rust/lance-table/src/io/commit.rs and
// docs/src/format/table/versioning.md. Manifests live in `_versions/` under one of two
// naming schemes: V1 `{version}.manifest`, and V2 `{u64::MAX - version}.manifest`
// zero-padded to 20 digits, so that a lexical listing is newest first. Detached versions
// (`d{version}.manifest`) are never "latest" and are not read here.

sealed trait ManifestNaming {
  def fileName(version: Long): String
}

object ManifestNaming {
  case object V1 extends ManifestNaming {
    def fileName(version: Long): String = s"${java.lang.Long.toUnsignedString(version)}.manifest"
  }

  case object V2 extends ManifestNaming {
    def fileName(version: Long): String = {
      val inverted = java.lang.Long.toUnsignedString(-1L - version) // u64::MAX - version
      ("0" * (20 - inverted.length)) + inverted + ".manifest"
    }
  }

  private val Suffix = ".manifest"
  private val V2NameLength = 20 + Suffix.length

  /**
   * The version and naming scheme of a manifest file name, or None for anything else in
   * `_versions/` (staging files, the latest-version hint, detached versions).
   */
  def parse(name: String): Option[(Long, ManifestNaming)] = {
    if (!name.endsWith(Suffix) || name.startsWith("d")) None
    else {
      val digits = name.dropRight(Suffix.length)
      if (digits.isEmpty || !digits.forall(c => c >= '0' && c <= '9')) None
      else if (name.length == V2NameLength)
        parseU64(digits).map(inv => (-1L - inv, V2))
      else parseU64(digits).map(v => (v, V1))
    }
  }

  private def parseU64(s: String): Option[Long] =
    try Some(java.lang.Long.parseUnsignedLong(s)) catch { case _: NumberFormatException => None }
}
