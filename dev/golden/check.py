#!/usr/bin/env python3
"""Prints, per column, the page encodings pylance chose in one data file of a Lance dataset.

Usage:  python dev/golden/check.py DATASET [--version N] [--fragment I] [--raw]

DATASET is a Lance dataset directory, or a golden dataset directory <out>/<name> holding
dataset/. By default the first data file of the first fragment at the latest version is read.

pylance exposes page encodings only as the Rust Debug text of the protobuf messages
(`lance.file.LanceFileReader(path).metadata()`); this script parses that text and prints it
compactly, e.g. `MiniBlock[NI](vals=flat32, def=oolBitpack16(flat1))`. `--raw` prints the Debug
text as is. The messages are lance.encodings21.PageLayout (2.1/2.2) and
lance.encodings.ArrayEncoding (2.0) from lance-format/lance protos/encodings_v2_1.proto and
protos/encodings_v2_0.proto; the layouts are described in docs/src/format/file/encoding.md.

Notation: layers (innermost first) AVI = all valid item, NI = nullable item, NEL = null and empty
list, ...; vals/def/rep = value, definition-level and repetition-level compression;
dict[n]=... = n dictionary entries and their compression; oolBitpack16(flat1) = 16-bit levels
bit-packed out of line to 1 bit; general[lz4](...) = a general-purpose compressor around ....
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import lance
from lance.file import LanceFileReader

# --------------------------------------------------------------------------------------------
# A parser for Rust's `{:#?}` Debug output: structs `Name { field: value, }`, tuple variants
# `Name(value, )`, unit variants `Name`, lists `[a, b, ]`, numbers, "strings" and b"bytes".
# --------------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<bytes>b"(?:\\.|[^"\\])*")
      | (?P<str>"(?:\\.|[^"\\])*")
      | (?P<num>-?\d+(?:\.\d+)?(?:[eE]-?\d+)?)
      | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<punct>[{}()\[\],:])
    )""",
    re.VERBOSE,
)


class Struct:
    def __init__(self, name: str, fields: dict[str, Any]):
        self.name, self.fields = name, fields


class Tuple:
    def __init__(self, name: str, items: list[Any]):
        self.name, self.items = name, items


class Unit:
    def __init__(self, name: str):
        self.name = name


class Bytes:
    def __init__(self, size: int):
        self.size = size


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"cannot parse Debug text at {pos}: {text[pos:pos + 40]!r}")
        out.append((m.lastgroup or "", m.group(m.lastgroup or 0)))
        pos = m.end()
    return out


def parse_debug(text: str) -> Any:
    toks = _tokens(text)
    pos = 0

    def peek() -> str:
        return toks[pos][1] if pos < len(toks) else ""

    def take(expected: str | None = None) -> tuple[str, str]:
        nonlocal pos
        tok = toks[pos]
        if expected is not None and tok[1] != expected:
            raise ValueError(f"expected {expected!r}, got {tok[1]!r}")
        pos += 1
        return tok

    def items(close: str) -> list[Any]:
        out = []
        while peek() != close:
            out.append(value())
            if peek() == ",":
                take(",")
        take(close)
        return out

    def value() -> Any:
        kind, tok = take()
        if kind == "bytes":
            # Length of the decoded literal: each escape (\xNN, \0, \n, \", \\ ...) is one byte.
            body = tok[2:-1]
            return Bytes(len(re.sub(r"\\x[0-9a-fA-F]{2}|\\.", "_", body).encode()))
        if kind == "str":
            return tok[1:-1]
        if kind == "num":
            return float(tok) if any(c in tok for c in ".eE") else int(tok)
        if tok == "[":
            return items("]")
        if kind != "ident":
            raise ValueError(f"unexpected {tok!r}")
        if tok in ("true", "false"):
            return tok == "true"
        if peek() == "{":
            take("{")
            fields: dict[str, Any] = {}
            while peek() != "}":
                name = take()[1]
                take(":")
                fields[name] = value()
                if peek() == ",":
                    take(",")
            take("}")
            return Struct(tok, fields)
        if peek() == "(":
            take("(")
            return Tuple(tok, items(")"))
        return Unit(tok)

    result = value()
    if pos != len(toks):
        raise ValueError(f"trailing tokens: {toks[pos:pos + 5]}")
    return result


# --------------------------------------------------------------------------------------------
# Compact rendering
# --------------------------------------------------------------------------------------------

LAYERS = {
    "RepdefAllValidItem": "AVI",
    "RepdefNullableItem": "NI",
    "RepdefAllValidList": "AVL",
    "RepdefNullableList": "NL",
    "RepdefEmptyableList": "EL",
    "RepdefNullAndEmptyList": "NEL",
}

# Counters and flags that say nothing about the encoding itself.
_SKIP_FIELDS = {
    "num_items", "num_visible_items", "num_buffers", "has_large_chunk", "num_rep_values",
    "num_def_values", "buffer", "buffer_index", "buffer_type", "data",
}  # fmt: skip


def _unwrap(node: Any) -> Any:
    """Drops Some(...) and one-field carrier messages, and turns an enum variant holding a
    message, `Variant(Message {..})`, into the message named after the variant."""
    while True:
        if isinstance(node, Tuple) and len(node.items) == 1:
            inner = node.items[0]
            if node.name == "Some":
                node = inner
                continue
            if isinstance(inner, Struct):
                node = Struct(node.name, inner.fields)
                continue
        if isinstance(node, Struct) and len(node.fields) == 1 and node.name in (
            "CompressiveEncoding", "PageLayout", "ArrayEncoding", "Encoding",
        ):  # fmt: skip
            node = next(iter(node.fields.values()))
            continue
        return node


def _empty(v: Any) -> bool:
    v = _unwrap(v)
    return v is None or (isinstance(v, Unit) and v.name == "None") or v in (0, False, [], "")


def _layers(s: Struct) -> str:
    names = [LAYERS.get(x.name, x.name) for x in s.fields.get("layers", []) if isinstance(x, Unit)]
    return "[" + "/".join(names) + "]"


def _args(parts: list[tuple[str, Any]]) -> str:
    shown = [(k, v) for k, v in parts if not _empty(v)]
    return ", ".join(f"{k}={render(v)}" if k else render(v) for k, v in shown)


def render(node: Any) -> str:
    node = _unwrap(node)
    if isinstance(node, Bytes):
        return f"<{node.size}B>"
    if isinstance(node, list):
        return "[" + ", ".join(render(x) for x in node) + "]"
    if isinstance(node, Unit):
        return node.name
    if isinstance(node, Tuple):
        return f"{node.name}({', '.join(render(x) for x in node.items)})"
    if not isinstance(node, Struct):
        return str(node)

    f, name = node.fields, node.name
    # 2.1 / 2.2 page layouts
    if name == "MiniBlockLayout":
        parts = [("vals", f.get("value_compression")), ("def", f.get("def_compression")),
                 ("rep", f.get("rep_compression"))]  # fmt: skip
        if not _empty(f.get("dictionary")):
            parts.append((f"dict[{f.get('num_dictionary_items')}]", f.get("dictionary")))
        parts.append(("repidx", f.get("repetition_index_depth")))
        return f"MiniBlock{_layers(node)}({_args(parts)})"
    if name == "FullZipLayout":
        head = f"rep={f.get('bits_rep', 0)}b, def={f.get('bits_def', 0)}b"
        # details: BitsPerValue(n) for fixed width, BitsPerOffset(n) for variable width
        details = _unwrap(f.get("details"))
        if isinstance(details, Tuple) and details.name in ("BitsPerValue", "BitsPerOffset"):
            short = "bpv" if details.name == "BitsPerValue" else "bpo"
            head += f", {short}={render(details.items[0])}"
        return f"FullZip{_layers(node)}({head}, {_args([('vals', f.get('value_compression'))])})"
    if name == "ConstantLayout":
        inline = _unwrap(f.get("inline_value"))
        value = "inline_value" if isinstance(inline, Bytes) else "no inline_value"
        return f"Constant{_layers(node)}({value})"
    if name == "AllNullLayout":
        return f"AllNull{_layers(node)}"
    # compressions
    if name == "Flat":
        return f"flat{f.get('bits_per_value')}"
    if name in ("InlineBitpacking", "OutOfLineBitpacking"):
        short = "inlineBitpack" if name.startswith("Inline") else "oolBitpack"
        inner = f.get("values")
        return f"{short}{f.get('uncompressed_bits_per_value')}" + (
            "" if _empty(inner) else f"({render(inner)})"
        )
    if name == "Variable":
        return f"variable({_args([('off', f.get('offsets')), ('vals', f.get('values'))])})"
    if name == "Fsst":
        return f"fsst({_args([('symtab', f.get('symbol_table')), ('', f.get('values'))])})"
    if name == "General":
        comp = _unwrap(f.get("compression"))
        scheme = "?"
        if isinstance(comp, Struct):
            scheme = render(comp.fields.get("scheme")).removeprefix("CompressionAlgorithm").lower()
            if not _empty(comp.fields.get("level")):
                scheme += f"@{render(comp.fields.get('level'))}"
        return f"general[{scheme}]({render(f.get('values'))})"
    if name == "Rle":
        return f"rle({_args([('vals', f.get('values')), ('runs', f.get('run_lengths'))])})"
    # anything else, including the whole 2.0 ArrayEncoding tree: lowerCamel name + fields
    args = _args([(k, v) for k, v in f.items() if k not in _SKIP_FIELDS])
    return name[0].lower() + name[1:] + (f"({args})" if args else "")


def summarize(debug_text: str) -> str:
    try:
        return render(parse_debug(debug_text))
    except (ValueError, IndexError) as e:  # keep going; show the raw text instead
        return f"<unparsed: {e}> " + " ".join(debug_text.split())


# --------------------------------------------------------------------------------------------


def _field_names(ds: lance.LanceDataset) -> dict[int, tuple[str, str]]:
    """Field id -> (dotted path, Arrow type) for every field, depth-first."""
    out: dict[int, tuple[str, str]] = {}

    def walk(fields: list, prefix: str) -> None:
        for field in fields:
            path = prefix + field.name()
            out[field.id()] = (path, str(field.to_arrow().type))
            walk(field.children(), path + ".")

    walk(ds.lance_schema.fields(), "")
    return out


def _miniblock_chunks(page: Any) -> int | None:
    """Chunks in a 2.1+ mini-block page: its first buffer holds one chunk-metadata word per
    chunk, u16 or, with has_large_chunk (2.2), u32. None for other layouts."""
    try:
        layout = _unwrap(parse_debug(page.encoding))
    except (ValueError, IndexError):
        return None
    if not isinstance(layout, Struct) or layout.name != "MiniBlockLayout" or not page.buffers:
        return None
    word = 4 if layout.fields.get("has_large_chunk") is True else 2
    return page.buffers[0].size // word


def data_file_path(ds: lance.LanceDataset, data_file) -> Path:
    """Where a DataFile is: the dataset's own data/ when it has no base_id, else under the
    base path it names (data/ inside it if the base is a dataset root)."""
    base_id = getattr(data_file, "base_id", None)
    if base_id is None:
        return Path(ds.uri) / "data" / data_file.path
    base = ds.base_paths()[base_id]
    root = Path(base.path.removeprefix("file://"))
    return (root / "data" if base.is_dataset_root else root) / data_file.path


def file_encodings(ds: lance.LanceDataset, fragment_index: int = 0) -> dict | None:
    """The encodings of the first data file of a fragment, as plain data: {"fragment",
    "file_version", "rows", "columns": {path: {"type", "pages", "chunks"?, "encodings":
    {summary: pages}}}}; "chunks" (mini-block chunks over all pages) only for mini-block
    columns. None if the dataset has no fragments. Raises for legacy (v1) files, which
    LanceFileReader cannot open."""
    fragments = ds.get_fragments()
    if not fragments:
        return None
    data_file = fragments[fragment_index].data_files()[0]
    meta = LanceFileReader(str(data_file_path(ds, data_file))).metadata()
    names = _field_names(ds)
    column_field = {col: fid for fid, col in zip(data_file.fields, data_file.column_indices)}
    columns: dict[str, dict] = {}
    for index, column in enumerate(meta.columns):
        fid = column_field.get(index)
        name, type_ = names.get(fid, (f"<field {fid}>", "?")) if fid is not None else ("?", "?")
        entry: dict[str, Any] = {"type": type_, "pages": len(column.pages)}
        chunks = [_miniblock_chunks(p) for p in column.pages]
        if chunks and all(c is not None for c in chunks):
            entry["chunks"] = sum(chunks)
        entry["encodings"] = dict(Counter(summarize(p.encoding) for p in column.pages))
        columns[name] = entry
    return {
        "fragment": fragments[fragment_index].fragment_id,
        "file_version": f"{meta.major_version}.{meta.minor_version}",
        "rows": meta.num_rows,
        "columns": columns,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--version", type=int, help="default: latest")
    parser.add_argument("--fragment", type=int, default=0, help="fragment index (default 0)")
    parser.add_argument("--raw", action="store_true", help="print the Rust Debug text as is")
    args = parser.parse_args(argv)

    uri: Path = args.dataset
    if (uri / "dataset" / "_versions").is_dir():  # a golden dir: <out>/<name>/dataset
        uri = uri / "dataset"
    ds = lance.dataset(str(uri), version=args.version)
    fragments = ds.get_fragments()
    if not fragments:
        print(f"{uri} v{ds.version} has no fragments")
        return 0
    if ds.data_storage_version in ("0.1", "legacy"):
        print(f"{uri} v{ds.version} is in the legacy (v1) file format, which LanceFileReader")
        print("cannot open")
        return 0
    fragment = fragments[args.fragment]
    data_file = fragment.data_files()[0]
    path = data_file_path(ds, data_file)
    meta = LanceFileReader(str(path)).metadata()
    names = _field_names(ds)
    column_field = {col: fid for fid, col in zip(data_file.fields, data_file.column_indices)}

    print(f"{uri} v{ds.version} (data_storage_version {ds.data_storage_version})")
    print(
        f"fragment {fragment.fragment_id}, {path}: file version "
        f"{meta.major_version}.{meta.minor_version}, {meta.num_rows} rows, "
        f"{len(meta.columns)} columns"
    )
    for index, column in enumerate(meta.columns):
        fid = column_field.get(index)
        name, type_ = names.get(fid, (f"<field {fid}>", "?")) if fid is not None else ("?", "?")
        chunks = [_miniblock_chunks(p) for p in column.pages]
        chunk_text = f", {sum(chunks)} chunk(s)" if chunks and None not in chunks else ""
        print(f"\n{name} ({type_}), {len(column.pages)} page(s){chunk_text}")
        if args.raw:
            for i, page in enumerate(column.pages):
                print(f"  page {i}:\n{page.encoding}")
            continue
        for summary, count in Counter(summarize(p.encoding) for p in column.pages).items():
            print(f"  {count} x {summary}" if count > 1 else f"  {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
