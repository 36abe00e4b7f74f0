"""Build hook of the pyspark-lance package: the wheel carries the connector jars, and takes their version.

The package carries one jar per Spark line and Scala binary, ``pyspark_lance/jars/spark-lance-<line>_<scala>.jar``:
`make jar SPARK_LINE=4.1` installs one line's, `make jars` all of them (the release wheel is built after
`make jars`). A wheel without any jar would install a package that cannot start a session, so building
one fails here instead. The package's version is the jars' (the `version` in each jar's
io/sparklance/version.properties, which the build writes from the repository's VERSION file): the jars
must all have the same one, and each must be built for the line and Scala its name says. The pyspark
the package requires spans the lines it carries.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from setuptools import setup

JARS = Path(__file__).resolve().parent / "pyspark_lance" / "jars"
NAME = re.compile(r"spark-lance-(\d+)\.(\d+)_(\d+\.\d+)\.jar")


def properties(jar: Path) -> dict[str, str]:
    with zipfile.ZipFile(jar) as z:
        text = z.read("io/sparklance/version.properties").decode("utf-8")
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def carried() -> dict[Path, dict[str, str]]:
    """Every carried jar and what it says of itself; exits naming the problem when one is missing or inconsistent."""
    jars = sorted(JARS.glob("*.jar"))
    if not jars:
        raise SystemExit(f"error: the connector jar is missing under {JARS}; run `make wheel` after `make jars` (all "
                         "lines) or `make jar SPARK_LINE=<line>` (one) in the spark-lance repository")
    found = {}
    for jar in jars:
        m = NAME.fullmatch(jar.name)
        if not m:
            raise SystemExit(f"error: {jar.name} under {JARS} is not named spark-lance-<line>_<scala>.jar; "
                             "remove it and install jars with `make jar` or `make jars`")
        props = properties(jar)
        built = (".".join(props["spark"].split(".")[:2]), ".".join(props["scala"].split(".")[:2]))
        if built != (f"{m[1]}.{m[2]}", m[3]):
            raise SystemExit(f"error: {jar.name} is built for Spark {props['spark']} and Scala {props['scala']}, "
                             "not what its name says; reinstall it with `make jar`")
        found[jar] = props
    versions = {props["version"] for props in found.values()}
    if len(versions) != 1:
        listing = ", ".join(f"{jar.name} {props['version']}" for jar, props in found.items())
        raise SystemExit(f"error: the carried jars have different versions ({listing}); rebuild them from one "
                         "tree with `make jars`")
    return found


def pyspark_requirement(jars: list[Path]) -> str:
    """pyspark from the oldest carried line to the newest (a dev wheel with one line requires that line)."""
    lines = sorted({(int(m[1]), int(m[2])) for m in (NAME.fullmatch(j.name) for j in jars)})
    (low_major, low_minor), (high_major, high_minor) = lines[0], lines[-1]
    return f"pyspark>={low_major}.{low_minor},<{high_major}.{high_minor + 1}"


jars = carried()
setup(version=next(iter(jars.values()))["version"], install_requires=[pyspark_requirement(list(jars))])
