"""Liveness and readiness."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import ServicesDep
from graph.errors import DatabaseUnavailable
from graph.schema import check_schema

router = APIRouter(tags=["health"])

READY_TIMEOUT_SECONDS = 5.0


@router.get("/health", summary="Liveness: the process is up")
async def health() -> dict[str, str]:
    """Always 200 while the process serves requests."""
    return {"status": "ok"}


@router.get(
    "/ready",
    summary="Readiness: Neo4j reachable, schema applied, vector indexes sized for the embedder",
    responses={503: {"description": "not ready; `reason` says why"}},
)
async def ready(services: ServicesDep) -> JSONResponse:
    """200 when requests can be served; 503 with the reason otherwise."""
    dimension = services.embedder.dimension
    try:
        async with asyncio.timeout(READY_TIMEOUT_SECONDS):
            await services.db.ping()
            report = await check_schema(services.db, dimension)
    except (DatabaseUnavailable, TimeoutError) as exc:
        reason = exc.message if isinstance(exc, DatabaseUnavailable) else "Neo4j did not answer in time"
        return JSONResponse({"status": "unavailable", "reason": reason}, status_code=503)
    body: dict[str, Any] = {
        "status": "ready" if report.ok else "unavailable",
        "neo4j": services.settings.resolved_neo4j_uri,
        "database": services.settings.neo4j_database,
        "embedder": services.embedder.model_id,
        "dimension": dimension,
    }
    if not report.ok:
        body["reason"] = "; ".join(report.problems)
        return JSONResponse(body, status_code=503)
    return JSONResponse(body)
