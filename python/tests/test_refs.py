"""Tags and branches made from PySpark through the procedure catalog `lance`, checked by pylance."""

from __future__ import annotations

import lance
import pytest
from pyspark.errors import AnalysisException


def _ids(ds) -> list[int]:
    return sorted(ds.to_table(columns=["id"])["id"].to_pylist())


def test_tags_branches_and_branch_writes(spark, tmp_path):
    uri = str(tmp_path / "t")
    spark.range(3).write.format("lance").save(uri)
    spark.range(3, 5).write.format("lance").mode("append").save(uri)

    row = spark.sql(f"CALL lance.system.create_tag(table => '{uri}', tag => 'first', version => 1)").collect()[0]
    assert (row["tag"], row["version"], row["branch"]) == ("first", 1, None)
    row = spark.sql(f"CALL lance.system.create_branch(table => '{uri}', branch => 'dev', tag => 'first')").collect()[0]
    assert (row["branch"], row["version"], row["parent_branch"]) == ("dev", 1, None)
    spark.range(10, 12).write.format("lance").option("branch", "dev").mode("append").save(uri)

    ds = lance.dataset(uri)
    assert ds.tags.list()["first"]["version"] == 1
    assert ds.branches.list()["dev"]["parent_version"] == 1
    assert _ids(lance.dataset(uri, version="first")) == [0, 1, 2]
    assert _ids(ds.checkout_version(("dev", None))) == [0, 1, 2, 10, 11]
    assert _ids(ds) == [0, 1, 2, 3, 4]

    # A taken name is refused with its class; nothing changes.
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"CALL lance.system.create_tag(table => '{uri}', tag => 'first')").collect()
    assert e.value.getCondition() == "LANCE_REF_ALREADY_EXISTS"
    assert lance.dataset(uri).tags.list()["first"]["version"] == 1

    spark.sql(f"CALL lance.system.delete_tag(table => '{uri}', tag => 'first')").collect()
    spark.sql(f"CALL lance.system.delete_branch(table => '{uri}', branch => 'dev')").collect()
    ds = lance.dataset(uri)
    assert ds.tags.list() == {} and ds.branches.list() == {}
