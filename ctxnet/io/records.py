"""A record of an import (a note, an edge, a decision ...) with the file and line it came
from, the id rule of a name (:func:`slug`), and the split of a note longer than the atomic
limit into linked parts (:func:`split`).

A note longer than the atomic limit is split at its headings, then paragraphs, into parts
of at most that many words, ids ``<id>``, ``<id>-2``, ...; each part ``relatedTo`` the one
before (parts are never folded into each other by dedupe); the import reports the split.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

_SLUG = re.compile(r"[^A-Za-z0-9._:@-]+")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_INLINE = re.compile(r"(`+)(?:(?!\1).)+?\1")


@dataclass
class Record:
    """A note or an edge read from a file, where it came from, and any reason it is refused
    before it is sent."""

    kind: str  # "note" or "edge"
    data: dict[str, Any]
    where: str  # file:line
    problem: str | None = None
    notes: list[str] = field(default_factory=list)  # what the import did to it (a split)
    #: What the source said beside the fields (a decision record's stated status and date).
    extra: dict[str, Any] = field(default_factory=dict)


def slug(text: str) -> str:
    """An id from a name: letters, digits and ``._:@-`` kept (what an id may hold), runs of
    anything else a ``-``."""
    return _SLUG.sub("-", text.strip()).lstrip("-._:@").rstrip("-")[:128] or "note"


def split(record: Record, max_words: int) -> Iterator[Record]:
    """The note itself, or its parts when it is longer than ``max_words`` (module docstring)."""
    content = str(record.data.get("content", ""))
    if len(content.split()) <= max_words:
        yield record
        return
    pieces = parts(content, max_words)
    base = str(record.data.get("id") or slug(str(record.data.get("title", "note"))))
    title = str(record.data.get("title", base))
    previous = None
    for i, text in enumerate(pieces, 1):
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
            "note", data, record.where, notes=[f"split into {len(pieces)} notes of at most {max_words} words"]
        )
        if previous is not None:
            yield Record(
                "edge", {"sourceId": part_id, "type": "relatedTo", "targetId": previous}, record.where
            )
        previous = part_id


def parts(content: str, max_words: int) -> list[str]:
    """Chunks of at most ``max_words`` words, cut at headings, then paragraphs, then words."""
    blocks: list[str] = []
    for section in re.split(r"\n(?=#{1,6}\s)", content):
        for paragraph in re.split(r"\n\s*\n", section):
            words = paragraph.split()
            if not words:
                continue
            if len(words) <= max_words:
                blocks.append(paragraph.strip())
                continue
            # a paragraph longer than a note: cut at words
            blocks += [" ".join(words[at : at + max_words]) for at in range(0, len(words), max_words)]
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


def without_code(body: str) -> str:
    """``body`` with fenced and inline code blanked (line numbers kept)."""
    lines, fence = [], ""
    for line in body.split("\n"):
        opening = _FENCE.match(line) if "`" in line or "~" in line else None
        if fence:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = ""
            lines.append("")
        elif opening:
            fence = opening.group(1)
            lines.append("")
        else:
            lines.append(_INLINE.sub(lambda m: " " * len(m.group()), line) if "`" in line else line)
    return "\n".join(lines)
