"""What forgetting costs (``POST /v1/forget``), at ``scale`` notes of one user, in one run.

On a private Neo4j with the API in its own process, ``scale`` notes are loaded through the
API (clustered vectors and words, :mod:`bench.corpus`; each note journaled as it is in use),
three sets of ``share`` of them tagged through the driver (``forget-a``, ``-b``, ``-c``).
Then:

* dry runs over the whole user, server-side time (``Server-Timing``), p50 of ``runs`` each:
  by tag (a tenth of the notes), by a word of the text (``query``: every text the user
  holds, and every journal state, read), by ids (100), and by time (``before``: every note);
* two sets of ``share`` notes more that supersede one another in chains of :data:`CHAIN`
  (each later note ``supersedes`` the one before), loaded through the API's batch create
  (tagged ``forget-chain-1``/``-2`` as they are made) and ``/v1/connections/batch``: the
  shape whose forget failed with a 422 until 2d30492 (a superseded note read after its
  delete);
* untimed, a forget of 10 chains and one of 100 unrelated notes (a process's first run of
  a statement plans it); then four runs, wall clock through the API, the two shapes taking
  turns: a set of chains, ``forget-a``, the other set of chains, ``forget-c`` (each planned
  under the gate, the journal's entries scrubbed, batches of 1,000);
* beside them, the raw alternative in the same run: the ``forget-b`` notes deleted by the
  driver, ``DETACH DELETE`` in transactions of 1,000 rows, journal and traces left as they are.

``python -m bench.forget [scale]`` (100,000 by default, about 15 minutes) saves
``bench/results/forget.json``.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Any

import httpx

from bench.common import save, summary_ms
from bench.corpus import BATCH, Corpus, api_load, post_batch, private_api, server_seconds, settle

SHARE = 0.1
#: Notes in each chain of the chained run: each supersedes the one before it.
CHAIN = 10
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


def load_chains(client: httpx.Client, corpus: Corpus, prefix: str, count: int, name: str) -> dict[str, Any]:
    """Create ``count`` notes tagged ``name`` through the API, in chains of :data:`CHAIN`
    where each later note supersedes the one before; what it took."""
    vectors, topics = corpus.notes(count)
    spent = 0.0
    for start in range(0, count, BATCH):
        items = corpus.items(prefix, vectors[start : start + BATCH], topics[start : start + BATCH], start)
        spent += post_batch(client, [item | {"tags": [name]} for item in items])
    edges = [
        {"sourceId": f"{prefix}{i}", "type": "supersedes", "targetId": f"{prefix}{i - 1}"}
        for i in range(count)
        if i % CHAIN
    ]
    t0 = time.perf_counter()
    for start in range(0, len(edges), BATCH):
        client.post("/v1/connections/batch", json={"items": edges[start : start + BATCH]}).raise_for_status()
    return {"notes": count, "edges": len(edges), "notes_s": round(spent, 1),
            "edges_s": round(time.perf_counter() - t0, 1)}  # fmt: skip


def timed_forget(client: httpx.Client, tag: str) -> tuple[dict[str, Any], float]:
    """Forget the notes tagged ``tag`` through the API: its answer and the wall clock."""
    run = {"match": {"tags": [tag]}, "dryRun": False, "confirm": True}
    t0 = time.perf_counter()
    response = client.post("/v1/forget", json=run)
    spent = time.perf_counter() - t0
    response.raise_for_status()
    return response.json(), spent


def _run_figures(runs: list[tuple[dict[str, Any], float]]) -> dict[str, Any]:
    """What the timed runs of one shape forgot (the first's counts) and took, each."""
    answer = runs[0][0]
    return {
        "forgotten": answer["counts"],
        "batches": answer["batches"],
        "api_s": [round(s, 2) for _, s in runs],
    }


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
        tag(driver, user, ids[2 * share : 3 * share], "forget-c")
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
        # The chains after the dry runs (which stay over ``scale`` notes): two sets, and a few
        # of each shape forgotten untimed first (a process's first run of a statement plans it).
        figures["chains"] = [
            load_chains(client, corpus, f"chain{k}-", share, f"forget-chain-{k}") for k in (1, 2)
        ]
        load_chains(client, corpus, "warm-", 10 * CHAIN, "forget-warm-chain")
        tag(driver, user, ids[3 * share : 3 * share + 100], "forget-warm")
        figures["settle_after_chains_s"] = settle(local)
        for warm in ("forget-warm-chain", "forget-warm"):
            timed_forget(client, warm)
        timed: dict[str, tuple[dict[str, Any], float]] = {}
        for name in ("forget-chain-1", "forget-a", "forget-chain-2", "forget-c"):  # the shapes take turns
            timed[name] = timed_forget(client, name)
        t0 = time.perf_counter()
        with driver.session() as session:  # CALL IN TRANSACTIONS runs in an auto-commit one
            session.run(RAW_DELETE, userId=user, tag="forget-b").consume()
        raw = time.perf_counter() - t0
        unrelated = [timed[k] for k in ("forget-a", "forget-c")]
        chained = [timed[k] for k in ("forget-chain-1", "forget-chain-2")]
        figures["run"] = _run_figures(unrelated) | {
            "raw_delete_s": round(raw, 2),
            "ratio": round(statistics.mean(s for _, s in unrelated) / raw, 2),
        }
        figures["chained_run"] = _run_figures(chained) | {
            "ratio_to_unrelated": round(
                statistics.mean(s for _, s in chained) / statistics.mean(s for _, s in unrelated), 2
            ),
        }
    path = save("forget", figures)
    print(json.dumps(figures, indent=2), f"\n-> {path}")
    return figures


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
