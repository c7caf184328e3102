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

A JSONL or CSV source is read as a folder's file is: only a regular file, opened without
waiting (a named pipe is refused, not waited on), one line at a time; a line (a CSV record:
its lines) of more than :data:`MAX_RECORD_BYTES` is one rejected record with its line,
skipped without being held, and the rest goes on. So is a line that is not UTF-8.

A note longer than the atomic limit is split into linked parts (:func:`split`). Every
note's ``sourceRef`` names its file and line (``notes.md:12``) unless the record names one.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from ctxnet.io import folder
from ctxnet.io.folder import Refused, markdown_files, open_regular
from ctxnet.io.records import Record, slug, split
from ctxnet.io.vault import EDGE_TYPES, read_vault

__all__ = ["EDGE_TYPES", "Record", "read", "slug", "split"]

#: The largest JSONL line or CSV record read (4 MiB; a note at the atomic limit is a few KiB).
MAX_RECORD_BYTES = 4 * 1024 * 1024
_CHUNK = 64 * 1024


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


def _opened(path: Path) -> BinaryIO | Record:
    """The file to read, or its refusal: not a regular file, or more than one import reads
    (``folder.MAX_FOLDER_BYTES``, as for a folder: an import holds its records until sent)."""
    try:
        handle = open_regular(path)
    except Refused as refused:
        return Record("note", {}, path.name, refused.reason)
    size = os.fstat(handle.fileno()).st_size
    if size > folder.MAX_FOLDER_BYTES:
        handle.close()
        said = f"{size:,} bytes, more than {folder.MAX_FOLDER_BYTES:,}, the most one import reads: not read"
        return Record("note", {}, path.name, said + " (import the file in parts)")
    return handle


def _too_long(size: int, what: str) -> str:
    return f"{size:,} bytes, more than {MAX_RECORD_BYTES:,}, the most {what} may be: not read"


def _jsonl(path: Path) -> Iterator[Record]:
    handle = _opened(path)
    if isinstance(handle, Record):
        yield handle
        return
    with handle:
        number = 0
        while raw := handle.readline(MAX_RECORD_BYTES + 1):
            number += 1
            where = f"{path.name}:{number}"
            if len(raw) > MAX_RECORD_BYTES and not raw.endswith(b"\n"):
                size = len(raw) + _to_line_end(handle)
                yield Record("note", {}, where, _too_long(size, "a line"))
                continue
            try:
                line = raw.decode("utf-8").lstrip("\ufeff" if number == 1 else "")
            except UnicodeDecodeError as exc:
                yield Record("note", {}, where, f"not UTF-8 text: {exc.reason} at byte {exc.start}")
                continue
            if not line.strip():
                continue
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


def _to_line_end(handle: BinaryIO) -> int:
    """Reads to the end of the line (a chunk at a time, none held); the bytes read before it."""
    size = 0
    while chunk := handle.readline(_CHUNK):
        size += len(chunk)
        if chunk.endswith(b"\n"):
            return size - 1
    return size


class _Bad(Exception):
    """A CSV record refused (too long, not UTF-8), from the line it starts on."""

    def __init__(self, reason: str, line: int) -> None:
        super().__init__(reason)
        self.reason, self.line = reason, line


class _Lines:
    """The lines of a CSV file for :mod:`csv`, each record's lines bounded together: past
    :data:`MAX_RECORD_BYTES`, the rest of the record (to a line end outside quotes) is read
    a chunk at a time without being held, and :class:`_Bad` raised."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.number = 0  # lines started
        self.start = self.size = self.quotes = 0

    def begin(self) -> None:
        """The next line starts a record."""
        self.start, self.size, self.quotes = self.number + 1, 0, 0

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        raw = self.handle.readline(MAX_RECORD_BYTES + 1)
        if not raw:
            raise StopIteration
        self.number += 1
        self.size += len(raw) - raw.endswith(b"\n")
        self.quotes += raw.count(b'"')
        if self.size > MAX_RECORD_BYTES:
            self.size += self._to_record_end(raw)
            raise _Bad(_too_long(self.size, "a record"), self.start)
        try:
            return raw.decode("utf-8").lstrip("\ufeff" if self.number == 1 else "")
        except UnicodeDecodeError as exc:
            self._to_record_end(raw)
            said = f"not UTF-8 text: {exc.reason} at byte {exc.start} of line {self.number}"
            raise _Bad(said, self.start) from None

    def _to_record_end(self, raw: bytes) -> int:
        """Reads past the line end that ends the record (quotes paired); the bytes read."""
        size = 0
        while not (raw.endswith(b"\n") and self.quotes % 2 == 0):
            ended = raw.endswith(b"\n")
            raw = self.handle.readline(_CHUNK)
            if not raw:
                break
            size += len(raw) - raw.endswith(b"\n")
            self.number += ended
            self.quotes += raw.count(b'"')
        return size


def _csv(path: Path) -> Iterator[Record]:
    handle = _opened(path)
    if isinstance(handle, Record):
        yield handle
        return
    csv.field_size_limit(max(csv.field_size_limit(), MAX_RECORD_BYTES))  # bounded by _Lines
    with handle:
        lines = _Lines(handle)
        rows = csv.reader(lines)
        header: list[str] | None = None
        while True:
            lines.begin()
            try:
                row = next(rows)
            except StopIteration:
                return
            except _Bad as bad:
                yield Record("note", {}, f"{path.name}:{bad.line}", bad.reason)
                continue
            except csv.Error as exc:
                yield Record("note", {}, f"{path.name}:{lines.start}", f"not CSV: {exc}")
                continue
            if not row:  # a blank line
                continue
            if header is None:
                header = row
                continue
            yield _csv_record(dict(zip(header, row, strict=False)), f"{path.name}:{lines.start}")


def _csv_record(row: dict[str, str], where: str) -> Record:
    data: dict[str, Any] = {k: v for k, v in row.items() if k and v not in (None, "")}
    if "tags" in data:
        data["tags"] = [t.strip() for t in str(data["tags"]).split(";") if t.strip()]
    if "confidence" in data:
        try:
            data["confidence"] = float(data["confidence"])
        except ValueError:
            return Record(_kind(data), data, where, "confidence must be a number")
    return Record(_kind(data), data, where)


def _split_all(records: Iterator[Record], max_words: int) -> Iterator[Record]:
    for record in records:
        if record.kind == "note" and record.problem is None:
            record.data.setdefault("sourceRef", record.where)
            yield from split(record, max_words)
        else:
            yield record
