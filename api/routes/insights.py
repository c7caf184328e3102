"""Insight extraction jobs, the feedback loop, consolidation, and cross-session recall."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from pydantic import Field

from api.deps import PrincipalDep, ServicesDep
from api.dto import CamelModel, OutModel, dump
from graph.extractors import InsightType

router = APIRouter(tags=["conversations"])


class JobStarted(OutModel):
    """A queued job; poll ``GET /v1/jobs/{jobId}``."""

    job_id: str


class JobOut(OutModel):
    """A background job: queued, running, done (with counts) or failed (with the reason)."""

    id: str
    kind: str
    thread_id: str | None = None
    status: str
    counts: dict[str, int] | None = None
    error: str | None = None
    created_at: str
    updated_at: str
    started_at: str | None = None
    finished_at: str | None = None


class ConsolidatedOut(OutModel):
    """What consolidation did."""

    consolidated: int
    created: int
    updated: int


class InsightOut(OutModel):
    """An insight extracted from a message."""

    id: str
    thread_id: str
    type: InsightType
    content: str
    confidence: float
    extractor: str
    extracted_at: str | None = None
    message_id: str | None = None
    knowledge_ids: list[str] = Field(default_factory=list)
    score: float | None = None


class InsightPageOut(OutModel):
    """A page of insights, newest first."""

    items: list[InsightOut]
    next_cursor: str | None = None


class UserContextIn(CamelModel):
    """What the agent is working on now."""

    query: str = Field(min_length=1, max_length=4_000)
    limit: int = Field(default=10, ge=1, le=100)
    topics: int = Field(default=5, ge=0, le=50)


class TopicOut(OutModel):
    """A recent thread's topic."""

    thread_id: str
    topic: str
    context_type: str
    updated_at: str


class UserContextOut(OutModel):
    """Relevant insights from any thread, and the topics of the latest threads."""

    insights: list[InsightOut]
    recent_topics: list[TopicOut]


async def _start(kind: str, thread_id: str, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    job_id = await services.insights.start_job(principal, thread_id, kind)
    return JSONResponse(dump(JobStarted(job_id=job_id)), status_code=202)


@router.post("/threads/{id}/extract", status_code=202, response_model=JobStarted)
async def extract(id: str, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """Start insight extraction for the thread."""
    return await _start("extract", id, principal, services)


@router.post("/threads/{id}/feedback-loop", status_code=202, response_model=JobStarted)
async def feedback_loop(id: str, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """Start extract → validate (> 0.7) → update-or-create knowledge for the thread."""
    return await _start("feedback-loop", id, principal, services)


@router.post("/threads/{id}/consolidate", response_model=ConsolidatedOut)
async def consolidate(id: str, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """High-confidence (> 0.8) insights of the thread become permanent knowledge."""
    counts = await services.insights.consolidate(principal, id)
    return JSONResponse(dump(ConsolidatedOut.model_validate(counts)))


@router.get("/jobs/{id}", response_model=JobOut)
async def job(id: str, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """A job's status."""
    return JSONResponse(dump(JobOut.model_validate(await services.insights.job(principal, id))))


@router.get("/insights", response_model=InsightPageOut)
async def list_insights(
    principal: PrincipalDep,
    services: ServicesDep,
    thread_id: Annotated[str | None, Query(alias="threadId")] = None,
    type: InsightType | None = None,  # noqa: A002
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: str | None = None,
) -> JSONResponse:
    """The caller's insights, newest first."""
    items, next_cursor = await services.insights.list_insights(
        principal, thread_id=thread_id, insight_type=type.value if type else None, limit=limit, cursor=cursor
    )
    return JSONResponse(dump(InsightPageOut.model_validate({"items": items, "nextCursor": next_cursor})))


@router.post("/context/user", response_model=UserContextOut)
async def user_context(body: UserContextIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Cross-session recall: insights relevant to the query, and recent thread topics."""
    result: dict[str, Any] = await services.insights.recall(
        principal, body.query, limit=body.limit, topics=body.topics
    )
    return JSONResponse(dump(UserContextOut.model_validate(result)))
