"""Knowledge-network figures at 10k and 100k notes, all measured in one run.

On a private Neo4j (project default memory) with the API in its own process:

* batch create throughput through ``POST /v1/knowledge/batch`` (precomputed 384-dim
  vectors, 1,000 per request) against a raw ``UNWIND ... MERGE`` with the driver;
* search (top-10, hybrid, 1-hop expansion): server-side p50/p95 from the API's
  ``Server-Timing`` header, and the raw Cypher vector query alone;
* recall@10 of the API's vector search against exact brute-force cosine over the
  user's own notes, for users holding 0.1 %, 1 %, 10 % and 100 % of the notes.

Vectors are clustered (200 topics), as real notes are; random unit vectors in 384
dimensions would all be near-orthogonal and make any index look bad.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import numpy as np
from neo4j import GraphDatabase

from bench.common import machine, private_neo4j, save, summary_ms
from graph.db import Database
from graph.principals import ApiKeys, Role
from graph.settings import Settings
from graph.users import forget_user
from tests.support.servers import ApiProcess

DIM = 384
TOPICS = 200
BATCH = 1_000
RAW_MERGE = """
UNWIND $rows AS row
MERGE (n:Knowledge {userId: $userId, id: row.id})
  ON CREATE SET n.title = row.title, n.content = row.content, n.type = 'fact', n.source = 'docs',
    n.confidence = 1.0, n.tags = [], n.status = 'active', n.createdAt = datetime(),
    n.updatedAt = datetime(), n.tenantKey = $tenantKey, n:Fact
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
"""
RAW_VECTOR = """
CALL db.index.vector.queryNodes('knowledge_embedding', 10, $vector) YIELD node, score
RETURN node.id AS id, score
"""


class Corpus:
    """Clustered synthetic notes: vectors, and words drawn from each topic's vocabulary."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = np.random.default_rng(seed)
        self.centers = self.rng.standard_normal((TOPICS, DIM))
        self.vocab = [[f"w{t}x{j}" for j in range(25)] for t in range(TOPICS)]

    def notes(self, count: int) -> tuple[np.ndarray, list[int]]:
        topics = self.rng.integers(0, TOPICS, count).tolist()
        vectors = self.centers[topics] + 0.35 * self.rng.standard_normal((count, DIM))
        return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32), topics

    def text(self, topic: int, words: int) -> str:
        return " ".join(self.rng.choice(self.vocab[topic], words).tolist())

    def items(self, prefix: str, vectors: np.ndarray, topics: list[int], start: int) -> list[dict[str, Any]]:
        return [
            {
                "id": f"{prefix}{start + i}",
                "title": f"topic {topics[i]} {self.text(topics[i], 3)}",
                "content": self.text(topics[i], 30),
                "type": "fact",
                "source": "docs",
                "embedding": vectors[i].tolist(),
                "dedupe": False,
            }
            for i in range(len(vectors))
        ]


async def _key(settings: Settings, user: str) -> str:
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        _, secret = await ApiKeys(db).create(user, Role.HUMAN)
        return secret
    finally:
        await db.close()


async def _forget(settings: Settings, user: str) -> None:
    db = Database.from_settings(settings)
    try:
        await forget_user(db, user)
    finally:
        await db.close()


def api_load(
    client: httpx.Client, corpus: Corpus, prefix: str, count: int
) -> tuple[np.ndarray, list[str], float]:
    """Create ``count`` notes through the API; returns vectors, ids and notes/s."""
    vectors, topics = corpus.notes(count)
    ids = [f"{prefix}{i}" for i in range(count)]
    spent = 0.0
    for start in range(0, count, BATCH):
        items = corpus.items(prefix, vectors[start : start + BATCH], topics[start : start + BATCH], start)
        t0 = time.perf_counter()
        response = client.post("/v1/knowledge/batch", json={"items": items})
        spent += time.perf_counter() - t0
        response.raise_for_status()
    return vectors, ids, count / spent


def api_edges(client: httpx.Client, ids: list[str], rng: np.random.Generator) -> float:
    """About two relatedTo/dependsOn edges per note; returns edges/s."""
    pairs = [(ids[i], ids[(i + 1 + int(rng.integers(0, 50))) % len(ids)]) for i in range(len(ids))]
    pairs += [(ids[i], ids[int(rng.integers(0, len(ids)))]) for i in range(len(ids))]
    edges = [
        {"sourceId": a, "type": "relatedTo" if k % 2 else "dependsOn", "targetId": b}
        for k, (a, b) in enumerate(pairs)
        if a != b
    ]
    spent = 0.0
    for start in range(0, len(edges), BATCH):
        t0 = time.perf_counter()
        client.post("/v1/connections/batch", json={"items": edges[start : start + BATCH]}).raise_for_status()
        spent += time.perf_counter() - t0
    return len(edges) / spent


def raw_load(settings: Settings, corpus: Corpus, user: str, count: int) -> float:
    """The same notes written with the driver's UNWIND ... MERGE alone; notes/s."""
    from graph.search import tenant_key

    vectors, topics = corpus.notes(count)
    auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
    spent = 0.0
    with GraphDatabase.driver(settings.resolved_neo4j_uri, auth=auth) as driver:
        for start in range(0, count, BATCH):
            rows = corpus.items("raw-", vectors[start : start + BATCH], topics[start : start + BATCH], start)
            t0 = time.perf_counter()
            driver.execute_query(RAW_MERGE, rows=rows, userId=user, tenantKey=tenant_key(user))
            spent += time.perf_counter() - t0
    return count / spent


def search_latency(
    client: httpx.Client, settings: Settings, corpus: Corpus, runs: int = 300
) -> dict[str, Any]:
    """Server-side hybrid top-10 with 1-hop expansion, vs the raw vector query."""
    queries, topics = corpus.notes(runs)
    texts = [corpus.text(t, 3) for t in topics]
    api_server, api_client = [], []
    for vector, text in zip(queries, texts, strict=True):
        body = {"query": text, "embedding": vector.tolist(), "topK": 10, "mode": "hybrid", "maxDepth": 1}
        t0 = time.perf_counter()
        response = client.post("/v1/search", json=body)
        api_client.append(time.perf_counter() - t0)
        response.raise_for_status()
        api_server.append(float(response.headers["server-timing"].split("dur=")[1]) / 1000)
    text_only = []
    for text in texts[:100]:
        response = client.post(
            "/v1/search", json={"query": text, "topK": 10, "mode": "hybrid", "maxDepth": 1}
        )
        text_only.append(float(response.headers["server-timing"].split("dur=")[1]) / 1000)
    raw = []
    auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(settings.resolved_neo4j_uri, auth=auth) as driver:
        for vector in queries[:20]:
            driver.execute_query(RAW_VECTOR, vector=vector.tolist())  # warm-up
        for vector in queries:
            t0 = time.perf_counter()
            driver.execute_query(RAW_VECTOR, vector=vector.tolist())
            raw.append(time.perf_counter() - t0)
    api = summary_ms(api_server[20:])
    raw_summary = summary_ms(raw)
    return {
        "api_server_side": api,
        "api_client_round_trip": summary_ms(api_client[20:]),
        "api_with_query_embedding": summary_ms(text_only[10:]),
        "raw_vector_query": raw_summary,
        "api_over_raw_p50": round(api["p50_ms"] / raw_summary["p50_ms"], 2),
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


def bench_scale(scale: int, settings: Settings, api: ApiProcess, corpus: Corpus, tag: str) -> dict[str, Any]:
    """Load one dataset of ``scale`` notes (one user holding them all) and measure."""
    figures: dict[str, Any] = {}
    whale = f"bench-{tag}-all"
    key = asyncio.run(_key(settings, whale))
    with httpx.Client(
        base_url=api.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120
    ) as client:
        vectors, ids, rate = api_load(client, corpus, "n", scale)
        figures["api_batch_create_notes_per_s"] = round(rate)
        figures["api_edges_per_s"] = round(api_edges(client, ids, corpus.rng))
        raw_user = f"bench-{tag}-raw"
        raw_count = min(scale, 20_000)
        figures["raw_merge_notes_per_s"] = round(raw_load(settings, corpus, raw_user, raw_count))
        asyncio.run(_forget(settings, raw_user))
        figures["api_over_raw_write"] = round(
            figures["api_batch_create_notes_per_s"] / figures["raw_merge_notes_per_s"], 2
        )
        time.sleep(2)  # let the vector index settle after the loads
        figures["search"] = search_latency(client, settings, corpus)
        recalls = {"100%": recall_at_10(client, corpus, vectors, ids)}
    for share in (0.1, 0.01, 0.001):
        user = f"bench-{tag}-{share}"
        key = asyncio.run(_key(settings, user))
        with httpx.Client(
            base_url=api.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120
        ) as client:
            count = max(10, int(scale * share))
            small_vectors, small_ids, _ = api_load(client, corpus, f"s{share}-", count)
            recalls[f"{share:.1%}"] = recall_at_10(client, corpus, small_vectors, small_ids)
    figures["recall_at_10"] = recalls
    return figures


def bench_dedupe(settings: Settings, api: ApiProcess, corpus: Corpus) -> float:
    """Batch create with dedupe on (every note checked for a twin), notes/s."""
    key = asyncio.run(_key(settings, "bench-dedupe"))
    with httpx.Client(
        base_url=api.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=300
    ) as client:
        vectors, topics = corpus.notes(5_000)
        spent = 0.0
        for start in range(0, 5_000, BATCH):
            items = corpus.items("d", vectors[start : start + BATCH], topics[start : start + BATCH], start)
            for item in items:
                item["dedupe"] = True
            t0 = time.perf_counter()
            client.post("/v1/knowledge/batch", json={"items": items}).raise_for_status()
            spent += time.perf_counter() - t0
    return round(5_000 / spent)


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
                results[f"{scale}"] = bench_scale(scale, settings, api, corpus, str(scale))
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

    main(tuple(int(a) for a in sys.argv[1:]) or (10_000, 100_000))
