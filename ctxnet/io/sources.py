"""What an import reads: notes and edges from JSONL, CSV and folders of Markdown, each with
the file and line it came from.

* **JSONL**: one JSON object a line; a note (``{id?, title, content, type, source?,
  confidence?, tags?, sourceRef?}``) or an edge (``{sourceId, type, targetId, ...}``).
* **CSV**: a header row; note columns (``id, title, content, type, source, confidence,
  tags``, tags separated by ``;``) or edge columns (``sourceId, type, targetId,
  confidence``).
* **Markdown**: every ``*.md`` under a folder is a note, or, when it has the sections of
  an architecture decision record (Nygard's, or MADR), a decision (``_decision_record``).
  Front matter (between ``---`` lines) may give ``id, title, type, source, confidence,
  tags`` and typed lists ``dependsOn, supersedes, conflictsWith, relatedTo`` (ids), which
  become those edges;
  ``[[wikilinks]]`` in the body become ``relatedTo`` edges. The id defaults to the file's
  name, the title to its first heading, the type to ``concept``.

A note longer than the atomic limit is split at its headings, then paragraphs, into parts
of at most that many words, ids ``<id>``, ``<id>-2``, ...; each part ``relatedTo`` the one
before (parts are never folded into each other by dedupe); the import reports the split.
Every note's ``sourceRef`` names its file and line (``notes.md:12``) unless the record
names one.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EDGE_TYPES = ("relatedTo", "dependsOn", "supersedes", "conflictsWith")
_WIKILINK = re.compile(r"\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_SLUG = re.compile(r"[^A-Za-z0-9._:@-]+")


@dataclass
class Record:
    """A note or an edge read from a file, where it came from, and any reason it is refused
    before it is sent."""

    kind: str  # "note" or "edge"
    data: dict[str, Any]
    where: str  # file:line
    problem: str | None = None
    notes: list[str] = field(default_factory=list)  # what the import did to it (a split)


def slug(text: str) -> str:
    """An id from a name: letters, digits and ``._:@-`` kept (what an id may hold), runs of
    anything else a ``-``."""
    return _SLUG.sub("-", text.strip()).strip("-")[:128] or "note"


def read(path: Path, max_words: int) -> Iterator[Record]:
    """Every record of a file or folder, in order."""
    if path.is_dir():
        for file in sorted(path.rglob("*.md")):
            yield from _markdown(file, path, max_words)
    elif path.suffix == ".jsonl":
        yield from _split_all(_jsonl(path), max_words)
    elif path.suffix == ".csv":
        yield from _split_all(_csv(path), max_words)
    elif path.suffix == ".md":
        yield from _markdown(path, path.parent, max_words)
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


def split(record: Record, max_words: int) -> Iterator[Record]:
    """The note itself, or its parts when it is longer than ``max_words`` (module docstring)."""
    content = str(record.data.get("content", ""))
    if len(content.split()) <= max_words:
        yield record
        return
    parts = _parts(content, max_words)
    base = str(record.data.get("id") or slug(str(record.data.get("title", "note"))))
    title = str(record.data.get("title", base))
    previous = None
    for i, text in enumerate(parts, 1):
        part_id = base if i == 1 else f"{base}-{i}"
        # The parts of one text are not duplicates of each other, however alike they read; the
        # whole's vector is no part's (the API embeds each).
        data = {k: v for k, v in record.data.items() if k != "embedding"} | {
            "id": part_id,
            "content": text,
            "title": title if i == 1 else f"{title} ({i})",
            "dedupe": False,
        }
        yield Record(
            "note", data, record.where, notes=[f"split into {len(parts)} notes of at most {max_words} words"]
        )
        if previous is not None:
            yield Record(
                "edge", {"sourceId": part_id, "type": "relatedTo", "targetId": previous}, record.where
            )
        previous = part_id


def _parts(content: str, max_words: int) -> list[str]:
    """Chunks of at most ``max_words`` words, cut at headings, then paragraphs, then words."""
    blocks: list[str] = []
    for section in re.split(r"\n(?=#{1,6}\s)", content):
        for paragraph in re.split(r"\n\s*\n", section):
            words = paragraph.split()
            while len(words) > max_words:  # a paragraph longer than a note: cut at words
                blocks.append(" ".join(words[:max_words]))
                words = words[max_words:]
            if words:
                blocks.append(paragraph.strip() if len(paragraph.split()) <= max_words else " ".join(words))
    parts: list[str] = []
    current: list[str] = []
    size = 0
    for block in blocks:
        n = len(block.split())
        if current and size + n > max_words:
            parts.append("\n\n".join(current))
            current, size = [], 0
        current.append(block)
        size += n
    if current:
        parts.append("\n\n".join(current))
    return parts


def _sections(body: str) -> dict[str, str]:
    """The text under each ``##`` heading, by its lower-case title."""
    found: dict[str, str] = {}
    parts = re.split(r"^##\s+(.+?)\s*$", body, flags=re.MULTILINE)
    for title, text in zip(parts[1::2], parts[2::2], strict=True):
        found[title.strip().lower()] = text.strip()
    return found


# "Date: 2026-01-10", "**Date**: ...", or MADR 2's bullet "* Date: ..." (also for Status).
_LINES = re.MULTILINE | re.IGNORECASE
_DATE = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*)?Date(?:\*\*)?:\s*(\d{4}-\d{2}-\d{2})", _LINES)
_STATUS = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*)?Status(?:\*\*)?:\s*([A-Za-z]+)", _LINES)
#: Statuses of a record that is not in force: imported, then archived (never shaping agents).
NOT_IN_FORCE = ("rejected", "deprecated")
_CONSEQUENCES = re.compile(r"^###\s+(?:(positive|negative)\s+)?consequences\s*$", _LINES)
_SUPERSEDES = re.compile(r"supersedes\s+\[[^\]]*\]\(([^)]+)\)", re.IGNORECASE)
_CHOSEN = re.compile(r'chosen option:\s*"?([^"\n]+?)"?(?:,|$)', re.IGNORECASE | re.MULTILINE)


def _decision_record(
    file: Path,
    name: str,
    first_line: int,
    meta: dict[str, Any],
    body: str,
    sections: dict[str, str],
    record_id: str,
) -> Iterator[Record]:
    """An architecture decision record in the usual Markdown shapes: Nygard's (``## Status``,
    ``## Context``, ``## Decision``, ``## Consequences``) or MADR (``## Context and Problem
    Statement``, ``## Decision Outcome`` with its consequences). "Supersedes [..](file)" links
    become supersedes edges."""
    title_match = re.search(r"^#\s+(?:\d+\.\s*)?(.+?)\s*$", body, re.MULTILINE)
    context = sections.get("context") or sections.get("context and problem statement") or ""
    outcome = sections.get("decision") or sections.get("decision outcome") or ""
    consequences = _items(sections.get("consequences", ""))
    headed = list(_CONSEQUENCES.finditer(outcome))
    if headed:  # MADR: "### Consequences", or "### Positive / Negative Consequences"
        for n, heading in enumerate(headed):
            end = headed[n + 1].start() if n + 1 < len(headed) else len(outcome)
            said = "Negative: " if (heading.group(1) or "").lower() == "negative" else ""
            consequences += [said + item for item in _items(outcome[heading.end() : end])]
        outcome = outcome[: headed[0].start()]
    chosen = _CHOSEN.search(outcome)
    decision = outcome.strip()
    dated = _DATE.search(body)
    date = str(meta.get("date") or (dated.group(1) if dated else "")) or None
    data: dict[str, Any] = {
        "id": record_id,
        "title": str(meta.get("title") or (title_match.group(1) if title_match else file.stem)),
        "context": context[:5000] or "(none given)",
        "decision": decision or (chosen.group(1) if chosen else ""),
        "consequences": [c[:1000] for c in consequences][:20],
    }
    if date:
        data["date"] = date
    stated = _STATUS.search(body)
    state = str(meta.get("status") or sections.get("status") or (stated.group(1) if stated else ""))
    if state.split() and state.split()[0].strip("*.:").lower() in NOT_IN_FORCE:
        data["status"] = "archived"  # the import archives it once recorded
    if meta.get("tags"):
        tags = meta["tags"]
        data["tags"] = [str(t) for t in tags] if isinstance(tags, list) else [str(tags)]
    where = f"{name}:{first_line}"
    yield Record("decision", data, where)
    status = sections.get("status", "") + "\n" + str(meta.get("status", ""))
    for target in _SUPERSEDES.findall(body.replace(sections.get("status", ""), "") + "\n" + status):
        older = slug(Path(target.split("#")[0]).stem)
        if older and older != record_id:
            yield Record("edge", {"sourceId": record_id, "type": "supersedes", "targetId": older}, where)


def _items(text: str) -> list[str]:
    """The items of a consequences list (bullets, or paragraphs), headings left out."""
    return [
        re.sub(r"^[-*]\s+", "", line).strip()
        for line in re.split(r"\n(?=[-*]\s)|\n\s*\n|\n(?=#)", text)
        if line.strip() and not line.strip().startswith("#")
    ]


def _markdown(file: Path, root: Path, max_words: int) -> Iterator[Record]:
    name = str(file.relative_to(root)) if file.is_relative_to(root) else file.name
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:  # one bad file is one rejected record, not a failed import
        yield Record("note", {}, f"{name}:1", f"not UTF-8 text: {exc.reason} at byte {exc.start}")
        return
    meta: dict[str, Any] = {}
    body, first_line = text, 1
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1:
            try:
                loaded = yaml.safe_load(text[4:end])
            except yaml.YAMLError as exc:
                yield Record("note", {}, f"{name}:1", f"front matter is not YAML: {exc}")
                return
            meta = loaded if isinstance(loaded, dict) else {}
            rest = text[end + 4 :]
            body = rest.lstrip("\n")
            # the body's first line: after the front matter and the blank lines that follow it
            first_line = text[: end + 4].count("\n") + 1 + (len(rest) - len(body))
    heading = _HEADING.search(body)
    note_id = str(meta.get("id") or slug(file.stem))
    sections = _sections(body)
    if ("decision" in sections or "decision outcome" in sections) and (
        "context" in sections or "context and problem statement" in sections
    ):
        yield from _decision_record(file, name, first_line, meta, body, sections, note_id)
        return
    note: dict[str, Any] = {
        "id": note_id,
        "title": str(meta.get("title") or (heading.group(1) if heading else file.stem)),
        "content": body.strip(),
        "type": str(meta.get("type") or "concept"),
        "sourceRef": f"{name}:{first_line}",
    }
    for name_ in ("source", "confidence"):
        if name_ in meta:
            note[name_] = meta[name_]
    if "tags" in meta:
        tags = meta["tags"]
        note["tags"] = [str(t) for t in tags] if isinstance(tags, list) else [str(tags)]
    where = f"{name}:{first_line}"
    yield from split(Record("note", note, where), max_words)
    seen: set[tuple[str, str]] = set()
    for edge_type in EDGE_TYPES:
        targets = meta.get(edge_type) or []
        for target in targets if isinstance(targets, list) else [targets]:
            key = (edge_type, slug(str(target)))
            if key not in seen:
                seen.add(key)
                yield Record("edge", {"sourceId": note_id, "type": edge_type, "targetId": key[1]}, where)
    for link in _WIKILINK.findall(body):
        key = ("relatedTo", slug(link))
        if key not in seen and key[1] != note_id:
            seen.add(key)
            line = first_line + body[: body.find(f"[[{link}")].count("\n")
            yield Record(
                "edge", {"sourceId": note_id, "type": "relatedTo", "targetId": key[1]}, f"{name}:{line}"
            )
