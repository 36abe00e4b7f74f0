#!/usr/bin/env python3
"""Writes Arrow IPC files as Lance data files with pylance's file writer.

Usage:  python dev/golden/write_file.py VERSION INPUT.arrow OUTPUT.lance [INPUT.arrow OUTPUT.lance ...]

The reference for the encodings our file writer chooses: each INPUT.arrow (the batches given to
our writer) is written, batch by batch as in the file, with `lance.file.LanceFileWriter` in file
format VERSION (2.0, 2.1 or 2.2). dev/golden/read_file.py then reports the page encodings of
both files. Prints one JSON object per file: {"file", "rows"} or {"file", "error"}, the error
being pylance's refusal. Exit status 0 when every file was written.
"""

from __future__ import annotations

import json
import sys

import pyarrow as pa
from lance.file import LanceFileWriter


def write(version: str, source: str, target: str) -> dict:
    with pa.memory_map(source) as f:
        reader = pa.ipc.open_file(f)
        schema = reader.schema
        # Each column copied into fresh buffers: Arrow Java before 19 (Spark 4.1 and older) writes
        # an empty offsets buffer for an empty string or list child, which pylance reads past.
        batches = [pa.RecordBatch.from_arrays([pa.concat_arrays([c]) for c in b.columns], schema=schema)
                   for b in (reader.get_batch(i) for i in range(reader.num_record_batches))]
    try:
        with LanceFileWriter(target, schema, version=version) as w:
            for b in batches:
                if b.num_rows > 0:
                    w.write_batch(b)
    except Exception as e:  # pylance refusing the data is the finding
        return {"file": target, "error": f"{type(e).__name__}: {e}"}
    return {"file": target, "rows": sum(b.num_rows for b in batches)}


def main(argv: list[str]) -> int:
    if len(argv) < 3 or len(argv) % 2 != 1:
        print(__doc__, file=sys.stderr)
        return 2
    ok = True
    for i in range(1, len(argv), 2):
        r = write(argv[0], argv[i], argv[i + 1])
        ok = ok and "error" not in r
        print(json.dumps(r), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
