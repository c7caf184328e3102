"""Project context: architecture decisions (recorded, superseded, announced to the agents and
conversations they affect), patterns and constraints, agents' docs, self-docs and
decision-aware instructions, and one search across knowledge, memory and docs.

A key scoped to part of the user's knowledge gets 403 on these routes (project context is
the whole team's, not divided by notes), except unified search, where its scope narrows
what it finds: its notes only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from api.dto.project import agent_docs as docs_of
from api.dto.project import decision_entry, described_entry
from api.pages import Pages, PagesDep
from api.routes.knowledge import proposed
from ctxnet.wire.base import Id, dump
from ctxnet.wire.cursors import ENTRIES, EntryCursor
from ctxnet.wire.errors import BODY, answers
from ctxnet.wire.knowledge.proposals import ProposedOut
from ctxnet.wire.project import (
    AgentDocsIn,
    AgentDocsOut,
    DecisionIn,
    DescribedIn,
    EntryOut,
    EntryPageOut,
    InstructionsOut,
    RecordedOut,
    SelfDocsOut,
    SupersededOut,
    SupersedeIn,
    UnifiedSearchIn,
    UnifiedSearchOut,
)
from graph.core.principals import Principal
from graph.project.context import Recorded
from graph.project.models import ProjectKind

router = APIRouter(tags=["project"])
search_router = APIRouter(tags=["project"])

DecisionId = Annotated[Id, Path(description="The decision's id.")]
AgentId = Annotated[Id, Path(description="The agent's id (as on its API keys).")]
Status = Literal["active", "superseded", "archived"]
Limit = Annotated[int, Query(ge=1, le=500)]
#: The 202 of an agent's project context write.
PROPOSED = (
    "not applied: an agent's entry waits for a person's approval (CTXNET_AGENT_CONTEXT_NEEDS_APPROVAL), "
    "and an agent's supersede of a person's decision waits too; a person approves or rejects the proposal"
)


@dataclass(frozen=True)
class Listing:
    """What a listing of decisions, patterns or constraints asks for (its query parameters)."""

    status: Status | None
    agent_id: str | None
    tag: str | None
    limit: int
    cursor: str | None
    pages: Pages


def listing_query(
    pages: PagesDep,
    status: Status | None = None,
    agent_id: Annotated[Id | None, Query(alias="agentId", description="Those affecting this agent.")] = None,
    tag: str | None = None,
    limit: Limit = 50,
    cursor: EntryCursor | None = None,
) -> Listing:
    """The query parameters every project context listing takes, read once for all three."""
    return Listing(status, agent_id, tag, limit, cursor, pages)


ListingDep = Annotated[Listing, Depends(listing_query)]


def _proposed(recorded: Recorded) -> JSONResponse | None:
    """The 202 of a write a person's correction holds back, if it was one."""
    return None if recorded.proposal is None else proposed(recorded.proposal)


@router.post(
    "/decisions",
    status_code=201,
    response_model=RecordedOut,
    responses=answers(
        403,
        409,
        *BODY,
        also=[(200, "recorded already: nobody is told again", RecordedOut), (202, PROPOSED, ProposedOut)],
    ),
)
async def record_decision(body: DecisionIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Record an architecture decision. It is stored as a knowledge note (searchable, an end of
    typed edges: a note can `dependsOn` it) and, in the same transaction, announced: the
    agents it affects (those in `agents`, or every agent) have it in their instructions from
    now on (`refreshedAgents`), and each conversation it may affect gets a system message
    `[CONTEXT UPDATE] New architectural decision may affect this conversation: <title>`
    (`notifiedThreads`, with why). The same decision again answers 200 and tells nobody.
    An agent key's decision waits as a proposal (202) until a person approves it (unless
    `CTXNET_AGENT_CONTEXT_NEEDS_APPROVAL=false`); agent-written text is marked with its author
    in instructions and notices, and its notice is an `assistant` message, not `system`."""
    recorded = await services.project.record(
        principal, decision_entry(body), needs_approval=services.settings.agent_context_needs_approval
    )
    if (held := _proposed(recorded)) is not None:
        return held
    out = RecordedOut.model_validate(
        {
            "decision": recorded.entry,
            "refreshedAgents": recorded.refreshed_agents,
            "notifiedThreads": recorded.notified_threads,
        }
    )
    return JSONResponse(dump(out), status_code=201 if recorded.created else 200)


@router.get(
    "/decisions", response_model=EntryPageOut, response_model_by_alias=True, responses=answers(403, 422)
)
async def list_decisions(principal: PrincipalDep, services: ServicesDep, listing: ListingDep) -> JSONResponse:
    """Your decisions, the newest first by date."""
    return await _page(principal, services, ProjectKind.DECISION, listing)


@router.get(
    "/decisions/{id}", response_model=EntryOut, response_model_by_alias=True, responses=answers(403, 404)
)
async def get_decision(id: DecisionId, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """One decision, with the decisions that supersede it and those it supersedes."""
    return JSONResponse(
        dump(EntryOut.model_validate(await services.project.get(principal, ProjectKind.DECISION, id)))
    )


@router.post(
    "/decisions/{id}/supersede",
    response_model=SupersededOut,
    responses=answers(403, 404, 409, *BODY, also=(202, PROPOSED, ProposedOut)),
)
async def supersede_decision(
    id: DecisionId,  # noqa: A002 - the API's name
    body: SupersedeIn,
    principal: PrincipalDep,
    services: ServicesDep,
) -> JSONResponse:
    """Decision `byId` supersedes this one: a `supersedes` edge from it, which marks this one
    superseded; it leaves its agents' instructions at once (`refreshedAgents`). Again: the
    same answer, nothing changes. 409 if it would close a loop of supersedes edges, or if
    `byId` is this decision (`byId`: a decision does not supersede itself). An agent's
    supersede of a decision a person recorded or approved waits as a proposal (202)."""
    recorded = await services.project.supersede(principal, id, body.by_id)
    if (held := _proposed(recorded)) is not None:
        return held
    out = SupersededOut.model_validate(
        {"decision": recorded.entry, "refreshedAgents": recorded.refreshed_agents}
    )
    return JSONResponse(dump(out))


async def _record(
    principal: Principal, services: ServicesDep, body: DescribedIn, kind: ProjectKind
) -> JSONResponse:
    recorded = await services.project.record(
        principal, described_entry(body, kind), needs_approval=services.settings.agent_context_needs_approval
    )
    if (held := _proposed(recorded)) is not None:
        return held
    return JSONResponse(
        dump(EntryOut.model_validate(recorded.entry)), status_code=201 if recorded.created else 200
    )


async def _page(
    principal: Principal, services: ServicesDep, kind: ProjectKind, listing: Listing
) -> JSONResponse:
    items, next_cursor = await listing.pages.fit(listing.limit, lambda n: services.project.list_entries(
        principal, kind, status=listing.status, agent_id=listing.agent_id, tag=listing.tag,
        limit=n, cursor=listing.cursor,
    ))  # fmt: skip
    return JSONResponse(
        dump(EntryPageOut.model_validate({"items": items, "nextCursor": ENTRIES.wire(next_cursor)}))
    )


_DESCRIBED = answers(
    403, 409, *BODY, also=[(200, "recorded already, the same", EntryOut), (202, PROPOSED, ProposedOut)]
)


@router.post("/patterns", status_code=201, response_model=EntryOut, responses=_DESCRIBED)
async def record_pattern(body: DescribedIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Record a pattern of the project (how things are done here), for the agents in `agents`
    or every agent; a knowledge note like a decision."""
    return await _record(principal, services, body, ProjectKind.PATTERN)


@router.get(
    "/patterns", response_model=EntryPageOut, response_model_by_alias=True, responses=answers(403, 422)
)
async def list_patterns(principal: PrincipalDep, services: ServicesDep, listing: ListingDep) -> JSONResponse:
    """Your patterns, the newest first."""
    return await _page(principal, services, ProjectKind.PATTERN, listing)


@router.post("/constraints", status_code=201, response_model=EntryOut, responses=_DESCRIBED)
async def record_constraint(
    body: DescribedIn, principal: PrincipalDep, services: ServicesDep
) -> JSONResponse:
    """Record a constraint of the project (what must hold), for the agents in `agents` or
    every agent; agents find it in their self-docs."""
    return await _record(principal, services, body, ProjectKind.CONSTRAINT)


@router.get(
    "/constraints", response_model=EntryPageOut, response_model_by_alias=True, responses=answers(403, 422)
)
async def list_constraints(
    principal: PrincipalDep, services: ServicesDep, listing: ListingDep
) -> JSONResponse:
    """Your constraints, the newest first."""
    return await _page(principal, services, ProjectKind.CONSTRAINT, listing)


@router.put("/agents/{id}/docs", response_model=AgentDocsOut, responses=answers(403, *BODY))
async def put_agent_docs(
    id: AgentId,  # noqa: A002 - the API's name
    body: AgentDocsIn,
    principal: PrincipalDep,
    services: ServicesDep,
) -> JSONResponse:
    """Replace an agent's documentation: its capabilities, its own constraints and its base
    instructions (the start of its instructions). An agent key writes only its own agent's
    docs (another id: 403 naming it); a person's key writes any."""
    docs = await services.agent_docs.put(principal, id, docs_of(body))
    return JSONResponse(dump(AgentDocsOut.model_validate(docs)))


@router.get(
    "/agents/{id}/docs", response_model=AgentDocsOut, response_model_by_alias=True, responses=answers(403)
)
async def get_agent_docs(id: AgentId, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """An agent's documentation as written (empty when it has none)."""
    return JSONResponse(dump(AgentDocsOut.model_validate(await services.agent_docs.get(principal, id))))


@router.get(
    "/agents/{id}/self-docs",
    response_model=SelfDocsOut,
    response_model_by_alias=True,
    responses=answers(403, 422),
)
async def self_docs(
    id: AgentId,  # noqa: A002 - the API's name
    principal: PrincipalDep,
    services: ServicesDep,
    query: Annotated[
        str | None, Query(min_length=1, max_length=2_000, description="What to look up.")
    ] = None,
    top_k: Annotated[int, Query(alias="topK", ge=1, le=50)] = 5,
) -> JSONResponse:
    """What an agent finds about itself (the seed's `query-my-docs`): its capabilities, the
    active decisions that affect it and the constraints (the project's and its own), each
    ranked by similarity to `query`."""
    docs = await services.agent_docs.self_docs(principal, id, query, top_k=top_k)
    return JSONResponse(dump(SelfDocsOut.model_validate(docs)))


@router.get(
    "/agents/{id}/instructions",
    response_model=InstructionsOut,
    response_model_by_alias=True,
    responses=answers(403, 422),
)
async def agent_instructions(
    id: AgentId,  # noqa: A002 - the API's name
    principal: PrincipalDep,
    services: ServicesDep,
    token_budget: Annotated[int, Query(alias="tokenBudget", ge=50, le=100_000)] = 2_000,
) -> JSONResponse:
    """The agent's base instructions and every active decision that affects it, as one text
    in the seed's template ("Respect these architectural decisions: ..."), within
    `tokenBudget` (newest decisions first; what did not fit is in `dropped`). Always
    current: a decision recorded or superseded is in or out of the next read. Bounded: the
    newest 500 decisions are read (`notRead` counts the others), each cut to 2,000
    characters with a marker (`cut`); agent-written ones say who recorded them."""
    text = await services.agent_docs.instructions(principal, id, token_budget)
    return JSONResponse(dump(InstructionsOut.model_validate(text)))


@search_router.post(
    "/search/unified", response_model=UnifiedSearchOut, response_model_by_alias=True, responses=answers(*BODY)
)
async def unified_search(
    body: UnifiedSearchIn, principal: PrincipalDep, pages: PagesDep, services: ServicesDep
) -> JSONResponse:
    """Search knowledge (notes), memory (insights) and docs (decisions, patterns, constraints,
    agents' docs) at once: each layer finds its candidates by its own search, then all are
    ranked together by one measure (cosine to the query), each result labelled by its
    layer. A scoped key finds its notes only. The answer holds the best results that fit
    `CTXNET_PAGE_BYTES` (384 KiB), one at least (`truncated` if any were left out)."""
    found = await services.unified.search(principal, body.query, body.layers, body.top_k)
    if (fitting := pages.fitting(found["results"])) < len(found["results"]):
        found = found | {"results": found["results"][:fitting], "truncated": True}
    return JSONResponse(dump(UnifiedSearchOut.model_validate(found)))
