package io.sparklance.table

// Lance repairs known mistakes of older writers when it reads their manifests, keyed by the
// manifest's writer_version; we apply the same repairs, one method per mistake, each named
// after the release that made it. A manifest is corrected once, as it is read
// ([[ManifestFile.read]]), so every consumer sees the repaired values.

object WriterCorrections {

  def apply(manifest: Manifest): Manifest = physicalRowsOfLance080(manifest)

  /**
   * Lance 0.8.0 was the first release to record `physical_rows`, and on commit it filled the
   * count in for fragments written without it (by 0.7.x and earlier) from their rows after
   * deletions, so a fragment with deletions claims fewer rows than its data file holds
   * (lance-format/lance issue 1531). The releases that made the mistake wrote no
   * writer_version, so Lance ignores `physical_rows` in every manifest without one and counts
   * the rows of the fragment's first data file instead (rust/lance/src/dataset/fragment.rs,
   * `FileFragment::physical_rows`; the commit path rewrites them, rust/lance/src/io/commit.rs,
   * `recompute_stats`). Here the count becomes 0, "unknown", which the planner resolves from
   * the data file ([[ScanPlanner.plan]]).
   */
  private[table] def physicalRowsOfLance080(manifest: Manifest): Manifest =
    if (manifest.writerVersion.isDefined || manifest.fragments.forall(_.physicalRows == 0)) manifest
    else manifest.copy(fragments = manifest.fragments.map(_.copy(physicalRows = 0L)))
}
