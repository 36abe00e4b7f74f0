"""The Python API reference (docs/python.md) documents every public name of the package: the
module's names, every public method and property of the table API's classes, and every error
class. No Spark is started: only the package's own modules are imported."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pyspark_lance
from pyspark_lance import errors, table

DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _documented(name: str, text: str) -> bool:
    # The name as code (`name`, `name(...)`, `x.name`), not as a part of a longer name.
    return re.search(r"`[^`]*(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])[^`]*`", text) is not None


def _public_members(cls: type) -> list[str]:
    return sorted(n for n, _ in inspect.getmembers(cls) if not n.startswith("_") and n in vars(cls))


def test_every_public_name_of_the_package_is_documented():
    text = _doc()
    names = list(pyspark_lance.__all__)
    assert {"configure", "session", "jar_path", "jar_info", "__version__", "LanceTable"} <= set(names)
    assert [n for n in names if not _documented(n, text)] == []


def test_every_public_method_and_property_of_the_table_api_is_documented():
    text = _doc()
    missing = []
    for cls in (table.LanceTable, table.Tags, table.Branches, table.LanceMergeBuilder):
        members = _public_members(cls)
        assert members, cls
        assert _documented(cls.__name__, text), cls.__name__
        missing += [f"{cls.__name__}.{m}" for m in members if not _documented(m, text)]
    assert "for_path" in _public_members(table.LanceTable) and "execute" in _public_members(table.LanceMergeBuilder)
    assert missing == []


def test_every_error_class_and_helper_is_documented():
    text = _doc()
    classes = [n for n, c in vars(errors).items() if inspect.isclass(c) and issubclass(c, Exception) and c.__module__ == errors.__name__]
    assert len(classes) >= 9
    assert [n for n in classes + list(errors.__all__) if not _documented(n, text)] == []


def test_the_check_can_fail():
    assert not _documented("no_such_method_anywhere", _doc())
    assert not _documented("for_pat", "`LanceTable.for_path(spark, uri)`")
