"""Before and after, field by field, as a person reads a change: words taken out and put in."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

#: Fields of a stored state that say nothing a person decides on.
HIDDEN = frozenset({"embedding", "userId", "seq", "vector", "embeddingModel"})


@dataclass(frozen=True)
class Piece:
    """A run of a field's text: ``same``, ``out`` (taken out) or ``in`` (put in)."""

    kind: str
    text: str


@dataclass(frozen=True)
class FieldDiff:
    """One field that differs, with its before and after as pieces."""

    name: str
    pieces: tuple[Piece, ...]


def shown(value: Any) -> str:
    """A value as text: strings as they are, anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def words(before: str, after: str) -> tuple[Piece, ...]:
    """The word-level difference of two texts."""
    old, new = before.split(" "), after.split(" ")
    pieces: list[Piece] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "equal":
            pieces.append(Piece("same", " ".join(old[i1:i2])))
            continue
        if i2 > i1:
            pieces.append(Piece("out", " ".join(old[i1:i2])))
        if j2 > j1:
            pieces.append(Piece("in", " ".join(new[j1:j2])))
    return tuple(pieces)


def diff(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[FieldDiff]:
    """The fields whose value differs between two states (either may be absent: a create
    or a delete), in a stable order."""
    old, new = before or {}, after or {}
    names = [n for n in dict.fromkeys([*old, *new]) if n not in HIDDEN]
    out: list[FieldDiff] = []
    for name in names:
        was, now = shown(old.get(name)), shown(new.get(name))
        if was != now:
            out.append(FieldDiff(name, words(was, now) if was and now else _whole(was, now)))
    return out


def _whole(was: str, now: str) -> tuple[Piece, ...]:
    return tuple(p for p in (Piece("out", was), Piece("in", now)) if p.text)
