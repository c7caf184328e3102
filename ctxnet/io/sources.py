"""What an import reads: notes and edges from JSONL, CSV and folders of Markdown, each with
the file and line it came from.

* **JSONL**: one JSON object a line; a note (``{id?, title, content, type, source?,
  confidence?, tags?, sourceRef?}``) or an edge (``{sourceId, type, targetId, ...}``).
* **CSV**: a header row; note columns (``id, title, content, type, source, confidence,
  tags``, tags separated by ``;``) or edge columns (``sourceId, type, targetId,
  confidence``).
* **Markdown**: every ``*.md`` under a folder (hidden folders left out) is a note, or a
  decision when it is an architecture decision record, read as the vault's own tool reads
  it: :mod:`ctxnet.io.vault` (ids, titles, links, properties) and :mod:`ctxnet.io.adr`
  (decision records), within the bounds of :mod:`ctxnet.io.folder` (no link followed out
  of the folder, sizes, no YAML aliases, a bounded number of notes a file).

A note longer than the atomic limit is split into linked parts (:func:`split`). Every
note's ``sourceRef`` names its file and line (``notes.md:12``) unless the record names one.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ctxnet.io.folder import markdown_files
from ctxnet.io.records import Record, slug, split
from ctxnet.io.vault import EDGE_TYPES, read_vault

__all__ = ["EDGE_TYPES", "Record", "read", "slug", "split"]


def read(path: Path, max_words: int) -> Iterator[Record]:
    """Every record of a file or folder, in order."""
    if path.is_dir():
        files, refused = markdown_files(path)  # no link followed out of the folder
        yield from refused
        yield from read_vault(path, files, max_words)
    elif path.suffix == ".jsonl":
        yield from _split_all(_jsonl(path), max_words)
    elif path.suffix == ".csv":
        yield from _split_all(_csv(path), max_words)
    elif path.suffix == ".md":
        yield from read_vault(path.parent, [path], max_words)
    else:
        raise ValueError(f"{path}: not a .jsonl, .csv or .md file, nor a folder of Markdown")


def _kind(data: dict[str, Any]) -> str:
    return "edge" if "sourceId" in data and "targetId" in data else "note"


def _jsonl(path: Path) -> Iterator[Record]:
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path.name}:{number}"
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                yield Record("note", {}, where, f"not JSON: {exc.msg}")
                continue
            if not isinstance(data, dict):
                yield Record("note", {}, where, "a line must be one JSON object")
                continue
            kind = str(data.pop("record", None) or _kind(data))  # an export names each line's kind
            if kind != "export":  # the export's header
                yield Record(kind, data, where)


def _csv(path: Path) -> Iterator[Record]:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle)
        _ = rows.fieldnames  # reads the header
        last = rows.line_num
        for row in rows:  # a row may span lines (a quoted newline): it starts after the last one
            where, last = f"{path.name}:{last + 1}", rows.line_num
            data: dict[str, Any] = {k: v for k, v in row.items() if k and v not in (None, "")}
            if "tags" in data:
                data["tags"] = [t.strip() for t in str(data["tags"]).split(";") if t.strip()]
            if "confidence" in data:
                try:
                    data["confidence"] = float(data["confidence"])
                except ValueError:
                    yield Record(_kind(data), data, where, "confidence must be a number")
                    continue
            yield Record(_kind(data), data, where)


def _split_all(records: Iterator[Record], max_words: int) -> Iterator[Record]:
    for record in records:
        if record.kind == "note" and record.problem is None:
            record.data.setdefault("sourceRef", record.where)
            yield from split(record, max_words)
        else:
            yield record
