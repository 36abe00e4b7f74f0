package io.sparklance.util

import org.scalatest.funsuite.AnyFunSuite

/** Credentials written into URIs are hidden wherever a message shows them. */
class RedactionSuite extends AnyFunSuite {

  test("user-info of URIs is masked, the rest of the text kept") {
    Seq(
      "s3a://KEY:SECRET@bucket/t" -> "s3a://***@bucket/t",
      "s3a://AKIAXYZ:se/cr+et@bucket/t/data" -> "s3a://***@bucket/t/data",
      "hdfs://alice:pw@namenode:8020/x" -> "hdfs://***@namenode:8020/x",
      "https://alice@host/x" -> "https://***@host/x",
      "reading s3://K:S@b/t failed; see abfs://u:p@acct.dfs.core.windows.net/y" -> "reading s3://***@b/t failed; see abfs://***@acct.dfs.core.windows.net/y",
      "'gs://k:s@bkt/a' and \"s3a://k:s@bkt/b\"" -> "'gs://***@bkt/a' and \"s3a://***@bkt/b\"")
      .foreach { case (in, out) => assert(Redaction(in) == out, in) }
  }

  test("paths without credentials are left alone, '@' in them too") {
    Seq("s3a://bucket/t", "/data/file@v2.lance", "file:///tmp/a@b", "s3a://bucket/dir@2/x", "mail me@example.com", "", null,
        "hdfs://nn:8020/tables/t@2024/x", "hdfs://nn.example.com:9000/a/b@c")
      .foreach(s => assert(Redaction(s) == s, String.valueOf(s)))
  }

  test("errors redact their message and every message of their causes, keeping classes and stacks") {
    val root = new java.io.IOException("connect to s3a://K:SECRET@bucket/t refused")
    val cause = new RuntimeException("wrapped: s3a://K:SECRET@bucket/t", root)
    val e = Errors.io("s3a://K:SECRET@bucket/t", "listing", cause)
    val chain = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).toSeq
    assert(chain.length == 3)
    chain.foreach(t => assert(!t.getMessage.contains("SECRET") && !t.toString.contains("SECRET"), t))
    assert(chain(2).toString.startsWith("java.io.IOException: connect to s3a://***@bucket/t"))
    assert(chain(2).getStackTrace.sameElements(root.getStackTrace))
    val clean = new RuntimeException("nothing to hide")
    assert(Errors.io("/t", "listing", clean).getCause eq clean)
  }
}
