"""Build hook of the pyspark-lance package: the wheel carries the connector jar, and takes its version.

The jar is built by `make jar` (or `make wheel`, which builds the wheel too); a wheel without it
would install a package that cannot start a session, so building one fails here instead. The
package's version is the jar's (the `version` in the jar's io/sparklance/version.properties,
which the build writes from the repository's VERSION file): the two are one number.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from setuptools import setup

JAR = Path(__file__).resolve().parent / "pyspark_lance" / "jars" / "spark-lance.jar"


def jar_version() -> str:
    if not JAR.is_file():
        raise SystemExit(f"error: the connector jar is missing at {JAR}; run `make wheel` (or `make jar` first) "
                         "in the spark-lance repository")
    with zipfile.ZipFile(JAR) as z:
        props = z.read("io/sparklance/version.properties").decode("utf-8")
    values = dict(line.split("=", 1) for line in props.splitlines() if "=" in line)
    return values["version"]


setup(version=jar_version())
