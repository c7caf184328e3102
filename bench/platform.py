"""Platform figures: local embedder speed, Neo4j cold start to /ready, API memory.

Runs a private Neo4j in a temporary folder on free ports, so it neither needs nor
disturbs the project's own; the jars are shared with it.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from bench.common import machine, private_neo4j, rss_mib, save, summary_ms
from graph.core.embeddings import LocalEmbedder
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


def bench_embedder(rounds: int = 20) -> dict[str, Any]:
    """Texts per second at batch 32, and single-query latency."""
    started = time.perf_counter()
    embedder = LocalEmbedder(batch_size=32)
    load_s = time.perf_counter() - started
    batch = [SENTENCES[i % len(SENTENCES)] + f" (variant {i})" for i in range(32)]
    embedder.embed_sync(batch)  # warm-up
    t0 = time.perf_counter()
    for _ in range(rounds):
        embedder.embed_sync(batch)
    batch_s = time.perf_counter() - t0
    singles = []
    for i in range(200):
        t = time.perf_counter()
        embedder.embed_sync([f"what did we decide about topic {i}?"])
        singles.append(time.perf_counter() - t)
    return {
        "model_load_s": round(load_s, 2),
        "texts_per_s_batch32": round(rounds * len(batch) / batch_s, 1),
        "single_query": summary_ms(singles),
    }


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


def main() -> dict[str, Any]:
    """Run the platform benchmarks and save them."""
    figures = {"embedder": bench_embedder(), "cold_start": bench_cold_start()}
    path = save("platform", figures)
    print(f"platform figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    emb = figures["embedder"]
    print(
        f"  local embedder: {emb['texts_per_s_batch32']} texts/s (batch 32); "
        f"single query p50 {emb['single_query']['p50_ms']} ms, p95 {emb['single_query']['p95_ms']} ms"
    )
    for label, f in figures["cold_start"].items():
        print(
            f"  {label}: Neo4j up in {f['neo4j_up_s']} s, /ready in {f['to_ready_s']} s, "
            f"API RSS {f['api_rss_mib']} MiB"
        )
    return figures


if __name__ == "__main__":
    main()
