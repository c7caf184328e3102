"""Session continuity: the agents and their configuration (from the agents YAML file),
sessions (started, ended with a summary, chained per agent and user), their pending
actions, the context bridge a session starts with, the user profile, the goal stack,
skills, each session's tool-call log and its replay, and saved sessions (the wiki)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse

from api.deps import UNSCOPED, PrincipalDep, ServicesDep
from api.dto.base import dump
from api.dto.continuity import (
    AgentListOut,
    AgentOut,
    BridgeConfigOut,
    BridgeIn,
    BridgeOut,
    BriefIn,
    BriefOut,
    CarryIn,
    CatchUpIn,
    CatchUpOut,
    GoalAbandonIn,
    GoalCloseIn,
    GoalIn,
    GoalOut,
    GoalPageOut,
    OrientIn,
    OrientOut,
    PendingActionListOut,
    PendingActionOut,
    ProfileIn,
    ProfileOut,
    ProfilePatchIn,
    PromoteIn,
    ReplayOut,
    ResolutionIn,
    SessionEndedOut,
    SessionEndIn,
    SessionIn,
    SessionOut,
    SessionPageOut,
    SessionSaveIn,
    SessionStartedOut,
    SkillIn,
    SkillOut,
    SkillPageOut,
    SkillWrittenOut,
    ToolCallsIn,
    ToolCallsOut,
    WikiPageListOut,
    WikiPageOut,
    WikiSavedOut,
)
from api.dto.errors import BODY, answers
from api.dto.knowledge import ProposedOut
from api.routes.knowledge import proposed
from graph.core.values import check_id
from graph.knowledge.models import Proposed

router = APIRouter(tags=["continuity"])

AgentId = Annotated[str, Path(description="The agent's id (as on its API keys).")]


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


SessionId = Annotated[str, Path(description="The session's id.")]


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
    `threadId` if that thread is not yours."""
    session, created = await services.sessions.start(principal, body.to_domain())
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
    session, _ = await services.sessions.end(principal, id, body.to_domain())
    out = SessionEndedOut.model_validate({"session": session, "pendingActions": session["pendingActions"]})
    return JSONResponse(dump(out))


@router.get("/sessions", response_model=SessionPageOut, response_model_by_alias=True)
async def list_sessions(
    principal: PrincipalDep,
    services: ServicesDep,
    agent_id: Annotated[str | None, Query(alias="agentId")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: str | None = None,
) -> JSONResponse:
    """Your sessions (one agent's, with `agentId`), newest first."""
    items, next_cursor = await services.sessions.list_sessions(
        principal, agent_id=agent_id, limit=limit, cursor=cursor
    )
    return JSONResponse(dump(SessionPageOut.model_validate({"items": items, "nextCursor": next_cursor})))


@router.get("/sessions/{id}", response_model=SessionOut, responses=answers(404))
async def get_session(id: SessionId, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """One of your sessions, with the pending actions it left open."""
    return JSONResponse(dump(SessionOut.model_validate(await services.sessions.get(principal, id))))


ActionId = Annotated[str, Path(description="The pending action's id.")]


@router.get("/pending-actions", response_model=PendingActionListOut, response_model_by_alias=True)
async def list_pending_actions(
    principal: PrincipalDep,
    services: ServicesDep,
    status: Literal["open", "done"] = "open",
    agent_id: Annotated[str | None, Query(alias="agentId")] = None,
    limit: Annotated[int, Query(ge=1, le=1_000)] = 200,
) -> JSONResponse:
    """Your pending actions (open ones unless `status=done`), oldest first, each with the
    session it came from and the one it belongs to now."""
    items = await services.pending_actions.list_actions(
        principal, status=status, agent_id=agent_id, limit=limit
    )
    return JSONResponse(dump(PendingActionListOut.model_validate({"items": items})))


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
    Writes nothing."""
    bridge = await services.bridge.assemble(
        principal, agent_id=body.agent_id, topic=body.topic, token_budget=body.token_budget
    )
    return JSONResponse(dump(BridgeOut.model_validate(bridge)))


@router.get(
    "/profile",
    response_model=ProfileOut,
    response_model_by_alias=True,
    dependencies=[UNSCOPED],
    responses=answers(403),
)
async def get_profile(principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Your profile: preferences, background, and where each preference came from."""
    return JSONResponse(dump(ProfileOut.model_validate(await services.profile.get(principal))))


#: The 202 of an agent's profile write over a person's word.
PROFILE_PROPOSED = (
    "not applied: it would change a preference or background a person wrote or corrected, or bring "
    "back one a person removed, so it waits as a proposal"
)
_PROFILE_WRITE = answers(403, *BODY, also=(202, PROFILE_PROPOSED, ProposedOut))


def _profile_answer(result: dict[str, Any] | Proposed) -> JSONResponse:
    """The profile as written, or the 202 of the proposal it became."""
    if isinstance(result, Proposed):
        return proposed(result.proposal)
    return JSONResponse(dump(ProfileOut.model_validate(result)))


@router.put("/profile", response_model=ProfileOut, dependencies=[UNSCOPED], responses=_PROFILE_WRITE)
async def replace_profile(body: ProfileIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Replace your whole profile (journaled with who made the change). An agent's replace
    that would change or remove what a person wrote waits as a proposal (202)."""
    return _profile_answer(await services.profile.replace(principal, body.preferences, body.background))


@router.patch("/profile", response_model=ProfileOut, dependencies=[UNSCOPED], responses=_PROFILE_WRITE)
async def patch_profile(body: ProfilePatchIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Change part of your profile: preferences given are set (`null` removes one), the
    background changes only if given (`null` clears it). Journaled with who made it. An
    agent's patch of a preference or background a person wrote or corrected, or of one a
    person removed, waits as a proposal (202)."""
    return _profile_answer(
        await services.profile.patch(
            principal,
            body.preferences,
            body.background,
            background_given="background" in body.model_fields_set,
        )
    )


@router.post(
    "/profile/promote",
    response_model=ProfileOut,
    dependencies=[UNSCOPED],
    responses=answers(403, 404, *BODY, also=(202, PROFILE_PROPOSED, ProposedOut)),
)
async def promote_to_profile(body: PromoteIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Promote preference insights of your conversations into your profile: each becomes a
    preference (named by `names`, else after what it states; valued with its sentence) that
    keeps the insight it came from. 404 names an insight that is not yours; 422 one that is
    not a preference. An agent's promote over a preference a person wrote waits as a
    proposal (202)."""
    return _profile_answer(await services.profile.promote(principal, body.insight_ids, body.names))


GoalId = Annotated[str, Path(description="The goal's id.")]


@router.post(
    "/goals",
    status_code=201,
    response_model=GoalOut,
    responses=answers(404, 409, *BODY, also=(200, "the goal existed already, the same", GoalOut)),
)
async def set_goal(body: GoalIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Push a goal onto your stack (under `parentId`, an active goal of yours, if given); it
    stays until completed or abandoned, across sessions. The same id again with the same
    title and parent answers 200; with another, 409. 404 names a `parentId` you do not have."""
    goal, created = await services.goals.set(principal, body.to_domain())
    return JSONResponse(dump(GoalOut.model_validate(goal)), status_code=201 if created else 200)


@router.get("/goals", response_model=GoalPageOut, response_model_by_alias=True, responses=answers(422))
async def list_goals(
    principal: PrincipalDep,
    services: ServicesDep,
    status: Literal["active", "completed", "abandoned"] | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: str | None = None,
) -> JSONResponse:
    """Your goal stack: active goals first, the newest on top, then closed ones, the most
    recently closed first."""
    items, next_cursor = await services.goals.list_goals(principal, status=status, limit=limit, cursor=cursor)
    return JSONResponse(dump(GoalPageOut.model_validate({"items": items, "nextCursor": next_cursor})))


@router.get("/goals/{id}", response_model=GoalOut, response_model_by_alias=True, responses=answers(404))
async def get_goal(id: GoalId, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """One goal of yours."""
    return JSONResponse(dump(GoalOut.model_validate(await services.goals.get(principal, id))))


@router.post("/goals/{id}/complete", response_model=GoalOut, responses=answers(404, 409, *BODY))
async def complete_goal(
    id: GoalId,  # noqa: A002 - the API's name
    principal: PrincipalDep,
    services: ServicesDep,
    body: GoalCloseIn | None = None,
) -> JSONResponse:
    """Mark an active goal completed, with its outcome; 409 while it has open subgoals (the
    same completion again answers the same)."""
    goal = await services.goals.complete(principal, id, body.outcome if body else None)
    return JSONResponse(dump(GoalOut.model_validate(goal)))


@router.post("/goals/{id}/abandon", response_model=GoalOut, responses=answers(404, 409, *BODY))
async def abandon_goal(
    id: GoalId,  # noqa: A002 - the API's name
    principal: PrincipalDep,
    services: ServicesDep,
    body: GoalAbandonIn | None = None,
) -> JSONResponse:
    """Abandon an active goal, and its open subgoals with it."""
    goal = await services.goals.abandon(principal, id, body.reason if body else None)
    return JSONResponse(dump(GoalOut.model_validate(goal)))


SkillId = Annotated[str, Path(description="The skill's id, e.g. `starter:wake-up`.")]


@router.post(
    "/skills",
    status_code=201,
    response_model=SkillWrittenOut,
    responses=answers(*BODY, also=(200, "the skill existed: redefined, or unchanged", SkillWrittenOut)),
)
async def put_skill(body: SkillIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Create a skill, or redefine the one with this id (its invocation count is kept).
    `ctxnet skills install --user U` installs the starter bundle."""
    [(skill, outcome)] = await services.skills.put(principal, [body.to_domain()])
    out = SkillWrittenOut.model_validate({"skill": skill, "outcome": outcome})
    return JSONResponse(dump(out), status_code=201 if outcome == "created" else 200)


@router.get("/skills", response_model=SkillPageOut, response_model_by_alias=True, responses=answers(422))
async def list_skills(
    principal: PrincipalDep,
    services: ServicesDep,
    bundle: str | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    cursor: str | None = None,
) -> JSONResponse:
    """Your skills by id, with their triggers and counts, without their bodies."""
    items, next_cursor = await services.skills.list_skills(
        principal, bundle=bundle, limit=limit, cursor=cursor
    )
    return JSONResponse(dump(SkillPageOut.model_validate({"items": items, "nextCursor": next_cursor})))


@router.get("/skills/{id}", response_model=SkillOut, response_model_by_alias=True, responses=answers(404))
async def get_skill(id: SkillId, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """A skill with its body (reading it does not count as loading it)."""
    return JSONResponse(dump(SkillOut.model_validate(await services.skills.get(principal, id))))


@router.post("/skills/{id}/load", response_model=SkillOut, responses=answers(404))
async def load_skill(id: SkillId, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """Load a skill to follow it now: its body, with `invocationCount` raised by one."""
    return JSONResponse(dump(SkillOut.model_validate(await services.skills.load(principal, id))))


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
    409), and a position past the log's end is a 409."""
    added = await services.tool_calls.append(principal, id, [item.to_domain() for item in body.items])
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
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=1_000)] = 200,
    cursor: str | None = None,
) -> JSONResponse:
    """What an agent did in a session: its tool calls in the order they were recorded (not
    what it wrote; that is the journal, `GET /v1/mutations?sessionId=`)."""
    items, next_cursor = await services.tool_calls.replay(principal, id, limit=limit, cursor=cursor)
    out = ReplayOut.model_validate({"sessionId": id, "items": items, "nextCursor": next_cursor})
    return JSONResponse(dump(out))


@router.post(
    "/sessions/{id}/save",
    status_code=201,
    response_model=WikiSavedOut,
    responses=answers(404, *BODY, also=(200, "saved before: rewritten, or unchanged", WikiSavedOut)),
)
async def save_session(
    id: SessionId,  # noqa: A002 - the API's name
    body: SessionSaveIn,
    principal: PrincipalDep,
    services: ServicesDep,
) -> JSONResponse:
    """Save a session as its wiki page: summary, decisions, learnings, open questions and 3-5
    typed insights (stored as insights, with the page as their provenance). The slug is stable
    across saves; the agent's newest saved page is its next catch-up cutoff."""
    page, outcome = await services.wiki.save(principal, id, body.to_domain())
    out = WikiSavedOut.model_validate({"page": page, "outcome": outcome})
    return JSONResponse(dump(out), status_code=201 if outcome == "created" else 200)


@router.get("/wiki", response_model=WikiPageListOut, response_model_by_alias=True, responses=answers(422))
async def list_wiki(
    principal: PrincipalDep,
    services: ServicesDep,
    agent_id: Annotated[str | None, Query(alias="agentId")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: str | None = None,
) -> JSONResponse:
    """Saved session pages, newest save first (one agent's, with `agentId`)."""
    items, next_cursor = await services.wiki.list_pages(
        principal, agent_id=agent_id, limit=limit, cursor=cursor
    )
    return JSONResponse(dump(WikiPageListOut.model_validate({"items": items, "nextCursor": next_cursor})))


@router.get("/wiki/{slug}", response_model=WikiPageOut, response_model_by_alias=True, responses=answers(404))
async def get_wiki_page(
    slug: Annotated[str, Path(description="The page's slug.")], principal: PrincipalDep, services: ServicesDep
) -> JSONResponse:
    """One saved session page, with its markdown."""
    return JSONResponse(dump(WikiPageOut.model_validate(await services.wiki.get(principal, slug))))


@router.post("/catch-up", response_model=CatchUpOut, responses=answers(*BODY))
async def catch_up(
    principal: PrincipalDep, services: ServicesDep, body: CatchUpIn | None = None
) -> JSONResponse:
    """What changed since you were last here: sessions, mutations, knowledge, work, wiki and
    approvals, each a count and its top items. The cutoff is `since`, else this agent's last
    saved session, else your last catch-up, else 24 hours ago (`cutoffTier` says which). It
    writes nothing but your last access (at most once a minute)."""
    body = body or CatchUpIn()
    answer = await services.catch_up.catch_up(
        principal,
        since=body.since,
        entity_scope=body.entity_scope.to_domain() if body.entity_scope else None,
        limit_per_section=body.limit_per_section,
    )
    return JSONResponse(dump(CatchUpOut.model_validate(answer)))


@router.post("/orient", response_model=OrientOut, responses=answers(*BODY))
async def orient(
    principal: PrincipalDep, services: ServicesDep, body: OrientIn | None = None
) -> JSONResponse:
    """Wake up in one call: sync status, active focus, hot entities, the goal stack, this
    session's unacknowledged corrections, relevant skills and the calls likely next, each
    with why. Call it first in every session (send `X-Session-ID` once you have one)."""
    answer = await services.orient.orient(principal, body.goal if body else None)
    return JSONResponse(dump(OrientOut.model_validate(answer)))


@router.post("/brief", response_model=BriefOut, responses=answers(502, *BODY))
async def brief_me(body: BriefIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Prime for a task: the decisions, knowledge, saved sessions and insights most relevant
    to it, as one markdown text within `tokenBudget` (counted offline), with what the whole
    bundle would need (`tokenBudgetHint`) and what was dropped to fit."""
    answer = await services.brief.brief(principal, body.task, body.token_budget)
    return JSONResponse(dump(BriefOut.model_validate(answer)))
