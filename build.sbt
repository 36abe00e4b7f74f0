// spark-lance build: one connector module plus an aggregate root.
//
// Spark, Scala, Arrow, Hadoop, RoaringBitmap, zstd-jni and lz4-java are provided by
// Spark at run time; protobuf-java is shaded into the connector jar under
// io.sparklance.shaded so that it never clashes with a user's protobuf.

// The Spark line (-DsparkLine, -DscalaBinary; project/SparkLines.scala) fixes Spark, Scala,
// Hadoop and the Java release; the jar is named for it: spark-lance-4.2_2.13-<version>.jar.
val line = SparkLines.current
val sparkVersion = line.spark
val protobufVersion = "4.36.2" // must equal the protoc version used by sbt-protoc
val hadoopVersion = line.hadoop // the Hadoop client the line's Spark ships (hadoop-client-api)
val awsSdkVersion = line.awsSdk // the AWS SDK this Hadoop release builds against

ThisBuild / organization := "io.sparklance"
// One version for the jar and the Python package (python/setup.py reads it back from the jar).
ThisBuild / version := IO.read((ThisBuild / baseDirectory).value / "VERSION").trim
ThisBuild / scalaVersion := SparkLines.scalaVersion // must equal the scala-library the line's Spark bundles
ThisBuild / scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Xlint:-unused,_", "-release", line.java.toString)
ThisBuild / javacOptions ++= Seq("--release", line.java.toString)

// Spark's launcher adds these for spark-submit and pyspark; forked test JVMs need them too
// (Kryo, broadcast and Arrow's nioBuffer() fail without them on JDK 17).
val sparkJavaModuleOptions = Seq(
  "-XX:+IgnoreUnrecognizedVMOptions",
  "--add-modules=jdk.incubator.vector",
  "-Dio.netty.tryReflectionSetAccessible=true",
  "--add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED"
) ++ Seq(
  "java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net", "java.nio",
  "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "jdk.internal.ref",
  "sun.nio.ch", "sun.nio.cs", "sun.security.action", "sun.util.calendar"
).map(p => s"--add-opens=java.base/$p=ALL-UNNAMED")

// The S3 suites (S3Suite, S3WriteSuite) read and write through s3a on a local SeaweedFS: hadoop-aws
// at the line's Hadoop without the AWS SDK's all-in-one bundle (686 MB for v2), plus only the SDK
// modules s3a loads: v2's from Hadoop 3.4, v1's before. On lines whose s3a has no conditional
// create (Hadoop before 3.4.2: Spark 3.5, 4.0) our own conditional PUT (storage/hadoop overlays,
// S3aConditionalPut) compiles against s3a and the SDK: there they are Provided, elsewhere Test.
// Either way none of it goes into our jar; the jar loads it only for s3a paths.
val s3aScope = if (line.serves("4.1+")) Test else Provided
val s3aLibraries: Seq[ModuleID] =
  if (awsSdkVersion.startsWith("1."))
    Seq(("org.apache.hadoop" % "hadoop-aws" % hadoopVersion % s3aScope).exclude("com.amazonaws", "aws-java-sdk-bundle")) ++
      Seq("aws-java-sdk-s3", "aws-java-sdk-sts", "aws-java-sdk-dynamodb").map("com.amazonaws" % _ % awsSdkVersion % s3aScope)
  else
    Seq(("org.apache.hadoop" % "hadoop-aws" % hadoopVersion % s3aScope).exclude("software.amazon.awssdk", "bundle")) ++
      Seq("s3", "sts", "s3-transfer-manager").map("software.amazon.awssdk" % _ % awsSdkVersion % s3aScope)

lazy val root = (project in file("."))
  .aggregate(connector, bench)
  .disablePlugins(sbtassembly.AssemblyPlugin)
  .settings(publish / skip := true)

lazy val connector = (project in file("connector"))
  .settings(
    name := "spark-lance",
    // Each line's classes and jar apart, so that building one line never reuses another's.
    crossTarget := target.value / s"spark-${SparkLines.suffix}",
    // Code that differs between lines: the overlay folders serving this line (spark-4.2, spark-4.0-4.1, spark-4.1+).
    Compile / unmanagedSourceDirectories ++= SparkLines.overlays(baseDirectory.value / "src" / "main"),
    Test / unmanagedSourceDirectories ++= SparkLines.overlays(baseDirectory.value / "src" / "test"),
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      "com.google.protobuf" % "protobuf-java" % protobufVersion,
      // Puts google/protobuf/*.proto (any, empty, timestamp) on protoc's include path.
      "com.google.protobuf" % "protobuf-java" % protobufVersion % "protobuf",
      "org.scalatest" %% "scalatest" % "3.2.19" % Test
    ) ++ s3aLibraries,
    // Our own .proto files live at the repository root so that every tool can find them.
    Compile / PB.protoSources := Seq((ThisBuild / baseDirectory).value / "protos"),
    Compile / PB.targets := Seq(PB.gens.java(protobufVersion) -> (Compile / sourceManaged).value),
    PB.protocVersion := protobufVersion,
    // The version every manifest we commit names as its writer (table.commit.WriterIdentity),
    // and the Spark and Scala lines the jar is built for (pyspark_lance checks them).
    Compile / resourceGenerators += Def.task {
      val f = (Compile / resourceManaged).value / "io" / "sparklance" / "version.properties"
      IO.write(f, s"version=${version.value}\nspark=$sparkVersion\nscala=${scalaBinaryVersion.value}\njava=${line.java}\n" +
        s"hadoop=$hadoopVersion\nawsSdk=$awsSdkVersion\n")
      Seq(f)
    }.taskValue,
    Test / fork := true,
    Test / javaOptions ++= sparkJavaModuleOptions ++ Seq("-Xmx4g", "-Xss4m"),
    Test / parallelExecution := false,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),
    Test / envVars := Map(
      "SPARK_LANCE_GOLDEN" -> ((ThisBuild / baseDirectory).value / "target" / "golden").getAbsolutePath,
      "SPARK_LANCE_VENV" -> ((ThisBuild / baseDirectory).value / ".venv").getAbsolutePath,
      "SPARK_LANCE_REPO" -> (ThisBuild / baseDirectory).value.getAbsolutePath
    ),
    assembly / assemblyJarName := s"spark-lance-${SparkLines.suffix}-${version.value}.jar",
    assemblyPackageScala / assembleArtifact := false,
    assembly / test := {},
    assembly / assemblyShadeRules := Seq(
      ShadeRule.rename("com.google.protobuf.**" -> "io.sparklance.shaded.protobuf.@1").inAll
    ),
    assembly / assemblyMergeStrategy := {
      case PathList("META-INF", "services", _*) => MergeStrategy.concat
      case PathList("META-INF", _*) => MergeStrategy.discard
      case "module-info.class" => MergeStrategy.discard
      case x if x.endsWith(".proto") => MergeStrategy.discard
      case _ => MergeStrategy.first
    }
  )

// Benchmarks, run on purpose (make bench), never as tests. Spark and its libraries are
// provided at run time in a real deployment, so `run` here uses the full compile classpath.
lazy val bench = (project in file("bench"))
  .dependsOn(connector)
  .disablePlugins(sbtassembly.AssemblyPlugin)
  .settings(
    publish / skip := true,
    libraryDependencies += "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
    Compile / run := Defaults.runTask(Compile / fullClasspath, Compile / run / mainClass, Compile / run / runner).evaluated,
    Compile / runMain := Defaults.runMainTask(Compile / fullClasspath, Compile / run / runner).evaluated,
    run / fork := true,
    run / javaOptions ++= sparkJavaModuleOptions ++ Seq("-Xmx8g", "-Xss4m"),
    run / connectInput := false
  )
