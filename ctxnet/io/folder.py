"""What an import reads of a folder of Markdown, and the bounds it holds: a received folder
is data, never instructions, and the import stays inside it (docs/import.md, "What the
importer refuses").

* **Inside the folder.** A link to a folder is never descended; a link to a file is read
  only when it resolves inside the folder. Hidden folders and files are left out.
* **Files only.** Only regular files are read (a named pipe would block the import, a device
  never ends), each at most :data:`MAX_FILE_BYTES`, refused from its size without reading it.
* **Names.** A path with a control character (a newline, ``\\x01``, a bidirectional override)
  is refused: it would be a note's title and a report line.
* **Text.** UTF-8, else refused with the line of the first byte that is not.
* **Front matter.** At most :data:`MAX_FRONT_MATTER_BYTES` of YAML, with no aliases: a few
  hundred bytes of nested ``&a`` / ``*a`` expand into millions of values.
* **The folder.** At most :data:`MAX_FILES` Markdown files and :data:`MAX_FOLDER_BYTES` of
  them are read by one import (an import holds what it read until it is sent); past either,
  one report entry names the first file left out, and what was read before it imports.
* **Yield.** One file makes at most :data:`MAX_NOTES_PER_FILE` notes and
  :data:`MAX_EDGES_PER_FILE` edges; past either it is refused whole, never half-imported.

Every refusal is one report entry naming the file (and line, where there is one) and why;
the rest of the folder still imports.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from ctxnet.io.records import Record

#: The largest file read (2 MiB: about 300,000 words, a thousand notes at the atomic limit).
MAX_FILE_BYTES = 2 * 1024 * 1024
#: The largest front matter read (64 KiB).
MAX_FRONT_MATTER_BYTES = 64 * 1024
#: The most notes (decisions and parts of a split note included), and edges, one file makes.
MAX_NOTES_PER_FILE = 1_000
MAX_EDGES_PER_FILE = 5_000
#: The most Markdown files one import reads, and the most bytes of them (512 MiB).
MAX_FILES = 100_000
MAX_FOLDER_BYTES = 512 * 1024 * 1024
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class Refused(Exception):
    """A file the import does not read, why, and the line at fault (0: the whole file)."""

    def __init__(self, reason: str, line: int = 0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


def shown(name: str) -> str:
    """``name`` with its control characters written as escapes (``\\x01``, ``\\n``)."""
    return "".join(repr(c)[1:-1] if _control(c) else c for c in name)


def where(name: str, line: int = 0) -> str:
    """``file:line`` of a report entry (the file alone when no line is at fault)."""
    return f"{shown(name)}:{line}" if line else shown(name)


def markdown_files(root: Path) -> tuple[list[Path], list[Record]]:
    """Every ``*.md`` under ``root`` (hidden ones left out), and a refusal for each link to a
    folder, which is never descended."""
    files: list[Path] = []
    refused: list[Record] = []

    def unreadable(error: OSError) -> None:
        name = Path(error.filename).relative_to(root).as_posix() if error.filename else root.name
        refused.append(Record("note", {}, where(name), f"a folder that cannot be read: {error.strerror}"))

    for folder, folders, names in os.walk(root, onerror=unreadable, followlinks=False):
        here = Path(folder)
        for name in sorted(folders):
            if not name.startswith(".") and (here / name).is_symlink():
                said = f"a link to a folder ({shown(os.readlink(here / name))}): not followed"
                refused.append(Record("note", {}, where((here / name).relative_to(root).as_posix()), said))
        folders[:] = sorted(n for n in folders if not n.startswith(".") and not (here / n).is_symlink())
        files += [here / n for n in sorted(names) if n.endswith(".md") and not n.startswith(".")]
        if len(files) > MAX_FILES:  # the walk stops: a folder of millions of files is not listed
            first = files[MAX_FILES].relative_to(root).as_posix()
            said = (
                f"more than {MAX_FILES:,} Markdown files, the most one import reads: {shown(first)}"
                " and the files after it (folders in name order) not read (import the folder in parts)"
            )
            refused.append(Record("note", {}, where(root.name), said))
            del files[MAX_FILES:]
            break
    return sorted(files), refused


def over_folder(name: str, left: int) -> Record:
    """The report entry of the first file past :data:`MAX_FOLDER_BYTES` (``left`` follow it)."""
    said = (
        f"the folder's Markdown passes {MAX_FOLDER_BYTES:,} bytes, the most one import reads:"
        f" this file and the {left:,} after it not read (import the folder in parts)"
    )
    return Record("note", {}, where(name), said)


def open_regular(file: Path) -> BinaryIO:
    """``file`` opened to read bytes, or :class:`Refused` when it is not a regular file (opened
    without waiting: a named pipe so opened returns at once, and is refused)."""
    try:
        handle = os.fdopen(os.open(file, os.O_RDONLY | os.O_NONBLOCK), "rb")
    except OSError as exc:
        raise Refused(f"cannot be opened: {exc.strerror}") from None
    if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
        handle.close()
        raise Refused("not a regular file (a pipe, a device or a socket): not read")
    return handle


def read_text(file: Path, root: Path) -> str:
    """The text of ``file``, or :class:`Refused` (module docstring)."""
    name = file.relative_to(root).as_posix() if file.is_relative_to(root) else file.name
    if any(_control(c) for c in name):
        raise Refused("its name holds a control character: not read")
    if file.is_symlink() and not file.resolve().is_relative_to(root.resolve()):
        raise Refused(f"a link to outside the folder ({shown(os.readlink(file))}): not read")
    with open_regular(file) as handle:
        info = os.fstat(handle.fileno())
        if info.st_size > MAX_FILE_BYTES:
            raise Refused(
                f"{info.st_size:,} bytes, more than {MAX_FILE_BYTES:,}, the most a file may be: not read"
            )
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:  # it grew since
        raise Refused(f"more than {MAX_FILE_BYTES:,} bytes, the most a file may be")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:  # one bad file is one rejected record, not a failed import
        line = data[: exc.start].count(b"\n") + 1
        raise Refused(f"not UTF-8 text: {exc.reason} at byte {exc.start}", line) from None


def front_matter(text: str) -> tuple[dict[str, Any], str, str, int]:
    """The front matter's values and text, the body, and the body's first line; or
    :class:`Refused` with the line at fault."""
    if not text.startswith("---\n"):
        return {}, "", text, 1
    end = text.find("\n---", 3)
    if end == -1:
        return {}, "", text, 1
    front = text[4:end]
    if len(front.encode()) > MAX_FRONT_MATTER_BYTES:
        raise Refused(f"front matter of more than {MAX_FRONT_MATTER_BYTES:,} bytes, the most it may be", 1)
    try:
        loaded = yaml.load(front, Loader=_NoAliases)  # noqa: S506 - a SafeLoader that refuses aliases
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 2 if mark is not None else 1  # the front matter starts on line 2
        raise Refused(f"front matter is not YAML: {exc.problem or exc}", line) from None
    except yaml.YAMLError as exc:
        raise Refused(f"front matter is not YAML: {exc}", 1) from None
    except RecursionError:
        raise Refused("front matter nests too deep", 1) from None
    rest = text[end + 4 :]
    body = rest.lstrip("\n")
    # the body's first line: after the front matter and the blank lines that follow it
    first_line = text[: end + 4].count("\n") + 1 + (len(rest) - len(body))
    return (loaded if isinstance(loaded, dict) else {}), front, body, first_line


def bounded(records: Iterable[Record], name: str, line: int) -> list[Record]:
    """The records one file makes, or one refusal when they pass :data:`MAX_NOTES_PER_FILE`
    or :data:`MAX_EDGES_PER_FILE` (counted as they come: never more than that is made)."""
    kept: list[Record] = []
    notes = edges = 0
    for record in records:
        edges += record.kind == "edge"
        notes += record.kind in ("note", "decision")
        if notes > MAX_NOTES_PER_FILE or edges > MAX_EDGES_PER_FILE:
            many = notes > MAX_NOTES_PER_FILE
            what = f"{MAX_NOTES_PER_FILE:,} notes" if many else f"{MAX_EDGES_PER_FILE:,} edges"
            said = f"would make more than {what}, the most one file may: not imported (split the file)"
            return [Record("note", {}, where(name, line), said)]
        kept.append(record)
    return kept


def _control(c: str) -> bool:
    return unicodedata.category(c) == "Cc" or c in _BIDI


class _NoAliases(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no types
    """YAML's safe loader, refusing aliases (``*a``) where they would be composed."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        """The next node; :class:`Refused` at an alias."""
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            said = f"front matter uses a YAML alias (*{event.anchor}): refused, aliases expand without end"
            raise Refused(said, event.start_mark.line + 2)  # the front matter starts on line 2
        return super().compose_node(parent, index)
