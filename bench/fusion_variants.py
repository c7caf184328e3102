"""The fusions ``bench.fusion_replay`` tried for "Rankings no one can stuff" (docs/retrieval.md):
each takes both halves of a search as the query ranked them, the query's parameters and the
notes, and ranks as the query's fusion and filler check would. ``search`` is the one
``queries/knowledge/search_*`` runs; ``VARIANTS`` is what the docs' table lists.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from graph.knowledge.search import CHECKED_PAST_TOP_K, FILLER_ALLOWED, FILLER_SPAN, RUNAWAY

Hits = list[dict[str, Any]]
Fusion = Callable[[Hits, Hits, dict[str, Any], dict[str, Any]], Hits]
Scale = Callable[[Hits], list[float]]
_TERM = re.compile(r"title:\((.+?)\)")
#: The query's SEPARATORS (``graph/knowledge/search.py``) as one character class.
_SEPARATORS = re.compile(r"[.,?!;:\"()'\-/\n\t\r]")


def min_max(hits: Hits) -> list[float]:
    """0 at the last of the ranking, 1 at its best (the fusion of 2026-12-02)."""
    return runaway_capped(float("inf"))(hits)


def runaway_capped(runaway: float) -> Scale:
    """0 at the last, 1 at the best, the best's margin over the last at most ``runaway`` times
    the runner-up's (a note above that is 1)."""

    def scale(hits: Hits) -> list[float]:
        if not hits:
            return []
        last, best = hits[-1]["score"], hits[0]["score"]
        if len(hits) > 2:
            best = min(best, last + runaway * (hits[1]["score"] - last))
        return [min(1.0, (h["score"] - last) / (best - last)) if best > last else 1.0 for h in hits]

    return scale


def reference_capped(index: int) -> Scale:
    """0 at the last, 1 at the ``index``-th best (0: the best), capped at 1."""

    def scale(hits: Hits) -> list[float]:
        if not hits:
            return []
        last, ref = hits[-1]["score"], hits[min(index, len(hits) - 1)]["score"]
        return [min(1.0, (h["score"] - last) / (ref - last)) if ref > last else 1.0 for h in hits]

    return scale


def _summed(parts: list[tuple[str, Any, float]]) -> Hits:
    total: dict[str, float] = {}
    source: dict[str, Any] = {}
    for node_id, src, part in parts:
        total[node_id] = total.get(node_id, 0.0) + part
        source[node_id] = src
    return [
        {"id": i, "score": total[i], "src": source[i]} for i in sorted(total, key=lambda i: (-total[i], i))
    ]


def scaled(scale: Scale) -> Fusion:
    """The halves as ranked in vector and fulltext mode; hybrid: their scales, weighted."""

    def fusion(vector: Hits, text: Hits, params: dict[str, Any], notes: dict[str, Any]) -> Hits:
        if params["mode"] != "hybrid":
            return vector if params["mode"] == "vector" else text
        weight = params["vectorWeight"]
        parts = [(h["id"], h["src"], weight * x) for h, x in zip(vector, scale(vector), strict=True)]
        parts += [(h["id"], h["src"], (1 - weight) * x) for h, x in zip(text, scale(text), strict=True)]
        return _summed(parts)

    return fusion


def reciprocal_rank(k: int = 60) -> Fusion:
    """Hybrid by reciprocal rank fusion (before 2026-12-02)."""

    def fusion(vector: Hits, text: Hits, params: dict[str, Any], notes: dict[str, Any]) -> Hits:
        if params["mode"] != "hybrid":
            return vector if params["mode"] == "vector" else text
        parts = [(h["id"], h["src"], 1 / (k + i + 1)) for half in (vector, text) for i, h in enumerate(half)]
        return _summed(parts)

    return fusion


def filler_share(note: dict[str, Any], words: list[str]) -> float:
    """The share of a note's words (split at spaces) that repeat a query word past its first."""
    text = f"{note.get('title') or ''} {note.get('content') or ''}"
    tokens = _SEPARATORS.sub(" ", text.lower()).split()
    counts = [tokens.count(w) for w in words]
    return (sum(counts) - sum(1 for c in counts if c)) / max(len(text.split(" ")), 1)


def kept_linear(allowed: float, span: float) -> Callable[[float], float]:
    """All of the score up to ``allowed`` filler, none from ``allowed + span``, linear between."""
    return lambda share: min(1.0, max(0.0, 1 - (share - allowed) / span))


def kept_power(power: float) -> Callable[[float], float]:
    """(1 - share) ** power: any repeat costs."""
    return lambda share: (1 - min(share, 1.0)) ** power


def filler_checked(
    base: Fusion, kept: Callable[[float], float], past_top_k: int | None = CHECKED_PAST_TOP_K
) -> Fusion:
    """``base``, then the hybrid or keyword score of each of the first top k + ``past_top_k``
    (all when None) times ``kept`` of its filler share, re-sorted."""

    def fusion(vector: Hits, text: Hits, params: dict[str, Any], notes: dict[str, Any]) -> Hits:
        ranked = base(vector, text, params, notes)
        if params["mode"] not in ("hybrid", "fulltext"):
            return ranked
        words = [m.group(1) for t in params["terms"] if (m := _TERM.search(t))]
        head = len(ranked) if past_top_k is None else params["topK"] + past_top_k
        rescored = [
            r | {"score": r["score"] * kept(filler_share(notes[r["id"]], words))}
            if i < head and r["id"] in notes
            else r
            for i, r in enumerate(ranked)
        ]
        return sorted(rescored, key=lambda r: -r["score"])

    return fusion


#: What ``queries/knowledge/search_*`` does now.
search = filler_checked(scaled(runaway_capped(RUNAWAY)), kept_linear(FILLER_ALLOWED, FILLER_SPAN))
VARIANTS: dict[str, Fusion] = {
    "min-max (2026-12-02)": scaled(min_max),
    "reciprocal rank, k 60": reciprocal_rank(60),
    "second best as 1, capped": scaled(reference_capped(1)),
    "third best as 1, capped": scaled(reference_capped(2)),
    "runaway 1.5": scaled(runaway_capped(1.5)),
    "runaway 2": scaled(runaway_capped(2)),
    "runaway 3": scaled(runaway_capped(3)),
    "second best, capped, filler (1 - share)": filler_checked(scaled(reference_capped(1)), kept_power(1)),
    "min-max, filler (1 - share)^2": filler_checked(scaled(min_max), kept_power(2)),
    "runaway 2, filler (1 - share)": filler_checked(scaled(runaway_capped(2)), kept_power(1)),
    "runaway 2, filler (1 - share)^2": filler_checked(scaled(runaway_capped(2)), kept_power(2)),
    "runaway 2, filler (1 - share)^2, every candidate": filler_checked(
        scaled(runaway_capped(2)), kept_power(2), None
    ),
    "min-max, filler past 0.2 over 0.2": filler_checked(scaled(min_max), kept_linear(0.2, 0.2)),
    "runaway 2, filler past 0.15 over 0.2": filler_checked(scaled(runaway_capped(2)), kept_linear(0.15, 0.2)),
    "runaway 2, filler past 0.2 over 0.2": filler_checked(scaled(runaway_capped(2)), kept_linear(0.2, 0.2)),
    "runaway 2, filler past 0.25 over 0.25": filler_checked(
        scaled(runaway_capped(2)), kept_linear(0.25, 0.25)
    ),
    "runaway 2, filler past 0.2 over 0.3, top k + 10": filler_checked(
        scaled(runaway_capped(2)), kept_linear(0.2, 0.3), 10
    ),
    "now: runaway 2, filler past 0.2 over 0.3, top k": search,
}
