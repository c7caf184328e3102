"""Knowledge-network figures at 10k and 100k notes, all measured in one run.

On a private Neo4j (project default memory) with the API in its own process:

* batch create throughput through ``POST /v1/knowledge/batch`` (precomputed 384-dim
  vectors, 1,000 per request) while loading, and side by side with a raw
  ``UNWIND ... MERGE`` through the driver (alternated batch by batch, so both meet the
  same index size and background merging), plus the same write without vectors;
* search (top-10, hybrid, 1-hop expansion): server-side p50/p95 from the API's
  ``Server-Timing`` header, against the raw Cypher vector query alone and against the
  API's own search query run raw through the driver;
* recall@10 of the API's vector search against exact brute-force cosine over the
  user's own notes, for users holding 0.1 %, 1 %, 10 % and 100 % of the notes.

Vectors are clustered (200 topics), as real notes are (:mod:`bench.corpus`, which the other
benchmarks load their notes with too)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from neo4j import GraphDatabase

from bench.common import machine, private_neo4j, save, summary_ms
from bench.corpus import (
    BATCH,
    RAW_MERGE,
    RAW_MERGE_WITHOUT_VECTOR,
    SEARCH_BEFORE_FUSION,
    Corpus,
    api_edges,
    api_load,
    forget,
    post_batch,
    rotated,
    search_1_params,
    server_seconds,
    settle,
    user_key,
    vector_segments,
)
from ctxnet.neo4j_server import LocalNeo4j
from graph.core.db import QuietList
from graph.core.settings import Settings
from graph.knowledge.search import keyword_params
from tests.support.servers import ApiProcess

RAW_VECTOR = """
CALL db.index.vector.queryNodes('knowledge_embedding', 10, $vector) YIELD node, score
RETURN node.id AS id, score
"""
#: The fulltext index as it was before the retrieval issue (Neo4j's default analyzer), beside
#: the english one on the same notes, so the search of before is timed in the same run (the
#: properties in another order: Neo4j keeps one index per label and property list).
BEFORE_INDEX = """
CREATE FULLTEXT INDEX knowledge_fulltext_before IF NOT EXISTS
FOR (n:Knowledge) ON EACH [n.tenantKey, n.title, n.content]
"""


#: The last commit before the retrieval issue changed the search query.
COMMIT_BEFORE = "c65b059"


def query_before() -> str:
    """``queries/knowledge/search_1`` as it was at :data:`COMMIT_BEFORE` (from git: the
    benchmark runs in a checkout), one Lucene query for the keyword half."""
    return subprocess.run(
        ["git", "show", f"{COMMIT_BEFORE}:cypher/queries/knowledge/search_1.cypher"],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def lucene_before(text: str, user: str) -> str | None:
    """The Lucene query as search built it before the retrieval issue (stop words kept)."""
    from graph.core.tenancy import tenant_key

    words = [w.lower() for w in re.findall(r"\w+", text)][:32]
    if not words:
        return None
    terms = " ".join(words)
    return f"+tenantKey:{tenant_key(user)} +(title:({terms}) content:({terms}))"


def write_comparison(
    settings: Settings, api: ApiProcess, corpus: Corpus, tag: str, batches: int = 20
) -> dict[str, Any]:
    """API batch create against raw ``UNWIND ... MERGE``, alternated batch by batch.

    Both write into the same database at the same moment, so both pay for the same index
    size and the same background segment merging; the order rotates every round. The
    raw side passes its rows as :class:`QuietList` (the driver's debug ``repr`` of the
    parameters would otherwise cost it 140 ms per batch), so it is the best the driver
    does. A third writer stores the same notes without vectors: what the graph write
    costs without the HNSW index.
    """
    from graph.core.tenancy import tenant_key

    users = {name: f"bench-{tag}-cmp-{name}" for name in ("api", "raw", "bare")}
    key = asyncio.run(user_key(settings, users["api"]))
    vectors, topics = corpus.notes(batches * BATCH)
    spent = dict.fromkeys(users, 0.0)
    auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
    with (
        httpx.Client(
            base_url=api.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=300
        ) as client,
        GraphDatabase.driver(settings.resolved_neo4j_uri, auth=auth) as driver,
    ):
        for b in range(batches):
            part = slice(b * BATCH, (b + 1) * BATCH)
            for name in rotated(["api", "raw", "bare"], b):
                rows = corpus.items(f"{name}-", vectors[part], topics[part], b * BATCH)
                if name == "api":
                    spent[name] += post_batch(client, rows)
                    continue
                user = users[name]
                query = RAW_MERGE if name == "raw" else RAW_MERGE_WITHOUT_VECTOR
                t0 = time.perf_counter()
                driver.execute_query(query, rows=QuietList(rows), userId=user, tenantKey=tenant_key(user))
                spent[name] += time.perf_counter() - t0
    for user in users.values():
        asyncio.run(forget(settings, user))
    rate = {name: batches * BATCH / seconds for name, seconds in spent.items()}
    return {
        "api_notes_per_s": round(rate["api"]),
        "raw_merge_notes_per_s": round(rate["raw"]),
        "raw_merge_without_vectors_notes_per_s": round(rate["bare"]),
        "api_over_raw": round(rate["api"] / rate["raw"], 2),
    }


def search_latency(
    client: httpx.Client, settings: Settings, corpus: Corpus, user: str, notes: int, runs: int = 300
) -> dict[str, Any]:
    """Server-side hybrid top-10 with 1-hop expansion, against raw Cypher.

    Two raw baselines through the driver: the bare vector query (top-10), and the very
    query the API runs for this search (``queries/knowledge/search_1`` with the plan's 100
    candidates), so the second ratio is the API's own cost. A third is the query as it was
    before the retrieval issue (:func:`query_before`: one Lucene query, Neo4j's default
    analyzer, stop words in the query), so the price of that issue's changes (the english
    analyzer, keyword scores from the user's own notes) is measured in the same run. The sides
    take turns query by query (the order rotating), so none of them meets a warmer or colder
    Neo4j than the others; 50 rounds of warm-up come first.
    """
    from graph.core.cypher import cypher_text

    queries, topics = corpus.notes(runs)
    texts = [corpus.text(t, 3) for t in topics]
    warm_up, warm_topics = corpus.notes(50)
    search_query = cypher_text("queries/knowledge/search_1")
    before_query = query_before().replace("'knowledge_fulltext'", "'knowledge_fulltext_before'")
    fixed = search_1_params(user)
    timings: dict[str, list[float]] = {"api": [], "client": [], "raw": [], "same": [], "before": []}
    auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(
        settings.resolved_neo4j_uri, auth=auth, notifications_disabled_classifications=["UNRECOGNIZED"]
    ) as driver:

        def api(vector: list[float], text: str) -> tuple[float, float]:
            body = {"query": text, "embedding": vector, "topK": 10, "mode": "hybrid", "maxDepth": 1}
            t0 = time.perf_counter()
            response = client.post("/v1/search", json=body)
            spent = time.perf_counter() - t0
            response.raise_for_status()
            return server_seconds(response), spent

        def raw(vector: list[float]) -> float:
            t0 = time.perf_counter()
            driver.execute_query(RAW_VECTOR, vector=vector)
            return time.perf_counter() - t0

        def same(vector: list[float], text: str) -> float:
            t0 = time.perf_counter()
            driver.execute_query(search_query, vector=vector, **keyword_params(text, user, notes), **fixed)
            return time.perf_counter() - t0

        def before(vector: list[float], text: str) -> float:
            t0 = time.perf_counter()
            driver.execute_query(
                before_query, vector=vector, lucene=lucene_before(text, user), **fixed | SEARCH_BEFORE_FUSION
            )
            return time.perf_counter() - t0

        driver.execute_query(BEFORE_INDEX)
        driver.execute_query("CALL db.awaitIndexes(600)")

        rounds = [(v, corpus.text(t, 3), False) for v, t in zip(warm_up, warm_topics, strict=True)]
        rounds += [(v, text, True) for v, text in zip(queries, texts, strict=True)]
        for n, (array, text, counted) in enumerate(rounds):
            vector = array.tolist()
            for side in rotated(["api", "raw", "same", "before"], n):
                if side == "api":
                    server, round_trip = api(vector, text)
                    if counted:
                        timings["api"].append(server)
                        timings["client"].append(round_trip)
                else:
                    if side == "raw":
                        spent = raw(vector)
                    else:
                        spent = (same if side == "same" else before)(vector, text)
                    if counted:
                        timings[side].append(spent)
    text_only = []
    for text in texts[:100]:
        response = client.post(
            "/v1/search", json={"query": text, "topK": 10, "mode": "hybrid", "maxDepth": 1}
        )
        text_only.append(server_seconds(response))
    api_summary = summary_ms(timings["api"])
    raw_summary = summary_ms(timings["raw"])
    same_summary = summary_ms(timings["same"])
    before_summary = summary_ms(timings["before"])
    return {
        "api_server_side": api_summary,
        "api_client_round_trip": summary_ms(timings["client"]),
        "api_with_query_embedding": summary_ms(text_only[10:]),
        "raw_vector_query": raw_summary,
        "raw_same_query": same_summary,
        "raw_same_query_before_the_retrieval_issue": before_summary,
        "same_query_now_over_before_p50": round(same_summary["p50_ms"] / before_summary["p50_ms"], 2),
        "api_over_raw_p50": round(api_summary["p50_ms"] / raw_summary["p50_ms"], 2),
        "api_over_same_query_p50": round(api_summary["p50_ms"] / same_summary["p50_ms"], 2),
    }


def recall_at_10(
    client: httpx.Client, corpus: Corpus, vectors: np.ndarray, ids: list[str], runs: int = 30
) -> float:
    """Mean recall@10 of the API's vector search against brute force over this user's notes."""
    queries, _ = corpus.notes(runs)
    total = 0.0
    for query in queries:
        truth = {ids[i] for i in np.argsort(-(vectors @ query))[:10]}
        body = {
            "query": "q",
            "embedding": query.tolist(),
            "topK": 10,
            "mode": "vector",
            "expandConnections": False,
        }
        response = client.post("/v1/search", json=body)
        response.raise_for_status()
        found = {hit["node"]["id"] for hit in response.json()["hits"]}
        total += len(truth & found) / 10
    return round(total / runs, 4)


def bench_scale(
    scale: int, settings: Settings, local: LocalNeo4j, api: ApiProcess, corpus: Corpus, tag: str
) -> dict[str, Any]:
    """Load one dataset of ``scale`` notes (one user holding them all) and measure."""
    figures: dict[str, Any] = {}
    whale = f"bench-{tag}-all"
    key = asyncio.run(user_key(settings, whale))
    with httpx.Client(
        base_url=api.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120
    ) as client:
        vectors, ids, rate = api_load(client, corpus, "n", scale)
        figures["api_batch_create_notes_per_s"] = round(rate)
        figures["api_edges_per_s"] = round(api_edges(client, ids, corpus.rng))
        # Searches are measured once the loads' background index merging has finished.
        figures["settle_s"] = settle(local)
        figures["vector_segments"] = vector_segments(local)
        figures["search"] = search_latency(client, settings, corpus, whale, scale)
        # Neo4j merges an index's segments when it closes it: after a restart the same notes
        # sit in fewer HNSW graphs (one, at the default merge factor), the best case for search.
        local.stop()
        local.start()
        api.wait_ready()
        figures["vector_segments_after_restart"] = vector_segments(local)
        figures["search_after_restart"] = search_latency(client, settings, corpus, whale, scale)
        recalls = {"100%": recall_at_10(client, corpus, vectors, ids)}
    for share in (0.1, 0.01, 0.001):
        user = f"bench-{tag}-{share}"
        key = asyncio.run(user_key(settings, user))
        with httpx.Client(
            base_url=api.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120
        ) as client:
            count = max(10, int(scale * share))
            small_vectors, small_ids, _ = api_load(client, corpus, f"s{share}-", count)
            recalls[f"{share:.1%}"] = recall_at_10(client, corpus, small_vectors, small_ids)
    figures["recall_at_10"] = recalls
    figures["write_side_by_side"] = write_comparison(settings, api, corpus, tag)
    return figures


def bench_dedupe(settings: Settings, api: ApiProcess, corpus: Corpus) -> float:
    """Batch create with dedupe on (every note checked for a twin), notes/s."""
    key = asyncio.run(user_key(settings, "bench-dedupe"))
    with httpx.Client(
        base_url=api.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=300
    ) as client:
        vectors, topics = corpus.notes(5_000)
        spent = 0.0
        for start in range(0, 5_000, BATCH):
            items = corpus.items("d", vectors[start : start + BATCH], topics[start : start + BATCH], start)
            for item in items:
                item["dedupe"] = True
            spent += post_batch(client, items)
    return round(5_000 / spent)


def search_price(scale: int = 100_000) -> dict[str, Any]:
    """Only the search side by side (today's query against the one of before the retrieval
    issue, and the API) at ``scale`` notes of one user: ``python -m bench.knowledge --search
    100000``. Saved as ``bench/results/knowledge_search.json``."""
    with private_neo4j("ctxnet-bench-knowledge-") as (settings, env, local):
        local.start()
        api = ApiProcess(settings.data_dir / "api.log", env).start()
        try:
            api.wait_ready()
            corpus = Corpus(seed=scale)
            whale = f"bench-{scale}-all"
            key = asyncio.run(user_key(settings, whale))
            with httpx.Client(
                base_url=api.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120
            ) as client:
                api_load(client, corpus, "n", scale)
                figures = {
                    "settle_s": settle(local),
                    "search": search_latency(client, settings, corpus, whale, scale),
                }
        finally:
            api.stop()
    path = save("knowledge_search", {str(scale): figures})
    print(f"{scale}: {json.dumps(figures['search'], indent=2)}\n-> {path}")
    return figures


def main(scales: tuple[int, ...] = (10_000, 100_000)) -> dict[str, Any]:
    """Run every scale in one private Neo4j and save the figures."""
    results: dict[str, Any] = {}
    for scale in scales:
        with private_neo4j("ctxnet-bench-knowledge-") as (settings, env, local):
            local.start()
            api = ApiProcess(settings.data_dir / "api.log", env).start()
            try:
                api.wait_ready()
                corpus = Corpus(seed=scale)
                results[f"{scale}"] = bench_scale(scale, settings, local, api, corpus, str(scale))
                if scale == scales[-1]:
                    results[f"{scale}"]["api_batch_create_dedupe_on_notes_per_s"] = bench_dedupe(
                        settings, api, corpus
                    )
                print(f"{scale}: {results[str(scale)]}", flush=True)
            finally:
                api.stop()
    path = save("knowledge", results)
    print(f"knowledge figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return results


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--search"]:
        search_price(int(sys.argv[2]) if len(sys.argv) > 2 else 100_000)
    else:
        main(tuple(int(a) for a in sys.argv[1:]) or (10_000, 100_000))
