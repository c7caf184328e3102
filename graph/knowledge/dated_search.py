"""Search that reads dates: the time words of a question, and the age of what it finds.

Offline and deterministic, no LLM. A question is read against the time it asks about
(``asOf``, else now) by :mod:`graph.knowledge.time_words`, and what search ranks is then:

* **recency** (``recency`` w > 0): every ranking's scores discounted by age,
  ``score * (1 - w * ln(1 + age / 1 day))``, ``age`` from when the note began (``validFrom``,
  else when it was recorded) to the time asked about, 0 for a note begun later that day;
  at w 0.1 a day old costs 7 %, a week 21 %, a month 34 %;
* **spans** (``readDates``): for each span of time the question names ("last Saturday",
  "two weeks ago", "in March", "in the past month"), the question is searched again among the
  notes that began in the span's :func:`~graph.knowledge.time_words.window`, and those
  rankings are fused with the question's by reciprocal rank (k 60);
* **parts** (``readDates``): for a question that compares events ("which did I do first, X
  or Y", "how many days between X and Y"), each event is searched on its own; after the top
  hit come each part's best hit not chosen yet, then the rest.

Each ranking is eight times ``topK`` deep (at least 40, at most 100), so a window or a part
can lift a hit the question alone ranks low (on LongMemEval's temporal questions 20 deep
found 0.724 of them whole, 40 deep 0.732, 80 deep no more). A question that names no span and compares
nothing, without recency, is searched as it is, at no extra cost. Hits are ranked as units:
notes, or sources with ``collapseBy``. Their ``score`` is the fused one; ``vectorScore`` and
``textScore`` stay those of the question's own search where it found them.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, time
from typing import Any

from graph.knowledge.models import SearchQuery
from graph.knowledge.search import COLLAPSE, conversation_turn
from graph.knowledge.time_words import Reading, read_question, window

#: Reciprocal rank fusion constant of the window rankings with the question's.
RRF_K = 60
#: The age unit of recency, in milliseconds (a day).
DAY_MS = 86_400_000

Hit = dict[str, Any]
Search = Callable[[SearchQuery], Awaitable[dict[str, Any]]]


def reads_dates(query: SearchQuery) -> bool:
    """Whether this search takes the dated path at all."""
    return query.read_dates or query.recency > 0


def reading_of(query: SearchQuery, at: int) -> Reading:
    """What the question says about time, read at ``at`` (epoch ms)."""
    if not query.read_dates:
        return Reading()
    return read_question(query.query, datetime.fromtimestamp(at / 1000, UTC))


def _key(hit: Hit, collapse: str | None) -> str:
    """The source a hit counts for, as the search query collapses (``search.COLLAPSE``)."""
    node = hit["node"]
    if node.get("sourceRef") and (collapse == "sourceRef" or (collapse and conversation_turn(node))):
        return f"source:{node['sourceRef']}"
    return f"note:{node['id']}"


def _began(node: dict[str, Any]) -> int | None:
    stamp = node.get("validFrom") or node.get("createdAt")
    return int(datetime.fromisoformat(stamp).timestamp() * 1000) if stamp else None


def discounted(hits: Sequence[Hit], at: int, weight: float) -> list[Hit]:
    """``hits`` re-sorted by their scores discounted for age at ``at`` (see the module)."""
    if weight <= 0:
        return list(hits)

    def score(hit: Hit) -> float:
        began = _began(hit["node"])
        days = max(0.0, (at - began) / DAY_MS) if began is not None else 0.0
        return float(hit["score"]) * (1 - weight * math.log1p(days))

    return sorted((hit | {"score": score(hit)} for hit in hits), key=lambda h: -h["score"])


def fused(rankings: Sequence[Sequence[Hit]], collapse: str | None, k: int = RRF_K) -> list[Hit]:
    """Reciprocal-rank fusion of rankings (each unit once, as its first ranking holds it)."""
    total: dict[str, float] = {}
    first: dict[str, Hit] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, 1):
            key = _key(hit, collapse)
            total[key] = total.get(key, 0.0) + 1 / (k + rank)
            first.setdefault(key, hit)
    return [first[key] | {"score": total[key]} for key in sorted(total, key=lambda key: -total[key])]


def with_parts(ranked: Sequence[Hit], parts: Sequence[Sequence[Hit]], collapse: str | None) -> list[Hit]:
    """The top hit, then each part's best hit not chosen yet, then the rest in order."""
    chosen = list(ranked[:1])
    for part in parts:
        held = {_key(h, collapse) for h in chosen}
        chosen += [h for h in part if _key(h, collapse) not in held][:1]
    held = {_key(h, collapse) for h in chosen}
    return chosen + [h for h in ranked if _key(h, collapse) not in held]


def _day_ms(day: Any) -> int:
    return int(datetime.combine(day, time(0), UTC).timestamp() * 1000)


async def dated_ranking(
    search: Search, query: SearchQuery, reading: Reading, at: int, vector: list[float] | None
) -> list[Hit]:
    """The hits of ``query`` ranked with what ``reading`` found in it (see the module), best
    first, at most ``top_k``. ``search`` runs a plain search; ``vector`` is the question's
    embedding, so the window searches do not embed it again."""
    collapse = COLLAPSE[query.collapse_by]
    deep = replace(
        query, read_dates=False, recency=0.0, expand_connections=False,
        top_k=min(100, max(query.top_k * 8, 40)), embedding=vector,
    )  # fmt: skip
    asked = datetime.fromtimestamp(at / 1000, UTC)
    filters = query.filters
    windows = []
    for span in reading.spans:
        start, end = (_day_ms(day) for day in window(span, asked, reading.told))
        if filters.begun_after is not None:
            start = max(start, filters.begun_after)
        if filters.begun_before is not None:
            end = min(end, filters.begun_before)
        if start < end:
            narrowed = replace(deep, filters=replace(filters, begun_after=start, begun_before=end))
            windows.append(discounted((await search(narrowed))["hits"], at, query.recency))
    parts = [
        discounted((await search(replace(deep, query=part, embedding=None)))["hits"], at, query.recency)
        for part in reading.parts
    ]
    ranked = discounted((await search(deep))["hits"], at, query.recency)
    if windows:
        ranked = fused([ranked, fused(windows, collapse)], collapse)
    if parts:
        ranked = with_parts(ranked, parts, collapse)
    return ranked[: query.top_k]
