"""Sessions: the agents and their configuration (from the agents YAML file), sessions
(started, ended with a summary, chained per agent and user), their pending actions, and the
context bridge a session starts with."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from api.dto.continuity import new_session, session_end
from api.pages import PagesDep
from ctxnet.wire.base import Id, dump
from ctxnet.wire.continuity.bridge import AgentListOut, AgentOut, BridgeConfigOut, BridgeIn, BridgeOut
from ctxnet.wire.continuity.pending import CarryIn, PendingActionListOut, PendingActionOut, ResolutionIn
from ctxnet.wire.continuity.sessions import (
    SessionEndedOut,
    SessionEndIn,
    SessionIn,
    SessionOut,
    SessionPageOut,
    SessionStartedOut,
)
from ctxnet.wire.cursors import PENDING, TIMED, PendingCursor, TimedCursor
from ctxnet.wire.errors import BODY, answers
from graph.core.values import check_id

router = APIRouter()


AgentId = Annotated[Id, Path(description="The agent's id (as on its API keys).")]


@router.get("/agents", response_model=AgentListOut, response_model_by_alias=True)
async def list_agents(services: ServicesDep) -> AgentListOut:
    """The agents the file names, in its order, and the defaults every other agent gets."""
    agents = services.agents
    return AgentListOut(
        items=[AgentOut.model_validate(a.model_dump()) for a in agents.configured()],
        defaults=BridgeConfigOut.model_validate(agents.config().defaults.context_bridge.model_dump()),
    )


@router.get("/agents/{id}", response_model=AgentOut, response_model_by_alias=True)
async def get_agent(id: AgentId, services: ServicesDep) -> AgentOut:  # noqa: A002 - the API's name
    """An agent's configuration: its entry in the file, or the defaults (`configured: false`)."""
    return AgentOut.model_validate(services.agents.get(check_id(id)).model_dump())


SessionId = Annotated[Id, Path(description="The session's id.")]


@router.post(
    "/sessions",
    status_code=201,
    response_model=SessionStartedOut,
    responses=answers(
        403, 404, 409, *BODY, also=(200, "the id existed already with the same request", SessionStartedOut)
    ),
)
async def start_session(body: SessionIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Start a session of an agent (the key's, unless `agentId` names one) with you; it follows
    that agent's previous session with you. The answer carries the session's context bridge,
    assembled for its topic and opening message (see `POST /v1/context/bridge`). 404 names
    `threadId` if that thread is not yours. A person's key names the agent the session is
    for: without `agentId` it is a 403 (`agentId`), as what a request needs depends on its
    key."""
    session, created = await services.sessions.start(principal, new_session(body))
    opening = " ".join(t for t in (session.get("topic"), session.get("openingMessage")) if t)
    bridge = await services.bridge.assemble(principal, agent_id=session["agentId"], topic=opening or None)
    out = SessionStartedOut.model_validate({"session": session, "bridge": bridge})
    return JSONResponse(dump(out), status_code=201 if created else 200)


@router.post(
    "/sessions/{id}/end",
    response_model=SessionEndedOut,
    responses=answers(404, 409, *BODY),
)
async def end_session(
    id: SessionId,  # noqa: A002 - the API's name
    body: SessionEndIn,
    principal: PrincipalDep,
    services: ServicesDep,
) -> JSONResponse:
    """End a session with its summary; its pending actions stay open until resolved. The same
    end repeated answers the same; another end of an ended session is a 409."""
    session, _ = await services.sessions.end(principal, id, session_end(body))
    out = SessionEndedOut.model_validate({"session": session, "pendingActions": session["pendingActions"]})
    return JSONResponse(dump(out))


@router.get("/sessions", response_model=SessionPageOut, response_model_by_alias=True)
async def list_sessions(
    principal: PrincipalDep,
    pages: PagesDep,
    services: ServicesDep,
    agent_id: Annotated[Id | None, Query(alias="agentId")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: TimedCursor | None = None,
) -> JSONResponse:
    """Your sessions (one agent's, with `agentId`), newest first."""
    items, next_cursor = await pages.fit(
        limit, lambda n: services.sessions.list_sessions(principal, agent_id=agent_id, limit=n, cursor=cursor)
    )
    return JSONResponse(
        dump(SessionPageOut.model_validate({"items": items, "nextCursor": TIMED.wire(next_cursor)}))
    )


@router.get("/sessions/{id}", response_model=SessionOut, responses=answers(404))
async def get_session(id: SessionId, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """One of your sessions, with the pending actions it left open."""
    return JSONResponse(dump(SessionOut.model_validate(await services.sessions.get(principal, id))))


ActionId = Annotated[Id, Path(description="The pending action's id.")]


@router.get("/pending-actions", response_model=PendingActionListOut, response_model_by_alias=True)
async def list_pending_actions(
    principal: PrincipalDep,
    pages: PagesDep,
    services: ServicesDep,
    status: Literal["open", "done"] = "open",
    agent_id: Annotated[Id | None, Query(alias="agentId")] = None,
    limit: Annotated[int, Query(ge=1, le=1_000)] = 200,
    cursor: PendingCursor | None = None,
) -> JSONResponse:
    """Your pending actions (open ones unless `status=done`), oldest first, a page at a time,
    each with the session it came from and the one it belongs to now."""
    items, next_cursor = await pages.fit(limit, lambda n: services.pending_actions.list_actions(
        principal, status=status, agent_id=agent_id, limit=n, cursor=cursor
    ))  # fmt: skip
    page = {"items": items, "nextCursor": PENDING.wire(next_cursor)}
    return JSONResponse(dump(PendingActionListOut.model_validate(page)))


@router.post(
    "/pending-actions/{id}/ack",
    response_model=PendingActionOut,
    responses=answers(404, 409, *BODY),
)
async def acknowledge_pending_action(
    id: ActionId,  # noqa: A002 - the API's name
    body: ResolutionIn,
    principal: PrincipalDep,
    services: ServicesDep,
) -> JSONResponse:
    """Acknowledge and clear it with its resolution (the same again answers the same)."""
    action = await services.pending_actions.resolve(principal, id, body.resolution)
    return JSONResponse(dump(PendingActionOut.model_validate(action)))


@router.post(
    "/pending-actions/{id}/carry",
    response_model=PendingActionOut,
    responses=answers(404, 409, *BODY),
)
async def carry_pending_action(
    id: ActionId,  # noqa: A002 - the API's name
    body: CarryIn,
    principal: PrincipalDep,
    services: ServicesDep,
) -> JSONResponse:
    """Carry it forward into an open session of yours: it belongs to that session from now
    on, and `carriedCount` goes up by one."""
    action = await services.pending_actions.carry(principal, id, body.session_id)
    return JSONResponse(dump(PendingActionOut.model_validate(action)))


@router.post("/context/bridge", response_model=BridgeOut, responses=answers(403, *BODY))
async def preview_bridge(body: BridgeIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """The context bridge a session of the agent would get now: its last sessions with you
    (newest first), every open pending action, memory on `topic`, and your profile, as one
    markdown block within the token budget and as sections; `dropped` lists what did not fit.
    Writes nothing. A person's key names the agent (`agentId`), else a 403 on `agentId`; an
    agent's key defaults to its agent."""
    bridge = await services.bridge.assemble(
        principal, agent_id=body.agent_id, topic=body.topic, token_budget=body.token_budget
    )
    return JSONResponse(dump(BridgeOut.model_validate(bridge)))
