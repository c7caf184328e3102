"""The service itself: liveness and readiness (no key needed), who the caller is, and the limits
requests are held to."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from api.pages import PagesDep
from ctxnet.wire.base import DateTime, Id, dump
from ctxnet.wire.core import LimitsOut, MutationPageOut, NotReadyOut, PrincipalOut, ReadyOut
from ctxnet.wire.cursors import JOURNAL, JournalCursor
from ctxnet.wire.limits import ServerLimits
from graph.core import journal
from graph.core.embeddings import embedder_dimension
from graph.core.errors import DatabaseUnavailable
from graph.core.principals import Role, Scope
from graph.core.schema import check_schema
from graph.core.settings import Settings

#: Outside ``/v1``: load balancers and orchestrators call these without a key.
public = APIRouter(tags=["health"])
#: Inside ``/v1``.
router = APIRouter(tags=["principals"])

READY_TIMEOUT_SECONDS = 5.0


@public.get("/health", summary="Liveness: the process is up")
async def health() -> dict[str, str]:
    """Always 200 while the process serves requests."""
    return {"status": "ok"}


@public.get(
    "/ready",
    summary="Readiness: Neo4j reachable, schema applied, vector indexes sized for the embedder",
    response_model=ReadyOut,
    responses={503: {"model": NotReadyOut, "description": "not ready; `reason` says why"}},
)
async def ready(services: ServicesDep) -> ReadyOut | JSONResponse:
    """200 when requests can be served; 503 with the reason otherwise."""
    dimension = services.embedder.dimension
    try:
        async with asyncio.timeout(READY_TIMEOUT_SECONDS):
            await services.db.ping()
            report = await check_schema(services.db, dimension)
    except (DatabaseUnavailable, TimeoutError) as exc:
        reason = exc.message if isinstance(exc, DatabaseUnavailable) else "Neo4j did not answer in time"
        if isinstance(exc, TimeoutError):
            # On a cluster the schema's reads wait on the process's bookmarks, and after a
            # restore on ones the database never reaches, for longer than this deadline
            # (Neo4j's bookmark_ready_timeout): cut short, they would never be forgotten.
            services.db.forget_bookmarks()
        # Only the reason: where Neo4j runs is the operator's business (it is in the log).
        return _not_ready(NotReadyOut(status="unavailable", reason=reason))
    settings = services.settings
    answer = ReadyOut(
        status="ready",
        neo4j=settings.resolved_neo4j_uri,
        database=settings.neo4j_database,
        embedder=services.embedder.model_id,
        dimension=dimension,
    )
    if not report.ok:
        problems = {"status": "unavailable", "reason": "; ".join(report.problems)}
        return _not_ready(NotReadyOut.model_validate(answer.model_dump() | problems))
    return answer


def _not_ready(body: NotReadyOut) -> JSONResponse:
    """The 503 answer, with only the fields that were set."""
    return JSONResponse(body.model_dump(mode="json", exclude_unset=True), status_code=503)


@router.get("/me", response_model=PrincipalOut, response_model_by_alias=True)
async def me(principal: PrincipalDep) -> PrincipalOut:
    """The user, role and agent behind the presented key."""
    return PrincipalOut(
        user_id=principal.user_id,
        role=principal.role.value,
        agent_id=principal.agent_id,
        key_id=principal.key_id,
        scope=Scope.of(principal.scope),
    )


def server_limits(settings: Settings) -> ServerLimits:
    """The limits these settings decide: a note's words, and the vector size (the embedder's)."""
    return ServerLimits(note_max_words=settings.note_max_words, vector_size=embedder_dimension(settings))


@router.get("/limits", response_model=LimitsOut, response_model_by_alias=True)
async def limits(services: ServicesDep) -> LimitsOut:
    """The limits this server holds requests to: the words of a note and the size of a vector
    (its settings decide them), and the contract's batch sizes and lengths. A client checks
    against these rather than its own environment's; any key may read them."""
    return LimitsOut.of(server_limits(services.settings))


@router.get("/mutations", response_model=MutationPageOut, response_model_by_alias=True, tags=["journal"])
async def list_mutations(
    principal: PrincipalDep,
    pages: PagesDep,
    services: ServicesDep,
    since: Annotated[DateTime | None, Query(description="Only changes at or after this time.")] = None,
    target_id: Annotated[str | None, Query(alias="targetId", max_length=128)] = None,
    actor_role: Annotated[Literal["human", "agent", "system"] | None, Query(alias="actorRole")] = None,
    session_id: Annotated[Id | None, Query(alias="sessionId")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: JournalCursor | None = None,
) -> JSONResponse:
    """The journal of your memory, newest first: who changed what, when, in which session
    (`X-Session-ID`), with the fields before and after. Every write records its mutations
    in its own transaction (a batch one per note or edge, numbered by `part`): notes,
    merges, edges, threads, messages, insights and their consolidation, the profile,
    sessions, pending actions, corrections, proposals and undo. `targetId` gives one thing's
    history (an edge's id is `"<sourceId> <type> <targetId>"`)."""
    items, next_cursor = await pages.fit(limit, lambda n: journal.list_mutations(
        services.db, principal, since=since.isoformat() if since else None, target_id=target_id,
        role=Role(actor_role) if actor_role else None, session_id=session_id, limit=n, cursor=cursor,
    ))  # fmt: skip
    return JSONResponse(
        dump(MutationPageOut.model_validate({"items": items, "nextCursor": JOURNAL.wire(next_cursor)}))
    )
