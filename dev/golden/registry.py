"""The registry of golden datasets: one function per dataset, registered with @golden_table.

In the manner of delta-io/delta connectors/golden-tables/src/test/scala/io/delta/golden/
GoldenTables.scala. The function only writes the dataset; generate.py then records every
version it finds, so a new dataset needs nothing but a new function in one of the corpus
modules (corpus_files.py, corpus_tables.py). Registry order is the order of index.json.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class GoldenTable:
    name: str
    description: str
    write: Callable[[str], None]  # writes every version of the dataset at the given URI
    row_ids: bool = False  # also write expected/rowids_v<N>.arrow (_rowid and _rowaddr)
    filters: tuple[str, ...] = ()  # also write expected/filter<i>_v<N>.arrow (each filter's rows)


GOLDEN_TABLES: list[GoldenTable] = []


def golden_table(
    fn: Callable[[str], None] | None = None, *, row_ids: bool = False, filters: tuple[str, ...] = ()
):
    """Registers `fn` as the generator of the dataset named like the function.

    Its docstring becomes the dataset's description in info.json and index.json. Use it bare
    (`@golden_table`) or with options (`@golden_table(row_ids=True)`: the driver also writes
    what pylance returns for the _rowid and _rowaddr metadata columns at every version;
    `filters=(...)`: what pylance returns for each filter at every version).
    """

    def register(fn: Callable[[str], None]) -> Callable[[str], None]:
        if not fn.__doc__:
            raise ValueError(
                f"golden table {fn.__name__} needs a docstring saying what it exercises"
            )
        if any(t.name == fn.__name__ for t in GOLDEN_TABLES):
            raise ValueError(f"golden table {fn.__name__} registered twice")
        paragraphs = inspect.cleandoc(fn.__doc__).split("\n\n")
        description = "\n\n".join(" ".join(p.split()) for p in paragraphs)  # unwrap the lines
        GOLDEN_TABLES.append(GoldenTable(fn.__name__, description, fn, row_ids, tuple(filters)))
        return fn

    return register if fn is None else register(fn)

