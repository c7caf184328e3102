"""Before and after, field by field, as a person reads a change: words taken out and put in.

A word diff costs what its bounds allow, whatever an agent stored. :func:`words` splits as
the word limit counts (``split()``: a run of blanks is no word), shows a field of more than
:data:`MAX_TOKENS` words on a side whole (out, then in), and matches the rest without
difflib, whose worst case (repeated words) is cubic: the common ends are cut off, words found
once on each side anchor the match (patience diff), a stretch between anchors of at most
:data:`SMALL` words is matched exactly (a table of at most 16 x 16), and a longer one with no
anchor of its own is shown whole. The worst case at the cap, 2,000 words a side, takes about
15 ms (docs/operations.md). All the diffs of one page draw on one budget
(:data:`PAGE_TOKENS`, set by :func:`budgeted`), past which fields are shown whole.
"""

from __future__ import annotations

import bisect
import json
from collections import Counter
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

#: Fields of a stored state that say nothing a person decides on.
HIDDEN = frozenset({"embedding", "userId", "seq", "vector", "embeddingModel"})
#: The most tokens either side of one field may have to be diffed word by word.
MAX_TOKENS = 2_000
#: The longest stretch (both sides together) matched word for word by a common-subsequence table.
SMALL = 32
#: How deep anchors may nest (a stretch's own unique words, within a stretch, ...).
DEPTH = 32
#: The tokens all the word diffs of one rendering may take together.
PAGE_TOKENS = 20_000

_budget: ContextVar[list[int] | None] = ContextVar("diff_budget", default=None)


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


def budgeted(tokens: int = PAGE_TOKENS) -> None:
    """Give the diffs of this context (one page's rendering) ``tokens`` to share."""
    _budget.set([tokens])


def _draw(n: int) -> bool:
    """Whether ``n`` more tokens fit this context's budget (taken if so)."""
    left = _budget.get()
    if left is None:
        return True
    if left[0] < n:
        return False
    left[0] -= n
    return True


#: An opcode as difflib gives it: tag, old start and end, new start and end.
Op = tuple[str, int, int, int, int]
#: A stretch of both sides: old start and end, new start and end.
Span = tuple[int, int, int, int]


def words(before: str, after: str) -> tuple[Piece, ...]:
    """The word-level difference of two texts (whole, out and in, past the bounds)."""
    old, new = before.split(), after.split()
    if max(len(old), len(new)) > MAX_TOKENS or not _draw(len(old) + len(new)):
        return _whole(before, after)
    ops: list[Op] = []
    _match(old, new, (0, len(old), 0, len(new)), ops, 0)
    pieces: list[Piece] = []
    for op, i1, i2, j1, j2 in ops:
        if op == "equal":
            pieces.append(Piece("same", " ".join(old[i1:i2])))
            continue
        if i2 > i1:
            pieces.append(Piece("out", " ".join(old[i1:i2])))
        if j2 > j1:
            pieces.append(Piece("in", " ".join(new[j1:j2])))
    return tuple(_merged(pieces))


def _match(a: list[str], b: list[str], span: Span, ops: list[Op], depth: int) -> None:
    """Append the opcodes turning ``a[i1:i2]`` into ``b[j1:j2]``."""
    i1, i2, j1, j2 = span
    head = 0
    while i1 + head < i2 and j1 + head < j2 and a[i1 + head] == b[j1 + head]:
        head += 1
    tail = 0
    while i2 - tail > i1 + head and j2 - tail > j1 + head and a[i2 - tail - 1] == b[j2 - tail - 1]:
        tail += 1
    if head:
        ops.append(("equal", i1, i1 + head, j1, j1 + head))
    mi1, mi2, mj1, mj2 = i1 + head, i2 - tail, j1 + head, j2 - tail
    if mi1 < mi2 or mj1 < mj2:
        _middle(a, b, (mi1, mi2, mj1, mj2), ops, depth)
    if tail:
        ops.append(("equal", i2 - tail, i2, j2 - tail, j2))


def _middle(a: list[str], b: list[str], span: Span, ops: list[Op], depth: int) -> None:
    """The part between the common ends: small, by the exact table; else between unique anchors."""
    i1, i2, j1, j2 = span
    if i1 == i2 or j1 == j2 or depth >= DEPTH:
        ops.append(("replace", i1, i2, j1, j2))
        return
    if i2 - i1 == 1 or j2 - j1 == 1:  # one word against some: found in them, or replaced
        _one(a, b, span, ops)
        return
    if (i2 - i1) + (j2 - j1) <= SMALL:
        _small(a, b, span, ops)
        return
    anchors = _anchors(a, b, span)
    if not anchors:
        ops.append(("replace", i1, i2, j1, j2))
        return
    i, j = i1, j1
    for ai, bj in anchors:
        _match(a, b, (i, ai, j, bj), ops, depth + 1)
        ops.append(("equal", ai, ai + 1, bj, bj + 1))
        i, j = ai + 1, bj + 1
    _match(a, b, (i, i2, j, j2), ops, depth + 1)


def _small(a: list[str], b: list[str], span: Span, ops: list[Op]) -> None:
    """A short stretch by the longest common subsequence (a table of at most SMALL² / 4)."""
    i1, i2, j1, j2 = span
    n, m = i2 - i1, j2 - j1
    longest = [[0] * (m + 1) for _ in range(n + 1)]  # from each place to the ends
    for i in range(n - 1, -1, -1):
        row, below, word = longest[i], longest[i + 1], a[i1 + i]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if word == b[j1 + j] else max(below[j], row[j + 1])
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and a[i1 + i] == b[j1 + j]:
            ops.append(("equal", i1 + i, i1 + i + 1, j1 + j, j1 + j + 1))
            i, j = i + 1, j + 1
        elif i < n and (j == m or longest[i + 1][j] >= longest[i][j + 1]):
            ops.append(("delete", i1 + i, i1 + i + 1, j1 + j, j1 + j))
            i += 1
        else:
            ops.append(("insert", i1 + i, i1 + i, j1 + j, j1 + j + 1))
            j += 1


def _one(a: list[str], b: list[str], span: Span, ops: list[Op]) -> None:
    """A stretch with one word on a side: that word kept where the other side has it."""
    i1, i2, j1, j2 = span
    if i2 - i1 == 1:
        at = next((j for j in range(j1, j2) if b[j] == a[i1]), None)
        found = None if at is None else (i1, at)
    else:
        at = next((i for i in range(i1, i2) if a[i] == b[j1]), None)
        found = None if at is None else (at, j1)
    if found is None:
        ops.append(("replace", i1, i2, j1, j2))
        return
    i, j = found
    ops += [("replace", i1, i, j1, j), ("equal", i, i + 1, j, j + 1), ("replace", i + 1, i2, j + 1, j2)]


def _anchors(a: list[str], b: list[str], span: Span) -> list[tuple[int, int]]:
    """Words found once in ``a[i1:i2]`` and once in ``b[j1:j2]``, as pairs of places, the
    longest run of them in the same order on both sides (patience sorting)."""
    i1, i2, j1, j2 = span
    count_a, count_b = Counter(a[i1:i2]), Counter(b[j1:j2])
    where_b = {b[j]: j for j in range(j1, j2) if count_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(i1, i2) if count_a[a[i]] == 1 and a[i] in where_b]
    tops: list[int] = []  # the smallest b-place ending a run of each length
    ends: list[int] = []  # the pair index behind each top
    before: list[int] = []
    for k, (_, bj) in enumerate(pairs):
        n = bisect.bisect_left(tops, bj)
        before.append(ends[n - 1] if n else -1)
        if n == len(tops):
            tops.append(bj)
            ends.append(k)
        else:
            tops[n], ends[n] = bj, k
    run: list[tuple[int, int]] = []
    k = ends[-1] if ends else -1
    while k >= 0:
        run.append(pairs[k])
        k = before[k]
    return run[::-1]


def _merged(pieces: list[Piece]) -> list[Piece]:
    """Neighbouring pieces of one kind as one (anchors split runs that read as one)."""
    out: list[Piece] = []
    for piece in pieces:
        if not piece.text:
            continue
        if out and out[-1].kind == piece.kind:
            out[-1] = Piece(piece.kind, f"{out[-1].text} {piece.text}")
        else:
            out.append(piece)
    return out


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
