package io.sparklance.table

import java.io.File
import java.net.{URI, URISyntaxException}

import io.sparklance.storage.Paths
import io.sparklance.util.Errors

// Spec: lance-format/lance docs/src/format/table/layout.md (base paths) and
// rust/lance-io/src/object_store.rs (uri_to_url / expand_path). Base paths are the one way
// a table's files may lie outside its folder (multi-base layouts, shallow clones,
// branches), so a table's base paths are trusted as it names them; a reader that does not
// trust its tables lists the prefixes it allows (read option `allowedBasePaths`).

object BasePaths {

  private def hasScheme(p: String): Boolean = p.contains(":/")

  /** A local path relative to the working directory: neither a URI nor absolute. */
  def isRelative(p: String): Boolean = !hasScheme(p) && !p.startsWith("/")

  /**
   * `bases` with each relative local path made absolute. Lance treats a base path that is
   * not a URL as a local path, expands `~` and makes it absolute against the process's
   * working directory; done once here, on the driver when the snapshot is opened, every
   * executor reads the same folder rather than one below its own working directory.
   */
  def absolute(bases: IndexedSeq[BasePath]): IndexedSeq[BasePath] = bases.map { b =>
    if (!isRelative(b.path)) b
    else {
      val expanded =
        if (b.path == "~" || b.path.startsWith("~/")) System.getProperty("user.home") + b.path.drop(1) else b.path
      b.copy(path = new File(expanded).getAbsoluteFile.toPath.normalize.toString)
    }
  }

  /**
   * A location in one comparable form: scheme (s3 and s3n read as s3a, none as file),
   * authority without user-info, and the normalized path ('..' resolved) without a
   * trailing '/'. An existing local path is taken with its symbolic links resolved, so a
   * table opened through a link matches the base paths its writer recorded, and a link
   * inside an allowed folder does not lead outside it. None when it does not parse.
   */
  def canonical(p: String): Option[String] =
    try {
      val parsed = (if (hasScheme(p)) new URI(p) else new File(p).getAbsoluteFile.toURI).normalize()
      val uri =
        if (!"file".equalsIgnoreCase(parsed.getScheme)) parsed
        else try java.nio.file.Paths.get(parsed).toRealPath().toUri
        catch { case _: java.io.IOException | _: IllegalArgumentException | _: java.nio.file.FileSystemNotFoundException => parsed }
      val scheme = Option(uri.getScheme).map(_.toLowerCase).getOrElse("file") match {
        case "s3" | "s3n" => "s3a"
        case s => s
      }
      // Bucket names may hold characters a host name may not, so take the raw authority.
      val authority = Option(uri.getRawAuthority).map(a => a.substring(a.lastIndexOf('@') + 1)).getOrElse("")
      Some(s"$scheme://$authority${Paths.stripTrailingSlash(Option(uri.getPath).getOrElse(""))}")
    } catch { case _: URISyntaxException | _: IllegalArgumentException => None }

  private def within(location: String, prefix: String): Boolean =
    location == prefix || location.startsWith(if (prefix.endsWith("/")) prefix else prefix + "/")

  /** True when `location` lies under one of `prefixes` (already canonical). */
  def isAllowed(location: String, prefixes: Seq[String]): Boolean =
    canonical(location).exists(c => prefixes.exists(within(c, _)))

  /** Where a table at `root` may read with the `allowed` prefixes (canonical): those and its own folder. */
  def prefixes(root: String, allowed: Seq[String]): Seq[String] = canonical(root).toSeq ++ allowed

  /**
   * Refuses a base path outside both the table's own folder `root` and the `allowed`
   * prefixes (already canonical); `manifest` is named in the error.
   */
  def checkAllowed(manifest: String, root: String, bases: Seq[BasePath], allowed: Seq[String]): Unit = {
    val where = prefixes(root, allowed)
    bases.foreach { b =>
      if (!isAllowed(b.path, where))
        throw Errors.locationNotAllowed(manifest, "the table reads files from base path", b.path, allowed)
    }
  }
}
