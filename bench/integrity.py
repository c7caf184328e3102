"""What the per-user write gate costs, measured side by side in one run.

On a private Neo4j (project default memory) with the API in its own process:

* **Batch writes**: 1,000 notes per transaction with precomputed vectors, raw through the
  driver with and without the gate's first statement (``queries/core/gate_enter``), and
  through ``POST /v1/knowledge/batch`` (which always takes it); alternated batch by batch
  with the order rotating, so all three meet the same index size and background merging.
* **Single creates at once**: 8 writers, each creating single notes through
  ``POST /v1/knowledge`` (vectors given, dedupe off), as 8 users (the gate lets them run
  in parallel) and as one user (the gate runs them one at a time); beside it the same
  with the raw driver, with and without the gate, 8 threads.

``python -m bench.integrity [PER_WRITER] [--before REV]``: with ``--before``, the API as
it was at ``REV`` (a git worktree, its own process on the same Neo4j) takes part on every
side, alternating with today's, so "before" and "after" meet the same machine and data.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, LiteralString

import httpx
from neo4j import Driver, GraphDatabase, ManagedTransaction

from bench.common import machine, private_neo4j, save, summary_ms
from bench.corpus import BATCH, RAW_MERGE, Corpus, forget, post_batch, rotated, user_key
from graph.core.cypher import cypher_text
from graph.core.db import QuietList
from graph.core.settings import Settings
from graph.core.tenancy import tenant_key
from tests.support.servers import ApiProcess

WRITERS = 8


def _raw_batch(driver: Driver, user: str, rows: list[dict[str, Any]], gated: bool) -> float:
    """One raw batch in one write transaction, the gate's statement first when ``gated``."""
    gate: LiteralString = cypher_text("queries/core/gate_enter")

    def work(tx: ManagedTransaction) -> None:
        if gated:
            tx.run(gate, userId=user).consume()
        tx.run(RAW_MERGE, rows=QuietList(rows), userId=user, tenantKey=tenant_key(user)).consume()

    t0 = time.perf_counter()
    with driver.session() as session:
        session.execute_write(work)
    return time.perf_counter() - t0


def batch_writes(
    settings: Settings, apis: dict[str, ApiProcess], driver: Driver, batches: int = 20
) -> dict[str, Any]:
    corpus = Corpus(seed=11)
    sides = [*apis, "raw", "raw_gated"]
    users = {side: f"bench-gate-batch-{side}" for side in sides}
    clients = {
        side: httpx.Client(
            base_url=api.base_url,
            headers={"Authorization": f"Bearer {asyncio.run(user_key(settings, users[side]))}"},
            timeout=300,
        )
        for side, api in apis.items()
    }
    vectors, topics = corpus.notes(batches * BATCH)
    spent = dict.fromkeys(sides, 0.0)
    try:
        for b in range(batches):
            part = slice(b * BATCH, (b + 1) * BATCH)
            for side in rotated(sides, b):
                rows = corpus.items(f"{side}-", vectors[part], topics[part], b * BATCH)
                if side in clients:
                    spent[side] += post_batch(clients[side], rows)
                else:
                    spent[side] += _raw_batch(driver, users[side], rows, gated=side == "raw_gated")
    finally:
        for client in clients.values():
            client.close()
    for user in users.values():
        asyncio.run(forget(settings, user))
    rate = {side: batches * BATCH / seconds for side, seconds in spent.items()}
    figures: dict[str, Any] = {f"{side}_notes_per_s": round(r) for side, r in rate.items()}
    figures["gated_over_raw"] = round(rate["raw_gated"] / rate["raw"], 3)
    if "api_before" in rate:
        figures["api_over_api_before"] = round(rate["api"] / rate["api_before"], 3)
    return figures


def _single_items(corpus: Corpus, prefix: str, count: int) -> list[dict[str, Any]]:
    vectors, topics = corpus.notes(count)
    return corpus.items(prefix, vectors, topics, 0)


def _writers(
    settings: Settings, users: list[str], per_writer: int, writer: Callable[[int], Iterable[float]]
) -> dict[str, Any]:
    """Run ``writer(w)`` for the 8 writers at once, each yielding the seconds of its writes;
    notes/s and latency over all of them. The users are forgotten afterwards."""
    latencies: list[float] = []
    lock = threading.Lock()

    def run(w: int) -> None:
        for spent in writer(w):
            with lock:
                latencies.append(spent)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(WRITERS) as pool:
        list(pool.map(run, range(WRITERS)))
    seconds = time.perf_counter() - t0
    for user in set(users):
        asyncio.run(forget(settings, user))
    return {"notes_per_s": round(WRITERS * per_writer / seconds, 1), **summary_ms(latencies)}


def api_singles(
    settings: Settings, api: ApiProcess, one_user: bool, per_writer: int, tag: str = "api"
) -> dict[str, Any]:
    """8 concurrent writers, single creates through the API; notes/s and latency."""
    corpus = Corpus(seed=13 if one_user else 17)
    users = [f"bench-{tag}-one"] * WRITERS if one_user else [f"bench-{tag}-u{w}" for w in range(WRITERS)]
    keys = {user: asyncio.run(user_key(settings, user)) for user in set(users)}
    bodies = [
        [json.dumps(item).encode() for item in _single_items(corpus, f"w{w}-", per_writer)]
        for w in range(WRITERS)
    ]

    def writer(w: int) -> Iterator[float]:
        headers = {"Authorization": f"Bearer {keys[users[w]]}", "Content-Type": "application/json"}
        with httpx.Client(base_url=api.base_url, headers=headers, timeout=120) as client:
            for body in bodies[w]:
                t0 = time.perf_counter()
                client.post("/v1/knowledge", content=body).raise_for_status()
                yield time.perf_counter() - t0

    return _writers(settings, users, per_writer, writer)


def raw_singles(
    settings: Settings, driver: Driver, one_user: bool, gated: bool, per_writer: int
) -> dict[str, Any]:
    """8 threads, single-note transactions through the driver; notes/s and latency."""
    corpus = Corpus(seed=19)
    tag = f"{'one' if one_user else 'many'}-{'gated' if gated else 'bare'}"
    users = [f"bench-raw-{tag}"] * WRITERS if one_user else [f"bench-raw-{tag}-{w}" for w in range(WRITERS)]
    items = [_single_items(corpus, f"w{w}-", per_writer) for w in range(WRITERS)]

    def writer(w: int) -> Iterator[float]:
        for item in items[w]:
            yield _raw_batch(driver, users[w], [item], gated)

    return _writers(settings, users, per_writer, writer)


@contextmanager
def checkout(rev: str | None) -> Iterator[Path | None]:
    """A temporary git worktree of ``rev`` (nothing when ``rev`` is None)."""
    if rev is None:
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="ctxnet-before-")) / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", str(folder), rev], check=True, capture_output=True)
    try:
        yield folder
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(folder)], check=False, capture_output=True
        )
        shutil.rmtree(folder.parent, ignore_errors=True)


def main(per_writer: int = 50, before: str | None = None) -> dict[str, Any]:
    """Run every comparison in one private Neo4j and save the figures."""
    with private_neo4j("ctxnet-bench-integrity-") as (settings, env, local), checkout(before) as old:
        local.start()
        apis = {"api": ApiProcess(settings.data_dir / "api.log", env).start()}
        apis["api"].wait_ready()
        if old is not None:
            apis["api_before"] = ApiProcess(settings.data_dir / "api-before.log", env, cwd=old).start()
        auth = (settings.neo4j_user, settings.resolved_neo4j_password() or "")
        try:
            for process in apis.values():
                process.wait_ready()
            with GraphDatabase.driver(settings.resolved_neo4j_uri, auth=auth) as driver:
                results: dict[str, Any] = {"before": before, "batch": batch_writes(settings, apis, driver)}
                print(f"batch: {results['batch']}", flush=True)
                singles: dict[str, Any] = {}
                # Rounds alternate the sides, so none always meets a warmer or busier Neo4j.
                for round_ in range(2):
                    for one_user in rotated([False, True], round_):
                        who = "one_user" if one_user else "eight_users"
                        runs = {
                            side: api_singles(settings, process, one_user, per_writer, side)
                            for side, process in apis.items()
                        }
                        runs["raw"] = raw_singles(settings, driver, one_user, False, per_writer)
                        runs["raw_gated"] = raw_singles(settings, driver, one_user, True, per_writer)
                        for side, figures in runs.items():
                            singles.setdefault(who, {}).setdefault(side, []).append(figures)
                results["singles"] = {
                    who: {
                        side: {k: round(statistics.fmean(r[k] for r in rounds), 2) for k in rounds[0]}
                        for side, rounds in sides.items()
                    }
                    for who, sides in singles.items()
                }
                print(f"singles: {results['singles']}", flush=True)
        finally:
            for process in apis.values():
                process.stop()
    path = save("integrity", results)
    print(f"integrity figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return results


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("per_writer", nargs="?", type=int, default=50)
    parser.add_argument("--before", help="also run the API as it was at this git revision")
    arguments = parser.parse_args()
    main(arguments.per_writer, arguments.before)
