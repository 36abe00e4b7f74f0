package io.sparklance.table.commit

import io.sparklance.testutil.{CommitFixtures, LocalFolderStore}

/**
 * A separate writer process for CommitProcessesSuite:
 *   `append ROOT WORKER COUNT`  commits COUNT appends of 10 rows (ids WORKER*1000 + i*10 ...), each planned at the latest version
 *   `loop ROOT RUN`             prints "ready", then appends batches of 10 rows until killed
 * printing "committed VERSION FIRST_ID" after each commit.
 */
object CommitWorker {
  def main(args: Array[String]): Unit = {
    val store = new LocalFolderStore
    val root = args(1)
    val committer = new TableCommitter(store, root)
    def appendBatch(first: Long): Unit = {
      val f = CommitFixtures.fragment(store, root, first until first + 10)
      val read = CommitFixtures.latestVersion(store, root)
      val out = committer.commit(CommitRequest(Some(read), Operation.Append(IndexedSeq(f))))
      println(s"committed ${out.version} $first")
      System.out.flush()
    }
    args(0) match {
      case "append" =>
        val worker = args(2).toLong
        (0 until args(3).toInt).foreach(i => appendBatch(worker * 1000 + i * 10))
      case "loop" =>
        println("ready"); System.out.flush()
        var i = 0L
        while (true) { appendBatch(args(2).toLong * 100000 + i * 10); i += 1 }
    }
  }
}
