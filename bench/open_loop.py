"""The open loop of :mod:`bench.load`: requests due at Poisson arrivals of a fixed rate, each
on its own whether or not the earlier ones were answered, latency counted from when it was
due (no coordinated omission), and the CPU each process spent; a closed-loop warm-up; each
kind of request alone, one after another (latency, CPU per request, the API's own /metrics);
and the sides taking turns at every rate, the order rotating. A rate holds when its p99 is
at most :data:`P99_GOAL_MS` with no error.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.common import cpu_seconds, percentile

#: The mix an agent fleet makes: what share of requests is of each kind.
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
