"""What valid time costs search, at 100k notes of one user, all measured in one run.

On a private Neo4j with the API in its own process, ``scale`` notes are loaded through the
API (clustered vectors, :mod:`bench.corpus`) and a tenth of them are given a validity that
ended (``validUntil`` a year ago, set through the driver), so the default search has
something to leave out. Then, query by query with the sides taking turns (50 rounds of
warm-up first), hybrid top-10 with one hop of expansion:

* through the API (server-side time, ``Server-Timing``): the default (true now), ``asOf``
  a moment after the load (what was true then: the start, end and supersession tests), and
  ``includeEnded`` (no validity test);
* raw through the driver, the very query the API runs (``queries/knowledge/search_1``) with
  the same three settings, and the query as it was before valid time (``search_1`` at
  :data:`COMMIT_BEFORE`, from git), so "true now" is timed against today's query of before.

``python -m bench.valid_time [scale] [commit]`` (100,000 by default, about 10 minutes) saves
``bench/results/valid_time.json``; with a commit, the default side is also timed against
``search_1`` as it was then (a change's cost, in the same run).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from typing import Any

import httpx

from bench.common import save, summary_ms
from bench.corpus import (
    SEARCH_BEFORE_FUSION,
    Corpus,
    api_load,
    private_api,
    rotated,
    search_1_params,
    server_seconds,
    settle,
)
from graph.core.cypher import cypher_text
from graph.knowledge.search import keyword_params

#: The last commit before notes and edges had valid time.
COMMIT_BEFORE = "d92b0a4"
ENDED_SHARE = 0.1


def query_before(commit: str = COMMIT_BEFORE) -> str:
    """``queries/knowledge/search_1`` as it was at ``commit`` (:data:`COMMIT_BEFORE`: before valid time)."""
    return subprocess.run(
        ["git", "show", f"{commit}:cypher/queries/knowledge/search_1.cypher"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


def end_some(driver: Any, user: str, ids: list[str], share: float) -> int:
    """Give ``share`` of the notes a validity that ended a year ago; how many."""
    ended = random.Random(7).sample(ids, int(len(ids) * share))
    year_ago = int((time.time() - 365 * 86_400) * 1000)
    for start in range(0, len(ended), 5_000):
        driver.execute_query(
            "UNWIND $ids AS id MATCH (n:Knowledge {userId: $userId, id: id}) SET n.validUntil = $end",
            ids=ended[start : start + 5_000], userId=user, end=year_ago,
        )  # fmt: skip
    return len(ended)


def measure(
    client: httpx.Client,
    driver: Any,
    corpus: Corpus,
    user: str,
    notes: int,
    as_of: str,
    runs: int = 300,
    against: str | None = None,
) -> dict[str, Any]:  # noqa: E501
    """The sides, query by query in rotating order; p50/p95 of each and the ratios. ``against``:
    also today's default side with ``search_1`` as it was at that commit (``raw_against``)."""
    now_query = cypher_text("queries/knowledge/search_1")
    before = query_before()
    then = query_before(against) if against else None
    fixed = search_1_params(user)
    as_of_ms = int(time.time() * 1000)
    queries, topics = corpus.notes(runs)
    warm, warm_topics = corpus.notes(50)
    rounds = [(v, corpus.text(t, 3), False) for v, t in zip(warm, warm_topics, strict=True)]
    rounds += [(v, corpus.text(t, 3), True) for v, t in zip(queries, topics, strict=True)]
    api_bodies: dict[str, dict[str, Any]] = {
        "api_true_now": {},
        "api_as_of": {"asOf": as_of},
        "api_include_ended": {"includeEnded": True},
    }
    raw_params: dict[str, dict[str, Any]] = {
        "raw_true_now": {"validAt": int(time.time() * 1000), "asOf": None, "filtered": False},
        "raw_as_of": {"validAt": as_of_ms, "asOf": as_of_ms, "filtered": True,
                      "statuses": ["active", "superseded"]},
        "raw_include_ended": {"validAt": None, "asOf": None, "filtered": False},
    }  # fmt: skip
    sides = [*api_bodies, *raw_params, "raw_before", *(["raw_against"] if then else [])]
    timings: dict[str, list[float]] = {k: [] for k in sides}
    for n, (array, text, counted) in enumerate(rounds):
        vector = array.tolist()
        for side in rotated(list(timings), n):
            if side in api_bodies:
                body = {"query": text, "embedding": vector, "topK": 10, "mode": "hybrid", "maxDepth": 1}
                response = client.post("/v1/search", json=body | api_bodies[side])
                response.raise_for_status()
                spent = server_seconds(response)
            else:
                query = {"raw_before": before, "raw_against": then}.get(side) or now_query
                same = raw_params["raw_true_now"] if side == "raw_against" else raw_params.get(side, {})
                params = fixed | same | keyword_params(text, user, notes)
                if query is not now_query:
                    params |= SEARCH_BEFORE_FUSION
                t0 = time.perf_counter()
                driver.execute_query(query, vector=vector, **params)
                spent = time.perf_counter() - t0
            if counted:
                timings[side].append(spent)
    figures: dict[str, Any] = {side: summary_ms(values) for side, values in timings.items()}

    def ratio(a: str, b: str) -> float:
        return round(figures[a]["p50_ms"] / figures[b]["p50_ms"], 3)

    figures["ratios_p50"] = {
        "raw_true_now_over_before": ratio("raw_true_now", "raw_before"),
        "raw_as_of_over_true_now": ratio("raw_as_of", "raw_true_now"),
        "api_true_now_over_include_ended": ratio("api_true_now", "api_include_ended"),
        "api_as_of_over_true_now": ratio("api_as_of", "api_true_now"),
        **({"raw_true_now_over_against": ratio("raw_true_now", "raw_against")} if then else {}),
    }
    return figures


def main(scale: int = 100_000, against: str | None = None) -> dict[str, Any]:
    corpus = Corpus(seed=scale)
    user = f"bench-{scale}-valid"
    with private_api("ctxnet-bench-valid-time-", user, timeout=120) as (local, client, driver, _):
        _, ids, rate = api_load(client, corpus, "n", scale)
        ended = end_some(driver, user, ids, ENDED_SHARE)
        as_of = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 1))
        time.sleep(1.5)
        figures = {
            "notes": scale,
            "ended": ended,
            "load_notes_per_s": round(rate, 1),
            "settle_s": settle(local),
            "search": measure(client, driver, corpus, user, scale, as_of, against=against),
        }
    path = save("valid_time", figures)
    print(json.dumps(figures, indent=2), f"\n-> {path}")
    return figures


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000, sys.argv[2] if len(sys.argv) > 2 else None)
