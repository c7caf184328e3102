"""Near ties told newer-first (``graph.knowledge.near_ties``): generated near ties and clear
gaps, the newer hit behind or ahead, and which searches get the rule."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph.knowledge.models import SearchMode, SearchQuery
from graph.knowledge.near_ties import NEAR_TIE, asks_for_time, newer_first

START = datetime(2024, 1, 1, tzinfo=UTC)


def hit(name: str, score: float, day: int | None, *, stated: bool = True) -> dict[str, Any]:
    """A hit of ``score`` whose note began ``day`` days after START: stated (``validFrom``,
    recorded much later), or only recorded then (``createdAt``); ``None``: neither time."""

    def on(days: int) -> str:
        return (START + timedelta(days=days)).isoformat(timespec="milliseconds")

    node: dict[str, Any] = {"id": name}
    if day is not None and stated:
        node |= {"validFrom": on(day), "createdAt": on(900)}
    elif day is not None:
        node["createdAt"] = on(day)
    return {"node": node, "score": score}


def names(hits: list[dict[str, Any]]) -> list[str]:
    return [h["node"]["id"] for h in hits]


SEEDS = range(200)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_newer_hit_within_the_near_tie_goes_first(seed: int) -> None:
    rng = random.Random(seed)
    ahead = rng.uniform(0.05, 30.0)  # cosines, fused scores and BM25 alike
    behind = ahead * (1 - rng.uniform(0.0, NEAR_TIE * 0.999))
    old_day = rng.randrange(0, 300)
    stated = rng.random() < 0.5
    hits = [hit("old", ahead, old_day, stated=stated), hit("new", behind, old_day + rng.randrange(1, 300))]
    moved = newer_first(hits)
    assert names(moved) == ["new", "old"]
    assert [h["score"] for h in moved] == [behind, ahead], "the scores are left as they were"


@pytest.mark.parametrize("seed", SEEDS)
def test_a_newer_hit_clearly_behind_stays_behind(seed: int) -> None:
    rng = random.Random(seed)
    ahead = rng.uniform(0.05, 30.0)
    behind = ahead * (1 - rng.uniform(NEAR_TIE * 1.001, 0.9))
    old_day = rng.randrange(0, 300)
    hits = [hit("old", ahead, old_day), hit("new", behind, old_day + rng.randrange(1, 300))]
    assert names(newer_first(hits)) == ["old", "new"]


@pytest.mark.parametrize("seed", SEEDS)
def test_an_older_or_same_day_hit_never_moves_up(seed: int) -> None:
    rng = random.Random(seed)
    ahead = rng.uniform(0.05, 30.0)
    behind = ahead * (1 - rng.uniform(0.0, 0.9))
    new_day = rng.randrange(0, 300)
    older = new_day - rng.randrange(0, 300)  # the same moment included
    hits = [hit("new", ahead, new_day), hit("old", behind, older)]
    assert names(newer_first(hits)) == ["new", "old"]


def test_a_hit_moves_above_the_first_older_near_tie_only() -> None:
    hits = [
        hit("a", 1.00, 10),  # older than d, but d is clearly behind it
        hit("b", 0.90, 50),
        hit("c", 0.89, 5),
        hit("d", 0.88, 40),  # within 5 % of c (older) and of b (newer): above c only
        hit("e", 0.20, 99),
    ]
    assert names(newer_first(hits)) == ["a", "b", "d", "c", "e"]


def test_a_chain_of_near_ties_comes_back_newest_first() -> None:
    hits = [hit("v1", 0.80, 1), hit("v2", 0.79, 2), hit("v3", 0.78, 3), hit("v4", 0.77, 4)]
    assert names(newer_first(hits)) == ["v4", "v3", "v2", "v1"]


def test_a_newer_hit_ranked_below_a_lower_score_goes_first() -> None:
    # another rule (a compared event's best hit) placed an older note above a better one
    assert names(newer_first([hit("old", 0.5, 1), hit("new", 0.9, 2)])) == ["new", "old"]


def test_notes_without_a_time_and_negative_scores_stay_put() -> None:
    assert names(newer_first([hit("x", 0.9, None), hit("y", 0.89, 5)])) == ["x", "y"]
    assert names(newer_first([hit("x", 0.9, 5), hit("y", 0.89, None)])) == ["x", "y"]
    # a negative cosine: "within 5 %" is measured on the size of the score ahead
    assert names(newer_first([hit("x", -0.10, 1), hit("y", -0.104, 2)])) == ["y", "x"]
    assert names(newer_first([hit("x", -0.10, 1), hit("y", -0.2, 2)])) == ["x", "y"]
    assert newer_first([]) == []


def test_only_a_hybrid_search_that_asks_for_time_gets_the_rule() -> None:
    assert not asks_for_time(SearchQuery(query="q"))
    assert not asks_for_time(SearchQuery(query="q", as_of=1_700_000_000_000))
    assert asks_for_time(SearchQuery(query="q", recency=0.1))
    assert asks_for_time(SearchQuery(query="q", read_dates=True))
    for mode in (SearchMode.VECTOR, SearchMode.FULLTEXT):
        assert not asks_for_time(SearchQuery(query="q", mode=mode, recency=0.1, read_dates=True))
