"""Shared helpers for the benchmarks: timing stats, machine description, result files."""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ctxnet.neo4j_server import LocalNeo4j
from graph.core.settings import Settings
from tests.support.servers import free_port

RESULTS = Path(__file__).resolve().parent / "results"
TICK = os.sysconf("SC_CLK_TCK")


def percentile(samples: list[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank."""
    ordered = sorted(samples)
    index = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered)) - 1))
    return ordered[index]


def summary_ms(samples_s: list[float]) -> dict[str, float]:
    """p50/p95/mean of durations given in seconds, in milliseconds."""
    ms = [s * 1000 for s in samples_s]
    return {
        "p50_ms": round(percentile(ms, 50), 2),
        "p95_ms": round(percentile(ms, 95), 2),
        "mean_ms": round(statistics.fmean(ms), 2),
    }


def machine() -> dict[str, Any]:
    """What the figures ran on."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = 0.0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": mem_gib,
        "python": platform.python_version(),
        "os": platform.platform(),
    }


def save(name: str, figures: dict[str, Any]) -> Path:
    """Write ``bench/results/<name>.json`` with the machine description."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps({"machine": machine(), "figures": figures}, indent=2) + "\n")
    return path


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes (and of their reaped children) so far."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / TICK  # utime stime cutime cstime
    return total


def rss_mib(pid: int) -> float:
    """Resident memory of a process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


@contextmanager
def private_neo4j(prefix: str) -> Iterator[tuple[Settings, dict[str, str], LocalNeo4j]]:
    """A Neo4j of its own (temporary folder, free ports, the project's jars), not started yet.

    Yields its settings, the CTXNET_* environment an API process needs to use it, and the
    runtime; stops it and removes the folder afterwards.
    """
    project = Settings()
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    settings = Settings(
        data_dir=folder,
        neo4j_bolt_port=free_port(),
        neo4j_http_port=free_port(),
        neo4j_dist_dir=project.neo4j_dist_dir or project.neo4j_home / "lib",
        models_dir=project.resolved_models_dir,
    )
    env = {
        "CTXNET_DATA_DIR": str(folder),
        "CTXNET_MODELS_DIR": str(settings.resolved_models_dir),
        "CTXNET_NEO4J_BOLT_PORT": str(settings.neo4j_bolt_port),
        "CTXNET_NEO4J_HTTP_PORT": str(settings.neo4j_http_port),
        "CTXNET_LOG_LEVEL": "WARNING",
    }
    local = LocalNeo4j(settings)
    try:
        yield settings, env, local
    finally:
        local.stop()
        shutil.rmtree(folder, ignore_errors=True)
