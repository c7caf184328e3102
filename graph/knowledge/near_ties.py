"""Near ties told newer-first: of two hits a search scores almost alike, the newer goes first.

A value and the update that changed it are two notes about one thing, and a ranking by words
and vectors has no reason to prefer the later: on LongMemEval's knowledge updates, asked as
an agent asks on the day, the older session ranked above the latest in four questions of ten.
So the final hits of a search are re-ordered once, after everything else ranked them: each
hit, best first, moves above the first hit ranked before it that is older (its time began
earlier) and whose score its own comes within :data:`NEAR_TIE` of. A hit clearly behind stays
where it is, and the top k keep their members: only their order moves. A hit's time is the
one a note states (``validFrom``), else when it was recorded (``createdAt``), as recency reads
it. Scores are left as they were: a hit moved up can show a score a little below the one
after it.

It applies to a hybrid search that asks for time (``recency`` > 0 or ``readDates``:
:func:`asks_for_time`). ``docs/retrieval.md`` ("Knowledge updates: the latest value first")
has the figures: on the 470 oracle questions asked with dates, the latest value first for
0.722 of the knowledge updates instead of 0.597, at no cost to nDCG@5.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graph.knowledge.models import SearchMode, SearchQuery

Hit = dict[str, Any]

#: How far below an older hit's score a newer hit's may lie and still go first, as a share of
#: the older one's (0.05: at least 95 % of it). Replayed offline on both LongMemEval sets, 0.05
#: ordered more knowledge updates at no cost to nDCG@5; 0.1 and more cost nDCG@5.
NEAR_TIE = 0.05


def asks_for_time(query: SearchQuery) -> bool:
    """Whether a search gets its near ties newer-first: a hybrid search that asks for time
    (``recency`` > 0 or ``readDates``). A vector search's cosines lie close together, so 5 %
    of one spans much of a top 5: with dates, the rule cost its nDCG@5 0.655 -> 0.601 on the
    470 oracle questions (keyword search 0.760 -> 0.748), where hybrid lost nothing."""
    return query.mode == SearchMode.HYBRID and (query.recency > 0 or query.read_dates)


def began(node: dict[str, Any]) -> datetime | None:
    """When a note's content began to hold: ``validFrom``, else ``createdAt`` (ISO, as the API
    shows them), or ``None`` when it has neither."""
    stamp = node.get("validFrom") or node.get("createdAt")
    return datetime.fromisoformat(str(stamp).replace("Z", "+00:00")) if stamp else None


def near_tie(score: float, ahead: float, share: float = NEAR_TIE) -> bool:
    """Whether ``score`` is within ``share`` of ``ahead``'s score below it (or above it)."""
    return ahead - score <= share * abs(ahead)


def newer_first(hits: Sequence[Hit], share: float = NEAR_TIE) -> list[Hit]:
    """``hits`` (``{"node": ..., "score": ...}``, best first) with each moved above the first
    older hit before it whose score it comes within ``share`` of (see the module)."""
    out: list[tuple[Hit, datetime | None]] = []
    for hit in hits:
        when = began(hit["node"])
        place = len(out)
        if when is not None:
            score = float(hit["score"])
            for i, (other, then) in enumerate(out):
                if then is not None and when > then and near_tie(score, float(other["score"]), share):
                    place = i
                    break
        out.insert(place, (hit, when))
    return [hit for hit, _ in out]
