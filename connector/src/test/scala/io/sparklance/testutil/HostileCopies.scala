package io.sparklance.testutil

import java.io.File
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.Files

import org.apache.commons.io.FileUtils

import io.sparklance.table.proto.TableProtos

/**
 * Private copies of golden datasets to damage on purpose: the newest manifest rewritten
 * through our protobuf classes (the bytes before the manifest message, index section and
 * transaction, are kept, so their offsets stay right), and a scratch folder beside it.
 */
object HostileCopies {

  /**
   * A fresh temporary folder, deleted with all it then holds when the JVM exits. Deleted
   * by unlinking alone: commons-io opens each file it deletes, which blocks on a FIFO.
   */
  def tempDir(prefix: String): File = {
    val dir = Files.createTempDirectory(prefix)
    Runtime.getRuntime.addShutdownHook(new Thread(() =>
      try {
        val all = Files.walk(dir)
        try all.sorted(java.util.Comparator.reverseOrder[java.nio.file.Path]()).forEach(p => Files.deleteIfExists(p))
        finally all.close()
      } catch { case _: java.io.IOException | _: java.io.UncheckedIOException => () }))
    dir.toFile
  }

  /** A fresh folder holding `table/`, a copy of golden dataset `name`. */
  def copy(name: String): File = {
    val dir = tempDir("lance-hostile")
    FileUtils.copyDirectory(new File(Golden.dataset(name).uri), new File(dir, "table"))
    new File(dir, "table")
  }

  def manifests(table: File): Seq[File] =
    new File(table, "_versions").listFiles().filter(_.getName.endsWith(".manifest")).toSeq

  /** The newest manifest (V2 names sort newest first, V1 names by their number). */
  def newestManifest(table: File): File = {
    val all = manifests(table)
    if (all.head.getName.length == 29) all.minBy(_.getName) else all.maxBy(_.getName.stripSuffix(".manifest").toLong)
  }

  /** The Manifest message of manifest file `m`, as our protobuf classes parse it. */
  def readManifest(m: File): TableProtos.Manifest = {
    val bytes = Files.readAllBytes(m.toPath)
    val n = bytes.length
    val pos = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(n - 16).toInt
    TableProtos.Manifest.parseFrom(java.util.Arrays.copyOfRange(bytes, pos + 4, n - 16))
  }

  /** Rewrites manifest file `m` with `edit` applied to its Manifest message. */
  def editManifest(m: File)(edit: TableProtos.Manifest.Builder => Unit): Unit = {
    val bytes = Files.readAllBytes(m.toPath)
    val pos = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(bytes.length - 16).toInt
    val builder = readManifest(m).toBuilder
    edit(builder)
    val patched = builder.build().toByteArray
    val out = ByteBuffer.allocate(pos + 4 + patched.length + 16).order(ByteOrder.LITTLE_ENDIAN)
    out.put(bytes, 0, pos).putInt(patched.length).put(patched).putLong(pos.toLong).putShort(0).putShort(2).put("LANC".getBytes)
    Files.write(m.toPath, out.array())
  }

  /** Makes a named pipe at `f` (mkfifo): opening it for reading blocks until a writer comes. */
  def mkfifo(f: File): Unit = {
    Files.deleteIfExists(f.toPath)
    val p = new ProcessBuilder("mkfifo", f.getPath).inheritIO().start()
    assert(p.waitFor() == 0 && f.exists(), s"mkfifo $f failed")
  }

  /**
   * Releases a reader blocked opening FIFO `f`: a writer opens it and closes at once. The
   * writer's open itself waits for a reader, so it runs on a daemon thread.
   */
  def release(f: File): Unit = {
    val t = new Thread(() => try new java.io.FileOutputStream(f).close() catch { case _: Exception => () })
    t.setDaemon(true)
    t.start()
  }
}
