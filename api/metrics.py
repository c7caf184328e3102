"""``GET /metrics``: the service's metrics in Prometheus's text format (no key needed).

Requests (by route template, method and status, with latency histograms), Cypher statement
and embedder times (recorded in :mod:`graph.core.metrics`), jobs by state (counted in Neo4j
at each scrape, over all users), and the process's own CPU and memory. Nothing in it names
a user, a key or an id.
"""

from __future__ import annotations

import os
import re
from typing import Any

from fastapi import APIRouter, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.types import Scope

from api.deps import ServicesDep
from graph.core.errors import DatabaseUnavailable
from graph.core.jobs import Jobs
from graph.core.metrics import HTTP_REQUESTS, HTTP_SECONDS

router = APIRouter(tags=["health"])


class RouteTemplates:
    """The route template a request path belongs to (``/v1/knowledge/{id}``), from the app's
    OpenAPI document: what requests are labelled with, never the path (ids would make a
    series per note). A literal segment wins over a parameter (``/v1/knowledge/batch``)."""

    def __init__(self, openapi: dict[str, Any]) -> None:
        templates: list[str] = sorted(openapi.get("paths", {}), key=lambda t: (t.count("{"), -len(t)))
        self._patterns: list[tuple[re.Pattern[str], str]] = [
            (re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(t)) + "$"), t) for t in templates
        ]

    def of(self, path: str) -> str:
        """The template ``path`` matches, or ``unmatched``."""
        for pattern, template in self._patterns:
            if pattern.match(path):
                return template
        return "unmatched"


def record_request(scope: Scope, status: int, seconds: float) -> None:
    """Count an answered request and its time under its route template."""
    app = scope.get("app")
    template = "unmatched"
    if app is not None:
        templates: RouteTemplates | None = getattr(app.state, "route_templates", None)
        if templates is None:
            templates = app.state.route_templates = RouteTemplates(app.openapi())
        template = templates.of(scope["path"])
    method = str(scope.get("method"))
    HTTP_REQUESTS.labels(template, method, str(status)).inc()
    HTTP_SECONDS.labels(template, method).observe(seconds)


class _Jobs(Collector):
    """Jobs by state, as counted just before this scrape."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts

    def collect(self):  # type: ignore[no-untyped-def]  # prometheus_client's own signature
        family = GaugeMetricFamily(
            "ctxnet_jobs",
            "Background jobs (insight extraction) in Neo4j by state, over all users; "
            "`expired`: queued or running, but the lease ran out (its process stopped).",
            labels=["state"],
        )
        for state, jobs in sorted(self.counts.items()):
            family.add_metric([state], jobs)
        yield family


async def job_counts(jobs: Jobs) -> dict[str, int]:
    """Jobs per state; empty when Neo4j does not answer (the scrape still succeeds)."""
    try:
        return await jobs.states()
    except DatabaseUnavailable:
        return {}


@router.get(
    "/metrics",
    summary="Metrics in Prometheus's text format",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}}},
)
async def metrics(services: ServicesDep) -> Response:
    """Every API process's counters and histograms (summed over processes when
    ``PROMETHEUS_MULTIPROC_DIR`` is set), and jobs by state."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = REGISTRY
    snapshot = CollectorRegistry()
    snapshot.register(_Jobs(await job_counts(services.jobs)))
    body = generate_latest(registry) + generate_latest(snapshot)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
