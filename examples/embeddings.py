"""Embeddings: vectors written from Spark as a Lance vector column, searched with pylance.

Spark has no vector type: a vector is an `array<float>` whose field metadata declares its
dimension (`arrow.fixed-size-list.size`), and the connector stores it as Lance's fixed-size list,
the type Lance's vector search and indices work on. pylance then opens the same folder and
finds the nearest neighbours of a query, first by a full scan, then through an IVF_FLAT index it
builds; both answers are checked against a brute-force numpy search. At the end Spark reads the
table again, now with pylance's index in it.

The vectors are random but deterministic (a fixed seed), 2,000 of 32 dimensions.

Run:  python examples/embeddings.py [--workdir DIR] [--remote sc://host:port]
Needs pylance (`pip install pylance`) and numpy besides pyspark-lance.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from _session import arguments, session, workdir

ROWS, DIM, SEED = 2000, 32, 7
QUERY_ROW = 1234  # the query is this row's vector, slightly moved


def make_vectors() -> np.ndarray:
    return np.random.default_rng(SEED).standard_normal((ROWS, DIM)).astype(np.float32)


def make_query(vectors: np.ndarray) -> np.ndarray:
    noise = np.random.default_rng(SEED + 1).standard_normal(DIM).astype(np.float32) * 0.01
    return vectors[QUERY_ROW] + noise


def require_pylance() -> None:
    """Exits with a message (and status 1) when pylance is not installed."""
    if importlib.util.find_spec("lance") is None:
        sys.exit("embeddings.py searches with pylance, which is not installed: pip install pylance")


def main(spark: SparkSession, work: str) -> None:
    require_pylance()
    import lance  # after Spark started its JVM (pylance warns about processes forked after it loads)

    vectors = make_vectors()
    uri = os.path.join(work, "items.lance")

    # Spark writes: the dimension goes into the column's metadata, so the column becomes a
    # fixed_size_list<float>[32] (without it, a variable-length list no vector index accepts).
    df = spark.createDataFrame([(i, vectors[i].tolist()) for i in range(ROWS)], "id long, vector array<float>")
    df = df.select("id", F.col("vector").alias("vector", metadata={"arrow.fixed-size-list.size": DIM}))
    df.write.format("lance").mode("overwrite").save(uri)

    # pylance reads the same folder.
    ds = lance.dataset(uri)
    print(f"pylance sees {ds.count_rows()} rows, vector type {ds.schema.field('vector').type}")
    query = make_query(vectors)
    expected = int(np.argmin(np.linalg.norm(vectors - query, axis=1)))  # brute force, in numpy
    print(f"brute force (numpy): nearest id={expected}")

    def nearest(**search) -> int:
        hits = ds.to_table(columns=["id"], nearest={"column": "vector", "q": query, "k": 5, **search})
        top = int(hits["id"][0].as_py())
        if top != expected:
            raise SystemExit(f"vector search found id {top}, numpy found {expected}")
        return top

    print(f"flat search (pylance): nearest id={nearest()}")
    # An IVF_FLAT index: 8 partitions of the vectors by k-means; searching all 8 (nprobes)
    # makes the answer exact, as a smaller nprobes trades recall for speed.
    ds.create_index("vector", index_type="IVF_FLAT", num_partitions=8, metric="L2")
    ds = lance.dataset(uri)
    print(f"index: {[(i.index_type, i.num_rows_indexed) for i in ds.describe_indices()]} at version {ds.version}")
    print(f"indexed search (pylance): nearest id={nearest(nprobes=8, use_index=True)}")

    # Spark again: the table now carries pylance's index; the rows are unchanged.
    again = spark.read.format("lance").load(uri)
    row = again.where(f"id = {expected}").collect()[0]
    same = np.array_equal(np.array(row.vector, dtype=np.float32), vectors[expected])
    print(f"Spark reads {again.count()} rows after the index, vector {expected} unchanged: {same}")


if __name__ == "__main__":
    args = arguments(__doc__.splitlines()[0]).parse_args()
    require_pylance()  # before starting Spark: fail fast
    spark = session(args, "spark-lance embeddings")
    try:
        main(spark, workdir(args, "embeddings"))
    finally:
        spark.stop()
