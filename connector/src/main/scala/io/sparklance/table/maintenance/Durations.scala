package io.sparklance.table.maintenance

import java.time.Duration

import io.sparklance.util.Errors

/**
 * Durations written as people write them, in the humantime syntax Lance parses
 * `lance.auto_cleanup.older_than` with ("14days", "1h 30m", "2 weeks"): one or more
 * `<number><unit>` parts, spaces allowed. Months are 30.44 days and years 365.25, as humantime.
 */
object Durations {
  private val Part = """(\d+)\s*([a-zA-Z]+)""".r
  private val Seconds: Map[String, Double] = {
    val units = Seq(
      Seq("nsec", "ns", "nanos", "nanosecond", "nanoseconds") -> 1e-9,
      Seq("usec", "us", "micros", "microsecond", "microseconds") -> 1e-6,
      Seq("msec", "ms", "millis", "millisecond", "milliseconds") -> 1e-3,
      Seq("seconds", "second", "sec", "secs", "s") -> 1.0,
      Seq("minutes", "minute", "min", "mins", "m") -> 60.0,
      Seq("hours", "hour", "hr", "hrs", "h") -> 3600.0,
      Seq("days", "day", "d") -> 86400.0,
      Seq("weeks", "week", "w") -> 604800.0,
      Seq("months", "month", "M") -> 2630016.0,
      Seq("years", "year", "y") -> 31557600.0)
    units.flatMap { case (names, s) => names.map(_ -> s) }.toMap
  }

  /** The duration `text` says, or None when it is not one. */
  def parse(text: String): Option[Duration] = {
    val t = text.trim
    val parts = Part.findAllMatchIn(t).toList
    // Whole text: the parts, with nothing but spaces between and around them.
    val gaps = (0 +: parts.map(_.end)).zip(parts.map(_.start) :+ t.length).map { case (a, b) => t.substring(a, b) }
    val units = parts.map(m => Seconds.get(m.group(2)).orElse(Seconds.get(m.group(2).toLowerCase)))
    if (parts.isEmpty || gaps.exists(_.trim.nonEmpty) || units.contains(None)) None
    else {
      val nanos = parts.zip(units.flatten).map { case (m, s) => BigDecimal(m.group(1)) * BigDecimal(s) * BigDecimal(1e9) }.sum
      if (nanos > BigDecimal(Long.MaxValue)) None else Some(Duration.ofNanos(nanos.toLong))
    }
  }

  def require(what: String, text: String): Duration =
    parse(text).getOrElse(throw Errors.invalidArgument(
      s"$what: '$text' is not a duration; write it as e.g. '7 days', '14days', '36h' or '1 week 2 days'"))
}
