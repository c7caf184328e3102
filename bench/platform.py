"""Platform figures: local embedder speed, Neo4j cold start to /ready, API memory, what the
driver costs per record read (rows as records against the same rows as one list), and per
read (a managed transaction against an auto-commit query).

``python -m bench.platform`` runs them all; ``python -m bench.platform records reads`` the
parts named.

Runs a private Neo4j in a temporary folder on free ports, so it neither needs nor
disturbs the project's own; the jars are shared with it.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, LiteralString

import httpx
from neo4j import AsyncManagedTransaction

from bench.common import machine, private_neo4j, rss_mib, save, summary_ms
from bench.retrieval import load_dataset
from graph.core.db import Database, listed, rows_of, run_rows
from graph.core.embeddings import LOCAL_MODELS, MINILM, LocalEmbedder
from tests.support.servers import ApiProcess

SENTENCES = [
    "The deployment pipeline runs integration tests against a real Neo4j before release.",
    "Users prefer short answers with a code example first.",
    "Decision: we store every memory in Neo4j and use its vector index for search.",
    "The context bridge injects the last three session summaries at session start.",
    "Open question: should superseded decisions be archived after ninety days?",
    "Pending action: follow up on the failing migration in PR 42.",
    "Hybrid search fuses fulltext and vector rankings with reciprocal rank fusion.",
    "The billing service depends on the authentication service for tokens.",
]


def _rate(embed: Callable[[list[str]], object], texts: list[str], rounds: int) -> list[float]:
    rates = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        embed(texts)
        rates.append(len(texts) / (time.perf_counter() - t0))
    return rates


def bench_embedder(rounds: int = 7) -> dict[str, Any]:
    """Texts per second of each local model on short texts (like notes and queries) and on
    conversation turns (the retrieval yardstick's, up to 250 words), measured side by side:
    rounds alternate between the embedders, and the median round counts. "as before" is
    all-MiniLM-L6-v2 batched as this service did before texts were grouped by length (32
    at a time in the order given, with no token budget); then single-query latency."""
    short = [SENTENCES[i % len(SENTENCES)] + f" (variant {i})" for i in range(128)]
    turns, _ = load_dataset()
    long = [t.text for t in turns[:96]]
    started = time.perf_counter()
    embedders = {name: LocalEmbedder(model, batch_size=32) for name, model in LOCAL_MODELS.items()}
    load_s = time.perf_counter() - started
    before = LocalEmbedder(MINILM, batch_size=32, batch_tokens=10**9)

    def as_before(texts: list[str]) -> None:
        for start in range(0, len(texts), 32):
            before.embed_sync(texts[start : start + 32])

    runs: dict[str, Callable[[list[str]], object]] = {
        "all-MiniLM-L6-v2 as before": as_before,
        **{name: e.embed_sync for name, e in embedders.items()},
    }
    figures: dict[str, Any] = {"model_load_s": round(load_s, 2)}
    for label, texts in (("short_texts_per_s", short), ("turns_per_s", long)):
        for run in runs.values():
            run(texts[:8])  # warm-up
        rates: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(rounds):
            for name, run in runs.items():
                rates[name].extend(_rate(run, texts, 1))
        figures[label] = {name: round(statistics.median(r), 1) for name, r in rates.items()}
    for name, embedder in embedders.items():
        singles = []
        for i in range(200):
            t = time.perf_counter()
            embedder.embed_sync([f"what did we decide about topic {i}?"])
            singles.append(time.perf_counter() - t)
        figures.setdefault("single_query", {})[name] = summary_ms(singles)
    return figures


def _wait_ready(url: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{url} not ready after {timeout}s")


def bench_cold_start() -> dict[str, Any]:
    """Seconds from launching Neo4j (first start, then a restart) to the API's /ready = 200."""
    figures: dict[str, Any] = {}
    with private_neo4j("ctxnet-bench-platform-") as (settings, env, local):
        for label in ("first_start", "restart"):
            t0 = time.perf_counter()
            local.start()
            neo4j_s = time.perf_counter() - t0
            api = ApiProcess(settings.data_dir / f"api-{label}.log", env).start()
            try:
                _wait_ready(f"{api.base_url}/ready")
                total_s = time.perf_counter() - t0
                assert api.process is not None
                figures[label] = {
                    "neo4j_up_s": round(neo4j_s, 2),
                    "to_ready_s": round(total_s, 2),
                    "api_rss_mib": rss_mib(api.process.pid),
                }
            finally:
                api.stop()
            local.stop()
    return figures


#: The same rows two ways: a record each, or one record holding them as a list (db.listed).
AS_RECORDS = "UNWIND range(1, $n) AS i RETURN i AS seq, {id: 'note-' + i, title: 'A title', at: i} AS item"
AS_LIST = (
    "UNWIND range(1, $n) AS i"
    " RETURN collect({seq: i, item: {id: 'note-' + i, title: 'A title', at: i}}) AS rows"
)


async def _records(db: Database, rounds: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n in (10, 100, 1000):
        figures = {}
        for label in ("records", "one_list"):
            for _ in range(3):
                await _rows_of(db, label, n)
            cpu, wall = time.process_time(), time.perf_counter()
            for _ in range(rounds):
                assert len(await _rows_of(db, label, n)) == n
            figures[label] = {
                "cpu_ms": round((time.process_time() - cpu) / rounds * 1000, 2),
                "wall_ms": round((time.perf_counter() - wall) / rounds * 1000, 2),
            }
        out[f"{n}_rows"] = figures
    return out


async def _read(db: Database, query: LiteralString, n: int) -> list[dict[str, Any]]:
    """``query``'s rows, read as the service reads every query (a managed read, rows_of)."""

    async def work(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
        return await rows_of(await tx.run(query, n=n))

    return await db.read_tx(work)


async def _rows_of(db: Database, label: str, n: int) -> list[dict[str, Any]]:
    return await _read(db, AS_RECORDS, n) if label == "records" else listed(await _read(db, AS_LIST, n))


async def _reads(db: Database, rounds: int) -> dict[str, Any]:
    """One small read (``queries/core/ping``) as a transaction function, as every read ran
    before 2026-12-02 (BEGIN, RUN and PULL, COMMIT: two round trips), and as ``Database.read``
    runs it now (an auto-commit query: one), taking turns."""

    async def managed() -> list[dict[str, Any]]:
        async def work(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
            return await run_rows(tx, "queries/core/ping")

        return await db.read_tx(work)

    async def auto_commit() -> list[dict[str, Any]]:
        return await db.read("queries/core/ping")

    sides = {"managed_tx": managed, "auto_commit": auto_commit}
    spent: dict[str, dict[str, list[float]]] = {name: {"cpu": [], "wall": []} for name in sides}
    for turn in range(10):
        for name, read in sides.items() if turn % 2 else reversed(sides.items()):
            for _ in range(3):
                await read()
            cpu, wall = time.process_time(), time.perf_counter()
            for _ in range(rounds):
                await read()
            spent[name]["cpu"].append((time.process_time() - cpu) / rounds * 1000)
            spent[name]["wall"].append((time.perf_counter() - wall) / rounds * 1000)
    return {
        name: {f"{k}_ms": round(statistics.median(v), 2) for k, v in figures.items()}
        for name, figures in spent.items()
    }


def _on_private_neo4j(
    prefix: str, measure: Callable[[Database], Awaitable[dict[str, Any]]]
) -> dict[str, Any]:
    with private_neo4j(prefix) as (settings, _, local):
        local.start()

        async def run() -> dict[str, Any]:
            db = Database.from_settings(settings)
            try:
                return await measure(db)
            finally:
                await db.close()

        return asyncio.run(run())


def bench_records(rounds: int = 50) -> dict[str, Any]:
    """Python CPU and wall time per read of n rows through the service's async driver, as a
    record each and as one list: the driver's cost per record is why hot reads answer lists."""
    return _on_private_neo4j("ctxnet-bench-records-", lambda db: _records(db, rounds))


def bench_reads(rounds: int = 100) -> dict[str, Any]:
    """Python CPU and wall time per small read, as a managed transaction and as an
    auto-commit query (the median of ten turns each)."""
    return _on_private_neo4j("ctxnet-bench-reads-", lambda db: _reads(db, rounds))


PARTS: dict[str, Callable[[], dict[str, Any]]] = {
    "embedder": bench_embedder, "cold_start": bench_cold_start,
    "records": bench_records, "reads": bench_reads,
}  # fmt: skip


def main(parts: list[str] | None = None) -> dict[str, Any]:
    """Run the platform benchmarks (``parts`` of :data:`PARTS`, else all) and save them."""
    figures = {name: PARTS[name]() for name in parts or PARTS}
    path = save("platform" if parts is None else "platform_" + "_".join(parts), figures)
    print(f"platform figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    emb = figures.get("embedder", {"short_texts_per_s": {}})
    for name in emb["short_texts_per_s"]:
        single = emb["single_query"].get(name)
        print(
            f"  {name}: {emb['short_texts_per_s'][name]} short texts/s, {emb['turns_per_s'][name]} turns/s"
            + (f"; single query p50 {single['p50_ms']} ms, p95 {single['p95_ms']} ms" if single else "")
        )
    for label, f in figures.get("cold_start", {}).items():
        print(
            f"  {label}: Neo4j up in {f['neo4j_up_s']} s, /ready in {f['to_ready_s']} s, "
            f"API RSS {f['api_rss_mib']} MiB"
        )
    for label, f in figures.get("records", {}).items():
        print(f"  {label}: as records {f['records']}, as one list {f['one_list']}")
    for label, f in figures.get("reads", {}).items():
        print(f"  a small read as {label}: {f}")
    return figures


if __name__ == "__main__":
    main(sys.argv[1:] or None)
