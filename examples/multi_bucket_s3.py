"""A Lance table whose data lives in two buckets of an S3-compatible server.

The table's root (manifests, transactions, deletion files, and the data files written without a
target) is in one bucket; a second bucket holds the data files written to the table's base path
`archive`, declared when the table is created (write option `initialBases`) and chosen per write
(`targetBases`). A third location is added later with the Python table API (`add_bases`). Lance
records in every data file's entry which base it lies in, so any Lance reader (pylance too)
finds the files in both buckets. The example prints the objects per bucket and reads the table back.

Run against any S3-compatible server (MinIO, SeaweedFS, AWS S3) with two existing buckets:

  python examples/multi_bucket_s3.py --bucket BUCKET --bucket2 BUCKET2 \
      [--endpoint http://127.0.0.1:8333] [--access-key KEY] [--secret-key SECRET] [--region us-east-1] \
      [--prefix spark-lance-example] [--jars JARS] [--remote sc://host:port]

Defaults come from the environment: S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_REGION, S3_BUCKET, S3_BUCKET2, SPARK_LANCE_S3_JARS. Spark reaches S3 through Hadoop's S3A
file system: a local session needs hadoop-aws (of Spark's Hadoop version) and the AWS SDK jars,
given by --jars (comma-separated paths) or by Spark's own `spark.jars.packages`. Over Spark
Connect (--remote) the server must have those jars and the `spark.hadoop.fs.s3a.*` settings; the
endpoint and keys are then used here only to list the buckets' objects (with pyarrow's S3 client).
"""

from __future__ import annotations

import json
import os
from collections import Counter

from pyarrow import fs as pafs
from pyspark.sql import SparkSession

from _session import arguments, session
from pyspark_lance import LanceTable


def hadoop_s3a_conf(args) -> dict[str, str]:
    """The S3A settings for an endpoint with path-style addressing and static keys."""
    return {
        "spark.hadoop.fs.s3a.endpoint": args.endpoint,
        "spark.hadoop.fs.s3a.endpoint.region": args.region,
        "spark.hadoop.fs.s3a.path.style.access": "true",
        "spark.hadoop.fs.s3a.connection.ssl.enabled": str(args.endpoint.startswith("https")).lower(),
        "spark.hadoop.fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        "spark.hadoop.fs.s3a.access.key": args.access_key,
        "spark.hadoop.fs.s3a.secret.key": args.secret_key,
    }


def list_objects(args, bucket: str) -> list[str]:
    """The keys below the example's prefix in `bucket`, relative to it."""
    scheme, host = args.endpoint.split("://", 1)
    s3 = pafs.S3FileSystem(access_key=args.access_key, secret_key=args.secret_key, region=args.region,
                           scheme=scheme, endpoint_override=host)
    infos = s3.get_file_info(pafs.FileSelector(f"{bucket}/{args.prefix}", recursive=True, allow_not_found=True))
    return sorted(i.path.removeprefix(f"{bucket}/{args.prefix}/") for i in infos if i.type == pafs.FileType.File)


def print_objects(args) -> None:
    for which, bucket in (("bucket", args.bucket), ("bucket2", args.bucket2)):
        keys = list_objects(args, bucket)
        data = [k for k in keys if k.endswith(".lance")]
        folders = Counter(k.rsplit("/", 1)[0] for k in keys)
        print(f"{which} {bucket}: {len(keys)} objects, {len(data)} data files; per folder {dict(sorted(folders.items()))}")


def main(spark: SparkSession, args) -> None:
    # s3:// and s3a:// both reach S3A in the connector; pylance understands s3:// only, so the
    # table and its bases are named with s3:// and stay readable by both.
    uri = f"s3://{args.bucket}/{args.prefix}/events.lance"
    archive = f"s3://{args.bucket2}/{args.prefix}/events_archive"

    def events(start: int, end: int):
        return spark.range(start, end).selectExpr("id", "concat('event-', id) AS name").coalesce(1)

    # Version 1 creates the table with the base `archive` in the second bucket, and writes its
    # rows there (maxRowsPerFile 3: two files).
    bases = json.dumps([{"name": "archive", "path": archive}])
    (events(0, 6).write.format("lance").mode("overwrite").option("initialBases", bases)
     .option("targetBases", "archive").option("maxRowsPerFile", 3).save(uri))
    # Version 2: an append without a target goes to the table's own data/ folder.
    events(6, 10).write.format("lance").mode("append").option("maxRowsPerFile", 2).save(uri)
    # Version 3 adds a base `recent` in the second bucket too; version 4 writes to it.
    table = LanceTable.for_path(spark, uri)
    added = table.add_bases({"recent": f"s3://{args.bucket2}/{args.prefix}/events_recent"})
    print(f"added bases: {[(r['id'], r['name']) for r in added]}")
    events(10, 12).write.format("lance").mode("append").option("targetBases", "recent").save(uri)

    print_objects(args)
    df = spark.read.format("lance").load(uri)
    print(f"read back: {df.count()} rows, ids {[r.id for r in df.orderBy('id').collect()]}, version {table.version}")


if __name__ == "__main__":
    parser = arguments(__doc__.splitlines()[0])
    env = os.environ.get
    parser.add_argument("--endpoint", default=env("S3_ENDPOINT", "http://127.0.0.1:8333"))
    parser.add_argument("--access-key", default=env("AWS_ACCESS_KEY_ID"))
    parser.add_argument("--secret-key", default=env("AWS_SECRET_ACCESS_KEY"))
    parser.add_argument("--region", default=env("AWS_REGION", "us-east-1"))
    parser.add_argument("--bucket", default=env("S3_BUCKET"), help="the bucket of the table's root")
    parser.add_argument("--bucket2", default=env("S3_BUCKET2"), help="the bucket of its other data")
    parser.add_argument("--prefix", default="spark-lance-example", help="the folder in both buckets")
    parser.add_argument("--jars", default=env("SPARK_LANCE_S3_JARS"), help="hadoop-aws and AWS SDK jars")
    args = parser.parse_args()
    missing = [n for n in ("access_key", "secret_key", "bucket", "bucket2") if not getattr(args, n)]
    if missing:
        parser.error(f"missing {', '.join('--' + m.replace('_', '-') for m in missing)} (or their environment variables)")
    conf = hadoop_s3a_conf(args)
    if args.jars:
        conf["spark.jars"] = args.jars
    spark = session(args, "spark-lance multi-bucket", conf)
    try:
        main(spark, args)
    finally:
        spark.stop()
