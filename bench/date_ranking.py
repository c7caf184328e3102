"""Re-ranking by date outside the service: a prototype of date handling for search.

The benchmark runs every search ``asOf`` the end of the day the question was asked, so the
service leaves out sessions dated later (the memory as it stood then). For a question that
names a span of time or compares events (:mod:`graph.knowledge.time_words` reads both) it also
asks the API for the question again within each span's :func:`window` (the API has no filter
on ``validFrom`` from below, so each note carries its day as a tag and the search is filtered
by the window's days), and for each part on its own. Then these steps, each on its own so
that its effect can be measured:

* **recency**: every ranking is re-sorted by its scores times
  ``1 - RECENCY_WEIGHT * ln(1 + age / RECENCY_DAYS)``, ``age`` the days from the session's
  date to the question's time (0 for a session later that day);
* **spans**: the window searches' ranking is fused with the question's by reciprocal rank
  (k :data:`RRF_K`);
* **parts**: after the top session, each part's best session not yet chosen, then the rest
  in their order.

Nothing here reads what a session says; only the dates its notes carry (``validFrom``, the
session's date) and the scores search gave. :func:`as_of` does on the client what the
service's ``asOf`` does, to compare the two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from graph.knowledge.time_words import Reading

RRF_K = 60
RECENCY_WEIGHT = 0.1
RECENCY_DAYS = 1.0
STEPS = ("recency", "spans", "parts")


@dataclass(frozen=True)
class Candidate:
    """A session search returned: its best hit's score and the date its notes carry."""

    session: str
    score: float
    date: datetime | None


def day_end(day: date) -> datetime:
    """The day's last second (UTC): what ``asOf`` is sent for a day."""
    return datetime.combine(day, time(23, 59, 59), UTC)


def fuse(rankings: Sequence[Sequence[Candidate]], k: int = RRF_K) -> list[Candidate]:
    """Reciprocal-rank fusion of rankings of sessions (each session once, at its best)."""
    fused: dict[str, float] = {}
    first: dict[str, Candidate] = {}
    for ranking in rankings:
        for rank, c in enumerate(ranking, 1):
            fused[c.session] = fused.get(c.session, 0.0) + 1 / (k + rank)
            first.setdefault(c.session, c)
    return [first[s] for s in sorted(fused, key=lambda s: -fused[s])]


def as_of(candidates: Sequence[Candidate], asked: datetime) -> list[Candidate]:
    """The candidates not dated after the day ``asked`` (undated ones stay)."""
    return [c for c in candidates if c.date is None or c.date.date() <= asked.date()]


def recency(candidates: Sequence[Candidate], asked: datetime) -> list[Candidate]:
    """The candidates by their scores discounted for age (undated ones as if dated today)."""

    def weighed(c: Candidate) -> float:
        days = max(0.0, (asked - c.date).total_seconds() / 86400) if c.date else 0.0
        return c.score * (1 - RECENCY_WEIGHT * math.log1p(days / RECENCY_DAYS))

    return sorted(candidates, key=lambda c: -weighed(c))


def with_parts(ranked: Sequence[Candidate], parts: Sequence[Sequence[Candidate]]) -> list[Candidate]:
    """The top session, then each part's best session not chosen yet, then the rest."""
    chosen = list(ranked[:1])
    for part in parts:
        held = {c.session for c in chosen}
        chosen += [c for c in part if c.session not in held][:1]
    held = {c.session for c in chosen}
    return chosen + [c for c in ranked if c.session not in held]


def rerank(
    base: Sequence[Candidate],
    parts: Sequence[Sequence[Candidate]],
    windows: Sequence[Sequence[Candidate]],
    reading: Reading,
    asked: datetime,
    steps: Sequence[str] = STEPS,
) -> list[Candidate]:
    """The question's candidates re-ranked by the named ``steps`` (``as_of`` first if named,
    then in :data:`STEPS` order)."""
    ranked = as_of(base, asked) if "as_of" in steps else list(base)
    if "recency" in steps:
        ranked = recency(ranked, asked)
        windows = [recency(w, asked) for w in windows]
        parts = [recency(p, asked) for p in parts]
    if "spans" in steps and any(windows):
        ranked = fuse([ranked, fuse(windows)])
    if "parts" in steps and parts:
        ranked = with_parts(ranked, parts)
    return ranked
