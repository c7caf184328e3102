"""What forgetting costs (``POST /v1/forget``), at ``scale`` notes of one user, in one run.

On a private Neo4j with the API in its own process, ``scale`` notes are loaded through the
API (clustered vectors and words, :mod:`bench.corpus`; each note journaled as it is in use),
two sets of ``share`` of them tagged through the driver (``forget-a``, ``forget-b``). Then:

* dry runs over the whole user, server-side time (``Server-Timing``), p50 of ``runs`` each:
  by tag (a tenth of the notes), by a word of the text (``query``: every note's title and
  content, and every journal state, read), by ids (100), and by time (``before``: every note);
* a run forgetting the ``forget-a`` notes (wall clock, through the API: planned under the
  gate, the journal's entries scrubbed, batches of 1,000);
* beside it, the raw alternative in the same run: the ``forget-b`` notes deleted by the
  driver, ``DETACH DELETE`` in transactions of 1,000 rows, journal and traces left as they are.

``python -m bench.forget [scale]`` (100,000 by default, about 5 minutes) saves
``bench/results/forget.json``.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import httpx

from bench.common import save, summary_ms
from bench.corpus import Corpus, api_load, private_api, server_seconds, settle

SHARE = 0.1
RAW_DELETE = """
MATCH (n:Knowledge) WHERE n.userId = $userId AND $tag IN n.tags
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS
"""


def tag(driver: Any, user: str, ids: list[str], name: str) -> None:
    """Give the notes ``ids`` the tag ``name``, through the driver."""
    for start in range(0, len(ids), 5_000):
        driver.execute_query(
            "UNWIND $ids AS id MATCH (n:Knowledge {userId: $userId, id: id}) SET n.tags = n.tags + $tag",
            ids=ids[start : start + 5_000], userId=user, tag=name,
        )  # fmt: skip


def dry_runs(client: httpx.Client, matches: dict[str, dict[str, Any]], runs: int) -> dict[str, Any]:
    """p50/p95 of the server's time for each match's dry run, the sides taking turns."""
    timings: dict[str, list[float]] = {k: [] for k in matches}
    counts: dict[str, Any] = {}
    for n in range(runs + 2):
        for name, match in matches.items():
            response = client.post("/v1/forget", json={"match": match})
            response.raise_for_status()
            if n >= 2:  # two rounds of warm-up
                timings[name].append(server_seconds(response))
            counts[name] = response.json()["counts"]
    return {name: summary_ms(values) | {"counts": counts[name]} for name, values in timings.items()}


def main(scale: int = 100_000, runs: int = 10) -> dict[str, Any]:
    corpus = Corpus(seed=scale)
    user = f"bench-{scale}-forget"
    with private_api("ctxnet-bench-forget-", user, timeout=600) as (local, client, driver, _):
        _, ids, rate = api_load(client, corpus, "n", scale)
        share = int(scale * SHARE)
        tag(driver, user, ids[:share], "forget-a")
        tag(driver, user, ids[share : 2 * share], "forget-b")
        settled = settle(local)
        word = corpus.vocab[3][7]
        matches: dict[str, dict[str, Any]] = {
            "tag": {"tags": ["forget-a"]},
            "query": {"query": word},
            "ids": {"ids": ids[-100:]},
            "before_all": {"before": "2999-01-01T00:00:00Z"},
        }
        figures: dict[str, Any] = {
            "notes": scale,
            "load_notes_per_s": round(rate, 1),
            "settle_s": settled,
            "dry_run": dry_runs(client, matches, runs),
        }
        run = {"match": {"tags": ["forget-a"]}, "dryRun": False, "confirm": True}
        t0 = time.perf_counter()
        response = client.post("/v1/forget", json=run)
        spent = time.perf_counter() - t0
        response.raise_for_status()
        answer = response.json()
        t0 = time.perf_counter()
        with driver.session() as session:  # CALL IN TRANSACTIONS runs in an auto-commit one
            session.run(RAW_DELETE, userId=user, tag="forget-b").consume()
        raw = time.perf_counter() - t0
        figures["run"] = {
            "forgotten": answer["counts"],
            "batches": answer["batches"],
            "api_s": round(spent, 2),
            "raw_delete_s": round(raw, 2),
            "ratio": round(spent / raw, 2),
        }
    path = save("forget", figures)
    print(json.dumps(figures, indent=2), f"\n-> {path}")
    return figures


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
