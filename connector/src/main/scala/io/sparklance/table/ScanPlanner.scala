package io.sparklance.table

import io.sparklance.format.FileVersion
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/index.md (fragments). Turns a pinned
// snapshot into scan tasks: one per fragment for now.

object ScanPlanner {

  def plan(snapshot: Snapshot): IndexedSeq[ScanTask] = {
    val m = snapshot.manifest
    val where = snapshot.manifestPath
    val locations = new FileLocations(snapshot.root, m)
    m.fragments.filter(_.physicalRows > 0).map { f =>
      if (f.deletionFile.isDefined)
        throw Errors.unsupported(s"reading tables with deleted rows (fragment ${f.id} has a deletion file)", where)
      val files = f.files.map { d =>
        ScanFile(locations.dataFile(d), d.fileSizeBytes, d.fields, d.columnIndices,
          FileVersion.fromDataFile(d.path, d.majorVersion, d.minorVersion))
      }
      ScanTask(f.id, files, f.physicalRows, 0, f.physicalRows, None)
    }
  }
}
