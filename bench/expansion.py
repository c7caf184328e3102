"""Graph-aware expansion, breadth first and bounded, beside the query it replaced, in one run.

Until 2026-12-03 a search expanded its hits with a quantified path pattern
(``(h)((a)-[r]-(b)){1,d}(m)``): every path of up to ``d`` hops was enumerated, then each note
kept at its nearest depth. In a dense corner of a graph the paths multiply (a clique of n
notes holds ~n³ paths of three hops from each of them), and every note within reach came
back. Today's query walks one hop at a time, each note once, and keeps at most
``maxExpanded`` (50 by default) notes, the nearest first.

On a private Neo4j with the API in its own process, one user holds a sparse network (the
knowledge bench's shape: clustered notes with about two edges each) and a clique of
``CLIQUE`` notes beside it. Through the driver, the same call of ``queries/knowledge/
search_{d}`` runs as today's file and as the file at ``--before`` (default: the last commit
with the path pattern), alternating, for depths 1-3:

* **search**: hybrid top-10 over the sparse network (what an agent asks), server-side;
* **dense neighbourhood**: the neighbourhood of one note of the clique (``mode: seeds``).
  The old query gets a transaction timeout (``TIMEOUT`` s); a run past it counts as that.

``python -m bench.expansion [NOTES] [CLIQUE] [--before REV]``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import numpy as np
from neo4j import Driver, Query
from neo4j.exceptions import ClientError

from bench.common import machine, save, summary_ms
from bench.corpus import Corpus, api_edges, api_load, private_api, search_1_params
from graph.core.cypher import cypher_text
from graph.knowledge.search import keyword_params

#: The last commit whose search queries enumerated paths.
BEFORE = "11bd478"
#: Seconds an old dense query may run before it is stopped (and counted as this long).
TIMEOUT = 120.0
USER = "bench-expansion"


def _old(rev: str, depth: int) -> str:
    path = f"cypher/queries/knowledge/search_{depth}.cypher"
    return subprocess.run(["git", "show", f"{rev}:{path}"], check=True, capture_output=True, text=True).stdout


def _timed(driver: Driver, text: str, params: dict[str, Any]) -> tuple[float, dict[str, Any] | None]:
    t0 = time.perf_counter()
    try:
        records, _, _ = driver.execute_query(Query(text, timeout=TIMEOUT), params)  # type: ignore[arg-type]
    except ClientError as exc:
        if "Timeout" not in (exc.code or "") and "terminated" not in str(exc).lower():
            raise
        return TIMEOUT, None
    return time.perf_counter() - t0, records[0].data()


def _sizes(row: dict[str, Any] | None) -> dict[str, int] | None:
    return None if row is None else {"reached": len(row["reached"]), "edges": len(row["edges"])}


def main(notes: int = 10_000, clique: int = 80, before: str = BEFORE) -> dict[str, Any]:
    corpus = Corpus(seed=11)
    figures: dict[str, Any] = {"machine": machine(), "notes": notes, "clique": clique, "before": before}
    with private_api("ctxnet-expansion-", USER, timeout=600) as (_, client, driver, _api):
        _, ids, _ = api_load(client, corpus, "n", notes)
        api_edges(client, ids, np.random.default_rng(3))
        members = [f"k{i}" for i in range(clique)]
        items = [
            {"id": m, "title": m, "content": f"Clique note {m}.", "type": "fact", "dedupe": False}
            for m in members
        ]
        for start in range(0, len(items), 500):
            client.post("/v1/knowledge/batch", json={"items": items[start : start + 500]}).raise_for_status()
        mesh = [
            {"sourceId": a, "type": "relatedTo", "targetId": b}
            for i, a in enumerate(members)
            for b in members[i + 1 :]
        ]
        for start in range(0, len(mesh), 1000):
            client.post(
                "/v1/connections/batch", json={"items": mesh[start : start + 1000]}
            ).raise_for_status()
        figures["clique_edges"] = len(mesh)
        fixed = search_1_params(USER)
        vectors, topics = corpus.notes(40)
        for depth in (1, 2, 3):
            today, old = cypher_text(f"queries/knowledge/search_{depth}"), _old(before, depth)
            sides: dict[str, list[float]] = {"today": [], "before": []}
            for k, (vector, topic) in enumerate(zip(vectors, topics, strict=True)):
                params = (
                    fixed
                    | keyword_params(corpus.text(topic, 3), USER, notes + clique)
                    | {"vector": vector.tolist()}
                )
                order = ("today", "before") if k % 2 else ("before", "today")
                for side in order:
                    spent, _ = _timed(driver, today if side == "today" else old, params)
                    sides[side].append(spent)
            search = {side: summary_ms(times[5:]) for side, times in sides.items()}
            seeds = fixed | keyword_params(None, USER, notes + clique) | {
                "mode": "seeds", "seedIds": ["k0"], "topK": 1, "pool": 1, "candidates": None, "vector": None,
                "maxReached": 500,
            }  # fmt: skip
            dense = {}
            for side, text in (("today", today), ("before", old)):
                runs = [_timed(driver, text, seeds) for _ in range(3 if side == "today" or depth < 3 else 1)]
                dense[side] = {"ms": round(min(s for s, _ in runs) * 1000, 1), "answer": _sizes(runs[-1][1])}
            figures[f"depth_{depth}"] = {"search_top10_sparse": search, "dense_neighbourhood": dense}
            print(depth, figures[f"depth_{depth}"], flush=True)
    save("expansion", figures)
    return figures


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rev = sys.argv[sys.argv.index("--before") + 1] if "--before" in sys.argv else BEFORE
    if rev in args:
        args.remove(rev)
    main(*(int(a) for a in args[:2]), before=rev)  # type: ignore[arg-type]
