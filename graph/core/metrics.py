"""What the service measures about itself, in Prometheus's terms (served at ``/metrics``).

The metrics live here, beside the code that records them (every Cypher statement in
:mod:`graph.core.db`, every embedder call through :class:`MeasuredEmbedder`); the API
records requests and serves the lot.

Several API processes (``ctxnet serve --workers N``) each count their own; with
``PROMETHEUS_MULTIPROC_DIR`` set before this module is imported (``ctxnet serve`` does it),
every process writes its values there and a scrape of any one of them sums them all.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from prometheus_client import Counter, Histogram

from graph.core.embeddings import Embedder, Vector

#: Seconds, from a millisecond to ten seconds.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

HTTP_REQUESTS = Counter(
    "ctxnet_http_requests",
    "HTTP requests answered, by route template (never a concrete id), method and status.",
    ["route", "method", "status"],
)
HTTP_SECONDS = Histogram(
    "ctxnet_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by route template and method.",
    ["route", "method"],
    buckets=LATENCY_BUCKETS,
)
NEO4J_SECONDS = Histogram(
    "ctxnet_neo4j_query_duration_seconds",
    "Time of one Cypher statement (its file under cypher/) from sending to its last row.",
    ["query"],
    buckets=LATENCY_BUCKETS,
)
EMBED_SECONDS = Histogram(
    "ctxnet_embedder_duration_seconds",
    "Time of one embedder call (one or more texts), by model.",
    ["model"],
    buckets=LATENCY_BUCKETS,
)
EMBED_TEXTS = Counter("ctxnet_embedder_texts", "Texts embedded, by model.", ["model"])


class MeasuredEmbedder:
    """An embedder whose calls are timed and counted; otherwise the embedder itself."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self._seconds = EMBED_SECONDS.labels(inner.model_id)
        self._texts = EMBED_TEXTS.labels(inner.model_id)

    @property
    def model_id(self) -> str:
        """The wrapped model's id."""
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        """The wrapped model's vector size."""
        return self.inner.dimension

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """The wrapped embedder's vectors, timed."""
        if not texts:
            return []
        started = time.perf_counter()
        try:
            return await self.inner.embed(texts)
        finally:
            self._seconds.observe(time.perf_counter() - started)
            self._texts.inc(len(texts))

    async def close(self) -> None:
        """Close the wrapped embedder, if it holds anything."""
        close = getattr(self.inner, "close", None)
        if close is not None:
            await close()
