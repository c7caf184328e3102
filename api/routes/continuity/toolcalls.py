"""Each session's tool-call log: appended as an agent works, replayed in the order recorded."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from api.dto.continuity import tool_call
from api.pages import PagesDep
from api.routes.continuity.sessions import SessionId
from ctxnet.wire.base import dump
from ctxnet.wire.continuity.sessions import (
    ReplayOut,
    ToolCallsIn,
    ToolCallsOut,
)
from ctxnet.wire.cursors import SEQUENCE, SequenceCursor
from ctxnet.wire.errors import BODY, answers

router = APIRouter()


@router.post(
    "/sessions/{id}/tool-calls",
    status_code=201,
    response_model=ToolCallsOut,
    responses=answers(404, 409, *BODY, also=(200, "every call was a repeat of its position", ToolCallsOut)),
)
async def record_tool_calls(
    id: SessionId,  # noqa: A002 - the API's name
    body: ToolCallsIn,
    principal: PrincipalDep,
    services: ServicesDep,
) -> JSONResponse:
    """Append tool calls to a session's log (up to 500, in the order made). Arguments are
    stored as given, at most 16 KiB of JSON each, and never executed. With `position`s, a
    call the log already holds at its position is a repeat (skipped; another tool there is a
    409), and positions must follow the log's order: a position past the log's end, or one
    that does not follow the call before it, is a 409 (`items.<i>.position`)."""
    added = await services.tool_calls.append(principal, id, [tool_call(item) for item in body.items])
    status = 201 if added["appended"] else 200
    return JSONResponse(dump(ToolCallsOut.model_validate(added)), status_code=status)


@router.get(
    "/sessions/{id}/replay",
    response_model=ReplayOut,
    response_model_by_alias=True,
    responses=answers(404, 422),
)
async def replay_session(
    id: SessionId,  # noqa: A002 - the API's name
    principal: PrincipalDep,
    pages: PagesDep,
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=1_000)] = 200,
    cursor: SequenceCursor | None = None,
) -> JSONResponse:
    """What an agent did in a session: its tool calls in the order they were recorded (not
    what it wrote; that is the journal, `GET /v1/mutations?sessionId=`)."""
    items, next_cursor = await pages.fit(
        limit, lambda n: services.tool_calls.replay(principal, id, limit=n, cursor=cursor)
    )
    out = ReplayOut.model_validate(
        {"sessionId": id, "items": items, "nextCursor": SEQUENCE.wire(next_cursor)}
    )
    return JSONResponse(dump(out))
