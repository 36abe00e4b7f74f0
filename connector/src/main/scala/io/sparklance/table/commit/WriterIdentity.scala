package io.sparklance.table.commit

import io.sparklance.table.WriterVersion
import io.sparklance.util.BuildInfo

// Every manifest names the library that wrote it (Manifest.writer_version). Rust applies its
// fixes for old Lance releases only when the library is "lance", so ours names this project.

object WriterIdentity {
  val Library = "spark-lance"

  /** This build's version (from the resource the build writes), semver core and pre-release apart. */
  lazy val current: WriterVersion = {
    val full = BuildInfo.version
    full.split("-", 2) match {
      case Array(core, pre) => WriterVersion(Library, core, Some(pre))
      case _ => WriterVersion(Library, full, None)
    }
  }
}
