package io.sparklance.table

import io.sparklance.format.FileVersion

// Spec: lance-format/lance docs/src/format/table/index.md (fragments). Turns a pinned
// snapshot into scan tasks: one per fragment for now.

object ScanPlanner {

  def plan(snapshot: Snapshot): IndexedSeq[ScanTask] = {
    val m = snapshot.manifest
    val locations = new FileLocations(snapshot.root, m)
    m.fragments.filter(_.physicalRows > 0).map { f =>
      val files = f.files.map { d =>
        ScanFile(locations.dataFile(d), d.fileSizeBytes, d.fields, d.columnIndices,
          FileVersion.fromDataFile(d.path, d.majorVersion, d.minorVersion))
      }
      val deletion = f.deletionFile.map(d => ScanDeletion(locations.deletionFile(f.id, d), d.fileType, d.numDeletedRows))
      ScanTask(f.id, files, f.physicalRows, 0, f.physicalRows, deletion)
    }
  }
}
