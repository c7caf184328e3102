"""The notes the benchmarks load, and how: a clustered synthetic corpus (vectors and words
by topic, as real notes are; random unit vectors in 384 dimensions would all be
near-orthogonal and make any index look bad), the raw ``UNWIND ... MERGE`` write beside
the API's batch create, keys and clean-up for a benchmark's users, the search parameters
the API passes its query, and waiting until Neo4j's background index merges are done.

Shared by :mod:`bench.knowledge` and the benchmarks built on it (continuity, load, wake-up,
imports, integrity, journal).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import httpx
import numpy as np
from neo4j import Driver, GraphDatabase

from bench.common import cpu_seconds, private_neo4j
from ctxnet.neo4j_server import LocalNeo4j
from graph.core.db import Database
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings
from graph.core.users import forget_user

if TYPE_CHECKING:
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
RAW_MERGE_WITHOUT_VECTOR = RAW_MERGE.split("WITH n, row")[0]


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


async def user_key(settings: Settings, user: str) -> str:
    """A human key for ``user``, made straight in Neo4j."""
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        _, secret = await ApiKeys(db).create(user, Role.HUMAN)
        return secret
    finally:
        await db.close()


@contextmanager
def private_api(
    prefix: str, user: str, timeout: float
) -> Iterator[tuple[LocalNeo4j, httpx.Client, Driver, ApiProcess]]:
    """A private Neo4j with the API in its own process: the runtime, an HTTP client with a
    person's key for ``user``, a driver straight to the database, and the API's process (to
    wait for after a restart of Neo4j); all stopped afterwards."""
    from tests.support.servers import ApiProcess

    with private_neo4j(prefix) as (settings, env, local):
        local.start()
        api = ApiProcess(settings.data_dir / "api.log", env).start()
        try:
            api.wait_ready()
            key = asyncio.run(user_key(settings, user))
            auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
            with (
                httpx.Client(
                    base_url=api.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=timeout
                ) as client,
                GraphDatabase.driver(
                    settings.resolved_neo4j_uri,
                    auth=auth,
                    notifications_disabled_classifications=["UNRECOGNIZED"],
                ) as driver,
            ):
                yield local, client, driver, api
        finally:
            api.stop()


async def forget(settings: Settings, user: str) -> None:
    """Every node of ``user`` deleted."""
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
        spent += post_batch(client, items)
    return vectors, ids, count / spent


def post_batch(client: httpx.Client, items: list[dict[str, Any]]) -> float:
    """POST one batch of notes; returns the seconds from sending to the answer.

    The body is encoded before the clock starts: writing 384k floats as JSON takes the
    benchmark's own Python ~100 ms, which says nothing about the server.
    """
    body = json.dumps({"items": items}).encode()
    t0 = time.perf_counter()
    response = client.post("/v1/knowledge/batch", content=body, headers={"Content-Type": "application/json"})
    spent = time.perf_counter() - t0
    response.raise_for_status()
    return spent


def server_seconds(response: httpx.Response) -> float:
    """The API's own time for a request, from its ``Server-Timing`` header."""
    return float(response.headers["server-timing"].split("dur=")[1]) / 1000


def rotated(sides: list[str], turn: int) -> list[str]:
    """``sides`` starting at ``turn``: no side always goes first (or last)."""
    return sides[turn % len(sides) :] + sides[: turn % len(sides)]


def vector_segments(local: LocalNeo4j) -> int:
    """How many Lucene segments the vector indexes hold (each is its own HNSW graph)."""
    folder = local.data / "databases" / "neo4j" / "schema" / "index" / "vector-2.0"
    return len(list(folder.glob("*/*/*.si")))


def settle(local: LocalNeo4j, quiet_share: float = 0.05, timeout: float = 180.0) -> float:
    """Wait until Neo4j's process is idle (background index merges done); returns seconds waited."""
    pid = local.pid()
    if pid is None:
        return 0.0
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        before = cpu_seconds([pid])
        time.sleep(2.0)
        if (cpu_seconds([pid]) - before) / 2.0 < quiet_share:
            break
    return round(time.monotonic() - started, 1)


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


#: What ``queries/knowledge/search_1`` took before 2026-12-02 beside today's parameters (a
#: benchmark running that query from git next to today's): reciprocal rank fusion's
#: constant, and ``$collapse`` as a boolean.
SEARCH_BEFORE_FUSION = {"rrfK": 60, "collapse": False}


def search_1_params(user: str) -> dict[str, Any]:
    """The parameters the API passes ``queries/knowledge/search_1`` for a hybrid top-10 with
    one hop of expansion over 100 index candidates (all but the vector and the Lucene query)."""
    from graph.knowledge.models import ALL_REL_TYPES
    from graph.knowledge.search import CHECKED_PAST_TOP_K, MAX_EDGES, MAX_REACHED, RUNAWAY, VECTOR_WEIGHT

    return {
        "userId": user, "mode": "hybrid", "seedIds": None, "topK": 10, "pool": 20, "textCandidates": 80,
        "vectorWeight": VECTOR_WEIGHT, "runaway": RUNAWAY, "checked": 10 + CHECKED_PAST_TOP_K,
        "relTypes": ALL_REL_TYPES, "direction": "both", "candidates": 100,
        "scope": None, "filtered": False, "collapse": "conversation", "bare": False,
        "maxReached": MAX_REACHED, "maxEdges": MAX_EDGES,
        "statuses": ["active"], "types": None, "sources": None, "minConfidence": None,
        "tags": None, "createdAfter": None, "createdBefore": None, "begunAfter": None, "begunBefore": None,
        # What is true now, as the API asks by default (valid time).
        "validAt": int(time.time() * 1000), "asOf": None,
    }  # fmt: skip
