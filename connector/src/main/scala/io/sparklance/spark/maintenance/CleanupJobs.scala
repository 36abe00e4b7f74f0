package io.sparklance.spark.maintenance

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

import io.sparklance.spark.LanceTable
import io.sparklance.table.maintenance.{Cleanup, CleanupFile, CleanupPolicy, CleanupResult, Deletions}

/**
 * A cleanup of a Lance table with Spark: the plan ([[Cleanup.plan]]: one listing of each folder,
 * one read of each manifest) on the driver, then the deletions as Spark jobs whose tasks delete
 * slices of the files on the executors: first a job for the manifests of the removed versions,
 * then, once they are all gone, a job for the files only those versions named ([[Cleanup.execute]]
 * keeps that order and reports failures after attempting every file). Each phase sets the job
 * description "Lance cleanup <table>: <phase>" (the Spark UI shows it) and logs a line on the
 * driver with its counts and elapsed time.
 */
object CleanupJobs extends Logging {

  /** Files a task deletes at most: small enough to spread a large cleanup over every core. */
  private val FilesPerTask = 250

  def run(table: LanceTable, policy: CleanupPolicy, dryRun: Boolean): CleanupResult = {
    val name = table.name()
    val sc = SparkSession.active.sparkContext
    // The caller's own job description comes back when the procedure ends (a notebook may have set one).
    val callersDescription = sc.getLocalProperty("spark.job.description")
    val started = System.nanoTime()
    def log(line: String): Unit = logInfo(s"cleanup of $name: $line (at ${(System.nanoTime() - started) / 1000000} ms)")
    try {
      sc.setJobDescription(s"Lance cleanup $name: plan (list folders, read manifests)")
      val plan = Cleanup.plan(table.stores.create(), table.options.path, table.options.branch, policy, log)
      if (dryRun) plan.dryRunResult
      else {
        val stores = table.executorStores
        Cleanup.execute(plan, (what, files) => {
          sc.setJobDescription(f"Lance cleanup $name: delete ${files.length}%,d $what")
          log(s"deleting ${files.length} $what")
          val slices = math.max(1, math.min((files.length + FilesPerTask - 1) / FilesPerTask, sc.defaultParallelism * 4))
          sc.parallelize(files, slices)
            .mapPartitions(it => Iterator(Cleanup.delete(stores.create(), it.toSeq)))
            .collect()
            .foldLeft(Deletions.Empty)(_ + _)
        }, log)
      }
    } finally sc.setJobDescription(callersDescription)
  }
}
