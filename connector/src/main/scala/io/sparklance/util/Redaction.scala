package io.sparklance.util

import java.util.regex.Pattern

/**
 * Hides credentials written into URIs (`s3a://KEY:SECRET@bucket/t`,
 * `scheme://user:password@host/...`) wherever a path is shown: error messages (through
 * [[LanceException]]), the causes they carry, and the spark layer's plan strings. Hadoop
 * accepts keys in the authority of an s3a URI, and its own messages echo the URI whole.
 */
object Redaction {
  val Mask = "***"

  // The user-info of a URI: everything after `scheme://` up to an '@', when it holds no
  // '/' (the authority ends at the first '/'), or when it holds a ':' (a secret key may
  // itself contain '/', which Hadoop then misreads as the start of the path) that is not a
  // port (`host:8020/path@x` is a path with an '@', not credentials).
  private val UserInfo = Pattern.compile("""([A-Za-z][A-Za-z0-9+.\-]*://)(?:[^\s/@'"<>]*|[^\s/@'"<>]*:(?!\d{1,5}/)[^\s@'"<>]*)@""")

  /** `text` with the user-info of every URI in it replaced by [[Mask]]. */
  def apply(text: String): String =
    if (text == null || text.indexOf('@') < 0) text
    else UserInfo.matcher(text).replaceAll("$1" + java.util.regex.Matcher.quoteReplacement(Mask) + "@")

  // Spark's default spark.redaction.regex: option keys whose values are credentials.
  private val SecretKey = Pattern.compile("(?i)secret|password|token|access[.]?key")

  /** An option's value as shown in plans and table properties: masked where its key names a credential. */
  def option(key: String, value: String): String = if (SecretKey.matcher(key).find()) Mask else apply(value)

  /**
   * `t` itself when no message in its cause chain shows credentials; otherwise a copy of
   * the chain whose messages are redacted, keeping each original class name and stack.
   */
  def cause(t: Throwable): Throwable =
    if (t == null || !leaks(t)) t
    else {
      val copy = new RedactedThrowable(t.getClass.getName, apply(t.getMessage), cause(t.getCause))
      copy.setStackTrace(t.getStackTrace)
      copy
    }

  private def leaks(t: Throwable): Boolean =
    Iterator.iterate(t)(_.getCause).takeWhile(_ != null).take(64).exists(e => e.getMessage != null && apply(e.getMessage) != e.getMessage)
}

/** Stands in for an exception whose message showed credentials; `toString` keeps its class. */
final class RedactedThrowable(val originalClass: String, message: String, cause: Throwable)
    extends RuntimeException(message, cause) {
  override def toString: String = if (message == null) originalClass else s"$originalClass: $message"
}
