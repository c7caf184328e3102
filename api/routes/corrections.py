"""Truth and the time machine: undo a mutation, human corrections and their
acknowledgement per session, and proposals (agent writes a correction held back)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse

from api.deps import KnowledgeDep, PrincipalDep, Services, ServicesDep
from api.pages import PagesDep
from api.routes.knowledge import PROPOSED, proposed
from ctxnet.wire.base import Id, dump
from ctxnet.wire.core import UndoneOut
from ctxnet.wire.cursors import PROPOSALS, SEQUENCE, ProposalCursor, SequenceCursor
from ctxnet.wire.errors import BODY, answers
from ctxnet.wire.knowledge.proposals import (
    AcknowledgeIn,
    CorrectionOut,
    CorrectionPageOut,
    DecideIn,
    ProposalOut,
    ProposalPageOut,
    ProposedOut,
)
from graph.continuity.profile import PROPOSAL_OPS as PROFILE_OPS
from graph.core import journal
from graph.core.errors import Conflict, NotFound
from graph.core.principals import Principal
from graph.core.values import check_id
from graph.knowledge.models import Proposed
from graph.knowledge.proposals import Applier
from graph.project.context import PROPOSAL_OPS as PROJECT_OPS

router = APIRouter()

MutationId = Annotated[Id, Path(description="The mutation's id (from GET /v1/mutations).")]
CorrectionId = Annotated[Id, Path(description="The correction's id.")]
ProposalId = Annotated[Id, Path(description="The proposal's id.")]


def appliers(services: Services) -> dict[str, Applier]:
    """Who applies an approved proposal of a write outside the knowledge network: the
    profile's writes and the project context's records."""
    return {op: services.profile.approve for op in PROFILE_OPS} | {
        op: services.project.approve for op in PROJECT_OPS
    }


@router.post(
    "/mutations/{id}/undo",
    response_model=UndoneOut,
    tags=["journal"],
    responses=answers(403, 404, 409, 502, also=(202, PROPOSED, ProposedOut)),
)
async def undo(id: MutationId, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """Undo one mutation: restore the state before it, journaled as a mutation of its own
    (`undoes` names the one undone; undo that to redo). Undoable: notes (create, update,
    delete with its edges to notes that still exist, merge), edges, and the profile. A later
    mutation of the same fields, or a restore that would break an invariant (an edge to a
    deleted note, an id taken since), is a 409 whose `blockingMutation` names what stands in
    the way; nothing is half-undone. An agent's undo of fields a person corrected (of a note),
    or that would change a preference or background a person wrote or bring back one they
    removed (of the profile), waits as a proposal (202)."""
    done = await undo_mutation(principal, services, id)
    if isinstance(done, Proposed):
        return proposed(done.proposal)
    return JSONResponse(dump(UndoneOut.model_validate({"mutation": done})))


async def undo_mutation(
    principal: Principal, services: Services, mutation_id: str
) -> dict[str, Any] | Proposed:
    """Undo one mutation through the service of what it changed (the route's and the desk's
    one path): the undo's own journal entry, or the proposal it became."""
    mutation = await journal.find(services.db, principal, check_id(mutation_id))
    if mutation is None:
        raise NotFound(f"no mutation {mutation_id!r}", field="id")
    if mutation.get("scrubbed"):
        raise Conflict(
            f"what mutation {mutation_id!r} changed was forgotten: there is nothing to restore", field="id"
        )
    if mutation["targetType"] == "Profile":
        undo_id = await services.profile.undo(principal, mutation)
        if isinstance(undo_id, Proposed):
            return undo_id
        done = await journal.find(services.db, principal, undo_id) if undo_id else None
        if done is None:
            raise Conflict(f"undoing {mutation_id!r} would change nothing", field="id")
        return done
    if mutation["targetType"] in ("Knowledge", "Edge"):
        return await services.knowledge.undo.undo(principal, mutation)
    raise Conflict(f"a {mutation['op']} cannot be undone (notes, edges and the profile can)", field="id")


@router.get("/corrections", response_model=CorrectionPageOut, tags=["corrections"], responses=answers(422))
async def list_corrections(
    principal: PrincipalDep,
    pages: PagesDep,
    knowledge: KnowledgeDep,
    unacknowledged: Annotated[
        bool,
        Query(
            description="Only the active ones of the window not acknowledged: by `sessionId` if "
            "given, else by any session of the key's agent (a person's key: by any session)."
        ),
    ] = False,
    session_id: Annotated[Id | None, Query(alias="sessionId")] = None,
    target_id: Annotated[str | None, Query(alias="targetId", max_length=128)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: SequenceCursor | None = None,
) -> JSONResponse:
    """People's corrections of agent-written notes, newest first. An agent starting a
    session asks `?unacknowledged=true&sessionId=<its session>`: every active correction of
    the last days (`CTXNET_CORRECTION_WINDOW_DAYS`, 7) that this session has not
    acknowledged. Without `sessionId`, `unacknowledged=true` lists those of the window that no
    session has acknowledged: no session of the key's agent (an agent's key), no session at
    all (a person's key)."""
    items, next_cursor = await pages.fit(limit, lambda n: knowledge.corrections.list_corrections(
        principal, unacknowledged=unacknowledged, session_id=session_id, target_id=target_id,
        limit=n, cursor=cursor,
    ))  # fmt: skip
    return JSONResponse(
        dump(CorrectionPageOut.model_validate({"items": items, "nextCursor": SEQUENCE.wire(next_cursor)}))
    )


@router.post(
    "/corrections/{id}/ack",
    response_model=CorrectionOut,
    tags=["corrections"],
    responses=answers(404, *BODY),
)
async def acknowledge_correction(
    id: CorrectionId,  # noqa: A002
    body: AcknowledgeIn,
    principal: PrincipalDep,
    knowledge: KnowledgeDep,
) -> JSONResponse:
    """This session has seen the correction, and says what it did about it; it is no longer
    listed to this session (every other session still sees it). Idempotent per session."""
    correction = await knowledge.corrections.acknowledge(
        principal, id, session_id=body.session_id, action_taken=body.action_taken
    )
    return JSONResponse(dump(CorrectionOut.model_validate(correction)))


@router.get(
    "/proposals",
    response_model=ProposalPageOut,
    tags=["proposals"],
    responses=answers(403),
)
async def list_proposals(
    principal: PrincipalDep,
    pages: PagesDep,
    knowledge: KnowledgeDep,
    status: Literal["pending", "approved", "rejected"] | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: ProposalCursor | None = None,
) -> JSONResponse:
    """Agent writes held back by a person's correction, newest first."""
    items, next_cursor = await pages.fit(
        limit, lambda n: knowledge.proposals.list_proposals(principal, status=status, limit=n, cursor=cursor)
    )
    return JSONResponse(
        dump(ProposalPageOut.model_validate({"items": items, "nextCursor": PROPOSALS.wire(next_cursor)}))
    )


@router.get(
    "/proposals/{id}",
    response_model=ProposalOut,
    tags=["proposals"],
    responses=answers(403, 404),
)
async def get_proposal(id: ProposalId, principal: PrincipalDep, knowledge: KnowledgeDep) -> JSONResponse:  # noqa: A002
    """One proposal."""
    return JSONResponse(dump(ProposalOut.model_validate(await knowledge.proposals.get(principal, id))))


@router.post(
    "/proposals/{id}/approve",
    response_model=ProposalOut,
    tags=["proposals"],
    responses=answers(403, 404, 409, 502, *BODY),
)
async def approve_proposal(
    id: ProposalId,  # noqa: A002
    principal: PrincipalDep,
    services: ServicesDep,
    body: DecideIn | None = None,
) -> JSONResponse:
    """A person applies the proposed write (as their own) and marks it approved, in one
    transaction. Agent keys get 403."""
    decided = await services.knowledge.proposals.approve(
        principal, id, body.reason if body else None, appliers=appliers(services)
    )
    return JSONResponse(dump(ProposalOut.model_validate(decided)))


@router.post(
    "/proposals/{id}/reject",
    response_model=ProposalOut,
    tags=["proposals"],
    responses=answers(403, 404, 409, *BODY),
)
async def reject_proposal(
    id: ProposalId,  # noqa: A002
    principal: PrincipalDep,
    knowledge: KnowledgeDep,
    body: DecideIn | None = None,
) -> JSONResponse:
    """A person turns the proposed write down; nothing else changes. Agent keys get 403."""
    decided = await knowledge.proposals.reject(principal, id, body.reason if body else None)
    return JSONResponse(dump(ProposalOut.model_validate(decided)))
