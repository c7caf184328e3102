"""Project context (decisions with their supersession chains; the instructions an agent
gets now, exactly as it gets them) and sessions (an agent's sessions, their summaries and
pending actions, and the context bridge it would get now)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse

from api.desk.base import Desk, DeskDep, DeskRoute
from graph.core.errors import InvalidInput
from graph.core.values import check_id
from graph.project.models import ProjectKind

router = APIRouter(prefix="/desk", include_in_schema=False, route_class=DeskRoute)

#: Decisions, sessions and pending actions one page shows; agents whose instructions the
#: whole user's view shows (pick an agent's view for one).
DECISIONS = 100
SESSIONS = 25
ACTIONS = 100
INSTRUCTED = 4
#: The token budget the instructions are shown within: the API's default.
INSTRUCTIONS_BUDGET = 2_000


def chains(decisions: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Decisions grouped into supersession chains, each oldest first (the one standing last);
    a decision nothing supersedes and that supersedes nothing is a chain of one."""
    by_id = {d["id"]: d for d in decisions}
    heads = [d for d in decisions if not any(s in by_id for s in d.get("supersedes") or [])]
    seen: set[str] = set()
    out: list[list[dict[str, Any]]] = []
    for head in heads:
        chain: list[dict[str, Any]] = []
        current: dict[str, Any] | None = head
        while current is not None and current["id"] not in seen:
            seen.add(current["id"])
            chain.append(current)
            current = next((by_id[n] for n in current.get("supersededBy") or [] if n in by_id), None)
        out.append(chain)
    out += [[d] for d in decisions if d["id"] not in seen]  # a cycle a page cut: still shown
    return out


async def _instructions(desk: Desk, agents: list[str]) -> list[dict[str, Any]]:
    return list(await asyncio.gather(*(_instructed(desk, a) for a in agents)))


async def _instructed(desk: Desk, agent: str) -> dict[str, Any]:
    """What ``agent`` is instructed now, or why that does not fit the budget (base
    instructions an agent stored past it): said on the page, not a page that fails."""
    try:
        return await desk.services.agent_docs.instructions(desk.principal, agent, INSTRUCTIONS_BUDGET)
    except InvalidInput as exc:
        return {"agentId": agent, "refused": exc.message}


@router.get("/project")
async def project(desk: DeskDep) -> HTMLResponse:
    """Decisions (an agent's view: those that affect it) and the instructions agents get."""
    decisions, _ = await desk.services.project.list_entries(
        desk.principal, ProjectKind.DECISION, agent_id=desk.agent, limit=DECISIONS
    )
    agents = [desk.agent] if desk.agent else (await desk.agents())[:INSTRUCTED]
    instructions = await _instructions(desk, agents)
    return await desk.page("project.html", chains=chains(decisions), instructions=instructions)


@router.get("/sessions")
async def sessions(
    desk: DeskDep, session: Annotated[str | None, Query(max_length=128)] = None
) -> HTMLResponse:
    """Sessions newest first, open pending actions, and the bridge the view's agent would get."""
    services = desk.services
    listed, actions = await asyncio.gather(
        services.sessions.list_sessions(desk.principal, agent_id=desk.agent, limit=SESSIONS),
        services.pending_actions.list_actions(
            desk.principal, status="open", agent_id=desk.agent, limit=ACTIONS
        ),
    )
    chosen = await services.sessions.get(desk.principal, check_id(session, "session")) if session else None
    if chosen is not None and not desk.in_view(chosen):
        chosen = None
    bridge = await services.bridge.assemble(desk.principal, agent_id=desk.agent) if desk.agent else None
    return await desk.page(
        "sessions.html", sessions=listed[0], actions=actions[0], chosen=chosen, bridge=bridge
    )
