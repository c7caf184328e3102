"""Conversation threads and their messages."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from api.dto import (
    MessagePageOut,
    MessagesIn,
    ThreadIn,
    ThreadLinkIn,
    ThreadOut,
    ThreadPageOut,
    dump,
)
from graph.conversations import ContextType

router = APIRouter(tags=["conversations"])


@router.post("/threads", status_code=201, response_model=ThreadOut)
async def create_thread(body: ThreadIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Create a thread (200 with the thread when the id exists already)."""
    thread, created = await services.conversations.create_thread(
        principal, thread_id=body.id, context_type=body.context_type, topic=body.topic
    )
    return JSONResponse(dump(ThreadOut.model_validate(thread)), status_code=201 if created else 200)


@router.get("/threads", response_model=ThreadPageOut)
async def list_threads(
    principal: PrincipalDep,
    services: ServicesDep,
    context_type: Annotated[ContextType | None, Query(alias="contextType")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: str | None = None,
) -> JSONResponse:
    """The caller's threads, most recently active first."""
    items, next_cursor = await services.conversations.list_threads(
        principal, context_type=context_type, limit=limit, cursor=cursor
    )
    return JSONResponse(dump(ThreadPageOut.model_validate({"items": items, "nextCursor": next_cursor})))


@router.get("/threads/{id}", response_model=ThreadOut)
async def get_thread(id: str, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """One thread, with the ids of its related threads."""
    thread = await services.conversations.get_thread(principal, id)
    return JSONResponse(dump(ThreadOut.model_validate(thread)))


@router.post("/threads/{id}/links", status_code=204)
async def link_threads(
    id: str, body: ThreadLinkIn, principal: PrincipalDep, services: ServicesDep
) -> Response:  # noqa: A002
    """Relate two threads."""
    await services.conversations.link(principal, id, body.thread_id)
    return Response(status_code=204)


@router.delete("/threads/{id}/links/{other_id}", status_code=204)
async def unlink_threads(id: str, other_id: str, principal: PrincipalDep, services: ServicesDep) -> Response:  # noqa: A002
    """Remove the relation between two threads."""
    await services.conversations.link(principal, id, other_id, remove=True)
    return Response(status_code=204)


@router.post("/threads/{id}/messages", status_code=201, response_model=MessagePageOut)
async def append_messages(
    id: str, body: MessagesIn, principal: PrincipalDep, services: ServicesDep
) -> JSONResponse:  # noqa: A002
    """Append messages in order (idempotent by message id) → the messages as stored."""
    items = await services.conversations.append(principal, id, [m.to_domain() for m in body.messages])
    return JSONResponse(dump(MessagePageOut.model_validate({"items": items})), status_code=201)


@router.get("/threads/{id}/messages", response_model=MessagePageOut)
async def list_messages(
    id: str,  # noqa: A002
    principal: PrincipalDep,
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    cursor: str | None = None,
) -> JSONResponse:
    """The thread's messages in order."""
    items, next_cursor = await services.conversations.list_messages(principal, id, limit=limit, cursor=cursor)
    return JSONResponse(dump(MessagePageOut.model_validate({"items": items, "nextCursor": next_cursor})))
