package io.sparklance.util

import java.util.Properties

/**
 * What this jar is and was built against, from the resource the build writes for its Spark line
 * (build.sbt, project/SparkLines.scala): our version, the Spark, Scala, Hadoop and AWS SDK
 * versions, and the Java release.
 */
object BuildInfo {
  private lazy val props: Properties = {
    val p = new Properties()
    Option(getClass.getResourceAsStream("/io/sparklance/version.properties")).foreach { in =>
      try p.load(in) finally in.close()
    }
    p
  }

  private def get(key: String, default: String): String = props.getProperty(key, default)

  /** This build's version, e.g. 0.1.0 or 0.2.0-SNAPSHOT. */
  def version: String = get("version", "0.0.0")

  /** The Hadoop release the line's Spark ships. */
  def hadoop: String = get("hadoop", "")

  /** The AWS SDK version that Hadoop release's hadoop-aws was built with (1.x: the v1 bundle; 2.x: the v2 modules). */
  def awsSdk: String = get("awsSdk", "")
}
