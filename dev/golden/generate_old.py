#!/usr/bin/env python3
"""Golden datasets written by OLDER pylance releases, read back by the pinned pylance 14.0.2.

Usage:  .venv/bin/python dev/golden/generate_old.py [--out target/golden] [--force]
                                                    [--release 0.10.18 ...] [--list]
        (or: generate.py --old, or SPARK_LANCE_GOLDEN_OLD=1 generate.py)

For each release in RELEASES this script

  1. takes what the release wrote from the user's cache, ${XDG_CACHE_HOME:-~/.cache}/
     spark-lance/old-pylance/written/<release>-<hash of old_writer.py, datasets, pins>/, or
     makes it: runs dev/golden/old_writer.py in a virtualenv holding exactly the release's pins
     (old-pylance/venvs/<release>-<hash of Python version and pins>/, made once), which writes
     its datasets with the release's DEFAULT settings (file format, manifest names, deletion
     files, manifest fields), plus old_readback/v<N>.arrow: what the old release itself reads
     back. A migration runs the release that begins it first (old_writer.py --begin);
  2. copies that into <out>/old/<release>/;
  3. reads every version with THIS interpreter's pylance 14.0.2 (the oracle) and writes
     expected/v<N>.arrow exactly as generate.py does, and info.json.

Cache folders are named by what they hold, made under a lock and never removed, so checkouts
with other pins or another old_writer.py never destroy each other's (dev/golden/README.md
gives the sizes and timings).

Layout of <out>/old:

    .stamp                          sha256 of this file, old_writer.py and oracle.py, the
                                    pins and the oracle's versions ("up to date" if equal)
    index.json                      every release and dataset: versions and rows
    <release>/<name>/dataset/       the Lance dataset the old release wrote
    <release>/<name>/expected/v<N>.arrow      pylance 14.0.2's to_table() of version N
    <release>/<name>/old_readback/v<N>.arrow  the old release's to_table() of version N
    <release>/<name>/writer.json    what old_writer.py did (steps, refused types, versions)
    <release>/<name>/info.json      name, release, description, versions, latest,
                                    data_storage_version, rows, fragments, deletion_files,
                                    manifest_naming, has_latest_manifest, has_transactions_dir,
                                    old_release_differs ({version: columns that differ}), writer,
                                    misrecorded_file_sizes, misrecorded_physical_rows (if any)

Datasets (old_writer.py): `types` (one column per basic type family, 10% nulls, 2 fragments),
`history` (create, append, add column, small and large deletion), `legacy` (types' columns as
data_storage_version="legacy" where that is not the default) and `migrated` (begun by one
release, continued by a later one).
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import lance
import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oracle  # noqa: E402  (write_expected, deletion_files, the oracle's version check)

HERE = Path(__file__).resolve().parent
OLD_WRITER = HERE / "old_writer.py"
STAMP_NAME = oracle.STAMP_NAME


@dataclass(frozen=True)
class Release:
    version: str
    why: str  # what this release's defaults put on disk that the others do not
    pins: tuple[str, ...]  # the whole virtualenv, as `pip freeze` printed it
    datasets: tuple[str, ...] = ("types", "history")  # old_writer.py's names
    # An earlier release that begins the `migrated` dataset, which this one continues.
    begun_by: Release | None = None


LANCE_NAMESPACE_0_13 = (
    "annotated-types==0.8.0",
    "lance-namespace==0.13.0",
    "lance-namespace-urllib3-client==0.13.0",
    "pydantic==2.14.3",
    "pydantic_core==2.50.4",
    "python-dateutil==4.0.0",
    "typing-inspection==0.4.5",
    "typing_extensions==4.16.0",
    "tzdata==2026.6",
    "urllib3==2.8.0",
)


# Every pin was checked to install from PyPI on CPython 3.11 (manylinux x86_64 wheels), and
# pylance 14.0.2 reads every version the release writes. pyarrow/numpy are of each release's
# time: pylance 0.5-0.10 import numpy 1.x only through pyarrow < 16 (pyarrow 26 refuses numpy
# 1.26, and 0.10.18 itself requires pyarrow < 15.0.1).
RELEASES: dict[str, Release] = {
    r.version: r
    for r in [
        Release(
            "0.5.10",
            "June 2023. Legacy data files with footer version 0.1 (not 0.2), a manifest without "
            "writer_version, transaction file or DataFile column_indices/file versions, "
            "fragments without physical_rows, deletion files without num_deleted_rows, "
            "_latest.manifest and no _transactions/. No add_columns.",
            ("numpy==1.26.4", "pyarrow==12.0.1", "pylance==0.5.10"),
        ),
        Release(
            "0.10.18",
            "April 2024. Legacy data files (footer 0.2) are still the default; V1 manifest "
            "names plus _latest.manifest; the manifest names its transaction by file "
            "(transaction_file, field 12); fragments have physical_rows; max_rows_per_file "
            "rounds to whole groups of 1024 rows.",
            ("numpy==1.26.4", "pyarrow==15.0.0", "pylance==0.10.18"),
        ),
        Release(
            "0.20.0",
            "November 2024. File format 2.0 (footer 0.3) is the default; V1 manifest names, "
            "no _latest.manifest; transaction_file (field 12); DataFiles with column_indices "
            "and file versions but no file_size_bytes; schema fields carry storage_class.",
            ("numpy==2.1.3", "pyarrow==18.1.0", "pylance==0.20.0"),
        ),
        Release(
            "0.39.0",
            "Late 2025, the last 0.x. Still file format 2.0 and V1 manifest names; "
            "transaction_file (field 12); DataFiles with file_size_bytes. `legacy`: files "
            "written with data_storage_version=\"legacy\" whose recorded file_size_bytes "
            "stops short of the file's metadata and footer.",
            tuple(sorted(LANCE_NAMESPACE_0_13 + ("numpy==2.3.4", "pyarrow==21.0.0",
                                                 "pylance==0.39.0"), key=str.lower)),
            datasets=("types", "history", "legacy"),
        ),
        Release(
            "1.0.4",
            "1.0. File format 2.0 and V1 manifest names are still the defaults, but the "
            "transaction is inline: manifest footer version 0.2, the transaction at offset 0 "
            "and its position in Manifest field 21 (pylance 14 writes field 23); no "
            "transaction_file. `legacy` as in 0.39.",
            tuple(sorted(LANCE_NAMESPACE_0_13 + ("numpy==2.4.6", "pyarrow==21.0.0",
                                                 "pylance==1.0.4"), key=str.lower)),
            datasets=("types", "history", "legacy"),
        ),
        Release(
            "4.0.2",
            "The last 4.0. `legacy` as in 0.39: the recorded size of a legacy file is still "
            "short of the real one.",
            (
                "annotated-types==0.8.0",
                "lance-namespace==0.6.1",
                "lance-namespace-urllib3-client==0.6.1",
                "numpy==2.4.6",
                "pyarrow==21.0.0",
                "pydantic==2.14.4",
                "pydantic_core==2.50.5",
                "pylance==4.0.2",
                "python-dateutil==4.0.0",
                "typing-inspection==0.4.5",
                "typing_extensions==4.16.0",
                "tzdata==2026.6",
                "urllib3==2.8.0",
            ),
            datasets=("types", "history", "legacy"),
        ),
        Release(
            "0.8.0",
            "The first release to record Fragment.physical_rows, still without "
            "writer_version. `migrated`: begun by 0.7.5 (no physical_rows, a "
            "deletion), continued here: on commit 0.8.0 filled in physical_rows of the old "
            "fragments with their live rows, not their physical rows (lance-format/lance "
            "issue 1531), so the manifest disagrees with the data file.",
            ("numpy==1.26.4", "pyarrow==12.0.1", "pylance==0.8.0"),
            datasets=("migrated",),
            begun_by=Release(
                "0.7.5",
                "The last release before physical_rows; begins `migrated`.",
                ("numpy==1.26.4", "pyarrow==12.0.1", "pylance==0.7.5"),
            ),
        ),
    ]
}


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "spark-lance" / "old-pylance"


def key(*parts: bytes | str) -> str:
    """A short hash naming a cache folder by everything its content depends on."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


@contextmanager
def locked(folder: Path):
    """Holds an exclusive lock beside `folder`, so that two checkouts filling the same cache
    entry at once take turns (the second finds it made)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.with_name(folder.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def ensure_venv(release: Release) -> tuple[Path, float]:
    """The python of `release`'s virtualenv and the seconds spent making it (0 when it was
    there). The folder is named by a hash of the pins and this Python's version, so a pin
    change makes a new one and never removes another checkout's."""
    python_version = ".".join(map(str, sys.version_info[:2]))
    folder = cache_root() / "venvs" / f"{release.version}-{key(python_version, *release.pins)}"
    marker = folder / "installed.txt"
    python = folder / "bin" / "python"
    if marker.is_file() and python.is_file():
        return python, 0.0
    started = time.monotonic()
    with locked(folder):
        if not (marker.is_file() and python.is_file()):
            shutil.rmtree(folder, ignore_errors=True)  # an interrupted install
            subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
            pip = [str(python), "-m", "pip", "--disable-pip-version-check", "--no-input"]
            # Wheels only (a missing wheel fails at once instead of compiling Rust), kept in
            # pip's own cache (~/.cache/pip), so a remade virtualenv downloads nothing.
            subprocess.run([*pip, "install", "-q", "--only-binary=:all:", "--no-compile",
                            *release.pins], check=True)
            subprocess.run([*pip, "check"], check=True, stdout=subprocess.DEVNULL)
            marker.write_text("\n".join(release.pins) + "\n")  # last: only a complete install counts
    return python, time.monotonic() - started


def write_release(release: Release) -> tuple[Path, float, float]:
    """The folder holding what `release` wrote (old_writer.py's datasets, old_readback/ and
    writer.json), made if missing, and the seconds spent on virtualenvs and on writing (0, 0
    when it was cached). Cached under the user's home by the pins of every release involved
    and the hash of old_writer.py, so a warm cache runs no old release at all."""
    writers = [r for r in (release.begun_by, release) if r is not None]
    folder = cache_root() / "written" / (f"{release.version}-" + key(
        OLD_WRITER.read_bytes(), ",".join(release.datasets),
        *(f"{r.version}: {' '.join(r.pins)}" for r in writers)))
    complete = folder / ".complete"
    if complete.is_file():
        return folder, 0.0, 0.0
    venv_seconds = write_seconds = 0.0
    with locked(folder):
        if not complete.is_file():
            shutil.rmtree(folder, ignore_errors=True)
            scratch = folder.with_name(folder.name + ".tmp")
            shutil.rmtree(scratch, ignore_errors=True)
            runs = [(release.begun_by, ["--datasets", "migrated", "--begin"])] if release.begun_by else []
            runs.append((release, ["--datasets", ",".join(release.datasets)]))
            for writer, args in runs:
                python, seconds = ensure_venv(writer)
                venv_seconds += seconds
                t0 = time.monotonic()
                subprocess.run([str(python), str(OLD_WRITER), "--out", str(scratch), *args],
                               check=True, env=os.environ | {"PYTHONNOUSERSITE": "1"})
                write_seconds += time.monotonic() - t0
            (scratch / ".complete").write_text("")
            scratch.rename(folder)  # whole or not at all
    return folder, venv_seconds, write_seconds


def manifest_naming(uri: Path) -> str:
    """"V1" (_versions/1.manifest) or "V2" (zero-padded u64::MAX - version)."""
    names = [p.stem for p in (uri / "_versions").glob("*.manifest")]
    return "V2" if names and all(len(n) == 20 for n in names) else "V1"


def differing_columns(old: pa.Table, new: pa.Table) -> list[str]:
    """Columns (or "<schema>") where the old release's reading and pylance 14's differ."""
    diffs = [] if old.column_names == new.column_names else ["<column names>"]
    for name in old.column_names:
        if name in new.column_names and not old.column(name).equals(new.column(name)):
            diffs.append(name)
    return diffs


def misrecorded_sizes(ds: lance.LanceDataset, uri: Path) -> list[dict]:
    """Data files whose file_size_bytes in the manifest is not their size on disk."""
    wrong = []
    for fragment in ds.get_fragments():
        for data_file in fragment.data_files():
            actual = (uri / "data" / data_file.path).stat().st_size
            if data_file.file_size_bytes and data_file.file_size_bytes != actual:
                wrong.append({"fragment": fragment.fragment_id, "recorded": data_file.file_size_bytes,
                              "actual": actual})
    return wrong


def misrecorded_rows(ds: lance.LanceDataset) -> list[dict]:
    """Fragments whose physical_rows in the manifest is not what pylance 14 counts (it
    ignores the recorded count in manifests without writer_version)."""
    wrong = []
    for fragment in ds.get_fragments():
        recorded = fragment.metadata.physical_rows
        if recorded and recorded != fragment.physical_rows:
            wrong.append({"fragment": fragment.fragment_id, "recorded": recorded,
                          "actual": fragment.physical_rows})
    return wrong


def read_back(release: Release, root: Path) -> dict:
    """pylance 14.0.2's expected/v<N>.arrow and info.json for one old dataset."""
    writer = json.loads((root / "writer.json").read_text())
    uri = root / "dataset"
    expected = root / "expected"
    expected.mkdir()
    ds = lance.dataset(str(uri))
    versions = sorted(v["version"] for v in ds.versions())
    if versions != writer["old_versions"]:
        raise RuntimeError(f"{root}: pylance 14 sees versions {versions}, the writer "
                           f"{writer['old_versions']}")
    rows, fragments, deletions, differs, sizes, physical = {}, {}, {}, {}, {}, {}
    for v in versions:
        at = lance.dataset(str(uri), version=v)
        table = at.to_table()
        oracle.write_expected(table, expected / f"v{v}.arrow")
        old = pa.ipc.open_file(str(root / "old_readback" / f"v{v}.arrow")).read_all()
        differs[str(v)] = differing_columns(old, table)
        rows[str(v)] = table.num_rows
        fragments[str(v)] = len(at.get_fragments())
        deletions[str(v)] = oracle.deletion_files(at)
        sizes[str(v)] = misrecorded_sizes(at, uri)
        physical[str(v)] = misrecorded_rows(at)
    info = {
        "name": root.name,
        "release": release.version,
        "description": writer["description"],
        "versions": versions,
        "latest": ds.version,
        "data_storage_version": ds.data_storage_version,
        "rows": rows,
        "fragments": fragments,
        "deletion_files": deletions,
        "manifest_naming": manifest_naming(uri),
        "has_latest_manifest": (uri / "_latest.manifest").is_file(),
        "has_transactions_dir": (uri / "_transactions").is_dir(),
        "old_release_differs": differs,
        "writer": {k: writer[k] for k in ("release", "pyarrow", "numpy", "steps", "refused",
                                          "begun_by") if k in writer},
    }
    if any(sizes.values()):
        info["misrecorded_file_sizes"] = sizes
    if any(physical.values()):
        info["misrecorded_physical_rows"] = physical
    (root / "info.json").write_text(json.dumps(info, indent=2) + "\n")
    return info


def release_summary(release: Release) -> dict:
    """index.json's entry of a release."""
    summary = {"why": release.why, "pins": list(release.pins)}
    if release.begun_by:
        summary["begun_by"] = {"version": release.begun_by.version,
                               "pins": list(release.begun_by.pins)}
    return summary


def stamp_text(releases: list[Release]) -> str:
    source = b"".join(
        Path(p).read_bytes() for p in (__file__, OLD_WRITER, oracle.__file__)
    )
    pins = "".join(f"{r.version}: {' '.join(r.pins)}\n"
                   for release in releases for r in (release.begun_by, release) if r)
    return (
        f"generator_sha256={hashlib.sha256(source).hexdigest()}\n{pins}"
        f"oracle pylance={lance.__version__} pyarrow={pa.__version__} numpy={np.__version__}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=oracle.DEFAULT_OUT,
                        help=f"writes <out>/old (default out: {oracle.DEFAULT_OUT})")
    parser.add_argument("--force", action="store_true", help="regenerate even if up to date")
    parser.add_argument("--release", action="append", choices=list(RELEASES),
                        help="only these releases (default: all)")
    parser.add_argument("--list", action="store_true", help="list the releases and exit")
    args = parser.parse_args(argv)

    if args.list:
        for r in RELEASES.values():
            print(f"pylance {r.version}\n    {r.why}\n    pins: {' '.join(r.pins)}\n"
                  f"    datasets: {', '.join(r.datasets)}\n")
            if r.begun_by:
                b = r.begun_by
                print(f"    begun by pylance {b.version}: {b.why}\n    pins: {' '.join(b.pins)}\n")
        return 0
    oracle.require_oracle()

    releases = [RELEASES[v] for v in (args.release or RELEASES)]
    old_out = args.out.resolve() / "old"
    stamp = stamp_text(releases)
    if not args.force and (old_out / STAMP_NAME).is_file():
        if (old_out / STAMP_NAME).read_text() == stamp:
            print(f"old-release golden data in {old_out} is up to date (use --force to regenerate)")
            return 0

    started = time.monotonic()
    oracle.prepare_out(old_out)
    index = []
    for release in releases:
        written, venv_seconds, write_seconds = write_release(release)
        shutil.copytree(written, old_out / release.version,
                        ignore=shutil.ignore_patterns(".complete"))
        t0 = time.monotonic()
        for root in sorted(p for p in (old_out / release.version).iterdir() if p.is_dir()):
            info = read_back(release, root)
            index.append(
                {"path": f"{release.version}/{root.name}"}
                | {k: info[k] for k in ("name", "release", "versions", "latest",
                                        "data_storage_version", "manifest_naming", "rows")}
            )
            bad = {v: d for v, d in info["old_release_differs"].items() if d}
            print(f"  {release.version}/{root.name}: versions {info['versions']}, format "
                  f"{info['data_storage_version']}, rows {info['rows']}"
                  + (f", pylance 14 differs from {release.version} in {bad}" if bad else ""))
        print(f"pylance {release.version}: venv {venv_seconds:.1f}s, write {write_seconds:.1f}s, "
              f"oracle {time.monotonic() - t0:.1f}s")
    (old_out / "index.json").write_text(json.dumps(
        {"oracle": oracle.PYLANCE_VERSION,
         "releases": {r.version: release_summary(r) for r in releases},
         "datasets": index}, indent=2) + "\n")
    (old_out / STAMP_NAME).write_text(stamp)
    print(f"wrote {len(index)} old-release datasets to {old_out} in "
          f"{time.monotonic() - started:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
