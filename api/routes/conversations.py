"""Conversation memory: threads and their messages, insight extraction jobs, the feedback
loop, consolidation, and cross-session recall."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from fastapi.responses import JSONResponse

from api.deps import ConversationsDep, PrincipalDep
from api.dto.conversations import new_message, recorded_insight
from api.pages import PagesDep
from ctxnet.wire.base import Id, dump
from ctxnet.wire.conversations import (
    ConsolidatedOut,
    InsightPageOut,
    InsightsIn,
    InsightsRecordedOut,
    JobOut,
    JobStarted,
    MessagePageOut,
    MessagesIn,
    ThreadIn,
    ThreadLinkIn,
    ThreadOut,
    ThreadPageOut,
    UserContextIn,
    UserContextOut,
)
from ctxnet.wire.cursors import SEQUENCE, TIMED, SequenceCursor, TimedCursor
from ctxnet.wire.errors import BODY, answers
from graph.conversations.models import ContextType, InsightType

router = APIRouter(tags=["conversations"], responses=answers(403))


@router.post(
    "/threads",
    status_code=201,
    response_model=ThreadOut,
    responses=answers(409, *BODY, also=(200, "the thread existed already, as asked", ThreadOut)),
)
async def create_thread(
    body: ThreadIn, principal: PrincipalDep, conversations: ConversationsDep
) -> JSONResponse:
    """Create a thread (200 with the thread when the id exists already)."""
    thread, created = await conversations.threads.create_thread(
        principal, thread_id=body.id, context_type=body.context_type, topic=body.topic
    )
    return JSONResponse(dump(ThreadOut.model_validate(thread)), status_code=201 if created else 200)


@router.get("/threads", response_model=ThreadPageOut)
async def list_threads(
    principal: PrincipalDep,
    pages: PagesDep,
    conversations: ConversationsDep,
    context_type: Annotated[ContextType | None, Query(alias="contextType")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: TimedCursor | None = None,
) -> JSONResponse:
    """The caller's threads, most recently active first."""
    items, next_cursor = await pages.fit(
        limit,
        lambda n: conversations.threads.list_threads(
            principal, context_type=context_type, limit=n, cursor=cursor
        ),
    )
    return JSONResponse(
        dump(ThreadPageOut.model_validate({"items": items, "nextCursor": TIMED.wire(next_cursor)}))
    )


@router.get("/threads/{id}", response_model=ThreadOut, responses=answers(404))
async def get_thread(id: Id, principal: PrincipalDep, conversations: ConversationsDep) -> JSONResponse:  # noqa: A002
    """One thread, with the ids of its related threads."""
    thread = await conversations.threads.get_thread(principal, id)
    return JSONResponse(dump(ThreadOut.model_validate(thread)))


@router.post("/threads/{id}/links", status_code=204, responses=answers(404, 409, *BODY))
async def link_threads(
    id: Id, body: ThreadLinkIn, principal: PrincipalDep, conversations: ConversationsDep
) -> Response:  # noqa: A002
    """Relate two threads. A thread linked to itself is a 409 (`threadId`): the request
    names the thread it conflicts with."""
    await conversations.threads.link(principal, id, body.thread_id)
    return Response(status_code=204)


@router.delete("/threads/{id}/links/{other_id}", status_code=204, responses=answers(404, 409))
async def unlink_threads(
    id: Id, other_id: Id, principal: PrincipalDep, conversations: ConversationsDep
) -> Response:  # noqa: A002
    """Remove the relation between two threads; a thread unlinked from itself is a 409
    (`threadId`), as linking it is."""
    await conversations.threads.link(principal, id, other_id, remove=True)
    return Response(status_code=204)


@router.post(
    "/threads/{id}/messages",
    status_code=201,
    response_model=MessagePageOut,
    responses=answers(404, 409, *BODY),
)
async def append_messages(
    id: Id, body: MessagesIn, principal: PrincipalDep, conversations: ConversationsDep
) -> JSONResponse:  # noqa: A002
    """Append messages in order → the messages as stored, each once. Idempotent by message
    id: an id the thread holds, or one listed earlier in the same append, is skipped when
    its role and content are the same, and a 409 (`messages.<i>.id`) when they differ."""
    items = await conversations.threads.append(principal, id, [new_message(m) for m in body.messages])
    return JSONResponse(dump(MessagePageOut.model_validate({"items": items})), status_code=201)


@router.get("/threads/{id}/messages", response_model=MessagePageOut, responses=answers(404))
async def list_messages(
    id: Id,  # noqa: A002
    principal: PrincipalDep,
    pages: PagesDep,
    conversations: ConversationsDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    cursor: SequenceCursor | None = None,
) -> JSONResponse:
    """The thread's messages in order."""
    items, next_cursor = await pages.fit(
        limit, lambda n: conversations.threads.list_messages(principal, id, limit=n, cursor=cursor)
    )
    return JSONResponse(
        dump(MessagePageOut.model_validate({"items": items, "nextCursor": SEQUENCE.wire(next_cursor)}))
    )


async def _start(
    kind: str, thread_id: str, principal: PrincipalDep, conversations: ConversationsDep
) -> JSONResponse:
    job_id = await conversations.insights.start_job(principal, thread_id, kind)
    return JSONResponse(dump(JobStarted(job_id=job_id)), status_code=202)


@router.post("/threads/{id}/extract", status_code=202, response_model=JobStarted, responses=answers(404))
async def extract(id: Id, principal: PrincipalDep, conversations: ConversationsDep) -> JSONResponse:  # noqa: A002
    """Start insight extraction for the thread."""
    return await _start("extract", id, principal, conversations)


@router.post(
    "/threads/{id}/feedback-loop", status_code=202, response_model=JobStarted, responses=answers(404)
)
async def feedback_loop(id: Id, principal: PrincipalDep, conversations: ConversationsDep) -> JSONResponse:  # noqa: A002
    """Start extract → validate (> 0.7) → update-or-create knowledge for the thread."""
    return await _start("feedback-loop", id, principal, conversations)


@router.post("/threads/{id}/consolidate", response_model=ConsolidatedOut, responses=answers(404, 502))
async def consolidate(id: Id, principal: PrincipalDep, conversations: ConversationsDep) -> JSONResponse:  # noqa: A002
    """High-confidence (> 0.8) insights of the thread become permanent knowledge."""
    counts = await conversations.insights.consolidate(principal, id)
    return JSONResponse(dump(ConsolidatedOut.model_validate(counts)))


@router.post(
    "/threads/{id}/insights",
    status_code=201,
    response_model=InsightsRecordedOut,
    responses=answers(
        404, 409, *BODY, also=(200, "every insight was recorded before: nothing changed", InsightsRecordedOut)
    ),
)
async def record_insights(
    id: Id,  # noqa: A002
    body: InsightsIn,
    principal: PrincipalDep,
    conversations: ConversationsDep,
) -> JSONResponse:
    """Record insights found outside the service (your own extractor, or an export read back)
    as extraction stores them: keyed by message, type and content (sending one again changes
    nothing), embedded unless a vector is given → 201 when any is new, else 200. An item
    repeating an earlier one of the same request (the same message, type and content) folds
    into it as a later request's repeat would: one insight, answered for both items (the
    repeat with `created` false), its notes linked too. 409 for an id the user's insights,
    or another item, hold with other message, type or content, and for one insight given two
    ids."""
    recorded = await conversations.insights.record(principal, id, [recorded_insight(i) for i in body.items])
    items = [{**insight, "created": created} for insight, created in recorded]
    status = 201 if any(created for _, created in recorded) else 200
    return JSONResponse(dump(InsightsRecordedOut.model_validate({"items": items})), status_code=status)


@router.get("/jobs/{id}", response_model=JobOut, responses=answers(404))
async def job(id: Id, principal: PrincipalDep, conversations: ConversationsDep) -> JSONResponse:  # noqa: A002
    """A job's status."""
    return JSONResponse(dump(JobOut.model_validate(await conversations.jobs.get(principal, id))))


@router.get("/insights", response_model=InsightPageOut)
async def list_insights(
    principal: PrincipalDep,
    pages: PagesDep,
    conversations: ConversationsDep,
    thread_id: Annotated[Id | None, Query(alias="threadId")] = None,
    type: InsightType | None = None,  # noqa: A002
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: str | None = None,
) -> JSONResponse:
    """The caller's insights, newest first."""
    items, next_cursor = await pages.fit(limit, lambda n: conversations.insights.list_insights(
        principal, thread_id=thread_id, insight_type=type.value if type else None, limit=n, cursor=cursor
    ))  # fmt: skip
    return JSONResponse(dump(InsightPageOut.model_validate({"items": items, "nextCursor": next_cursor})))


@router.post("/context/user", response_model=UserContextOut, responses=answers(502, *BODY))
async def user_context(
    body: UserContextIn, principal: PrincipalDep, conversations: ConversationsDep
) -> JSONResponse:
    """Cross-session recall: insights relevant to the query, and recent thread topics."""
    result: dict[str, Any] = await conversations.insights.recall(
        principal, body.query, limit=body.limit, topics=body.topics
    )
    return JSONResponse(dump(UserContextOut.model_validate(result)))
