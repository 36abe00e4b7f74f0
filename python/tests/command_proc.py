"""One Spark application that runs writes and statements sent to it one at a time, for tests
that need a session of their own settings (the S3 fault tests: S3A pointed at the fault proxy)
and many writes without a JVM start for each.

    command_proc.py <spark conf json>
prints `ready`, then reads one JSON command a line from its standard input:
    {"write": {"query": SQL, "uri": ..., "mode": ..., "options": {...}}}  (df.write.format("lance"))
    {"sql": STATEMENT}
and answers each with one JSON line: {"ok": true}, or {"ok": false, "condition": the error's
class (LANCE_... when Lance's), "message": ...}. It ends at the end of its input.
"""

from __future__ import annotations

import json
import re
import sys

from sessions import make_session


def condition(e: Exception) -> str:
    """The error class: PySpark's condition when it is a Lance one, else the first LANCE_ class
    the message names (an error wrapped by Py4J or by Spark), else the exception's type."""
    get = getattr(e, "getCondition", None)
    found = get() if callable(get) else None
    if found and found.startswith("LANCE_"):
        return found
    named = re.search(r"\bLANCE_[A-Z_]+\b", str(e))
    return named.group(0) if named else (found or type(e).__name__)


def run(spark, command: dict) -> None:
    if "sql" in command:
        spark.sql(command["sql"]).collect()
        return
    w = command["write"]
    spark.sql(w["query"]).write.format("lance").mode(w["mode"]).options(**w.get("options", {})).save(w["uri"])


def main(conf: dict) -> None:
    spark = make_session("local[2]", "lance-commands", conf)
    spark.sparkContext.setLogLevel("ERROR")
    print("ready", flush=True)
    for line in sys.stdin:
        try:
            run(spark, json.loads(line))
            answer = {"ok": True}
        except Exception as e:  # every failure is an answer; the test judges its class
            answer = {"ok": False, "condition": condition(e), "message": str(e)[:4000]}
        print(json.dumps(answer), flush=True)
    spark.stop()


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
