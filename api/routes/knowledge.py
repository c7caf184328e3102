"""The knowledge network: notes, their typed edges, search and neighbourhoods."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Response
from fastapi.responses import JSONResponse

from api.body import documented_body, json_body
from api.deps import KnowledgeDep, PrincipalDep
from api.dto.knowledge import new_edge, new_note, note_patch, search_query
from api.pages import PagesDep
from api.responses import FastJSONResponse
from ctxnet.wire.base import DateTime, Id, dump
from ctxnet.wire.cursors import EDGES, TIMED, EdgeCursor, TimedCursor
from ctxnet.wire.errors import BODY, answers
from ctxnet.wire.knowledge.edges import (
    CreatedEdgeOut,
    EdgeBatchIn,
    EdgeBatchOut,
    EdgeIn,
    EdgeListOut,
    NeighborhoodOut,
)
from ctxnet.wire.knowledge.notes import (
    CreatedNoteOut,
    MergePageOut,
    NoteBatchIn,
    NoteBatchOut,
    NoteIn,
    NoteOut,
    NotePageOut,
    NotePatchIn,
)
from ctxnet.wire.knowledge.proposals import ProposedOut
from ctxnet.wire.knowledge.search import SearchIn, SearchOut
from ctxnet.wire.knowledge.validity import InvalidateIn
from graph.core.values import check_id
from graph.knowledge.models import (
    EdgeType,
    KnowledgeSource,
    KnowledgeStatus,
    KnowledgeType,
    Proposed,
)
from graph.knowledge.valid_time import millis
from graph.knowledge.views import batch_result_view

router = APIRouter(tags=["knowledge"])
#: Its own tag in the OpenAPI document; included after ``router``.
search_router = APIRouter(tags=["search"])

NoteId = Annotated[Id, Path(description="The note's id.")]
AsOf = Annotated[
    DateTime | None,
    Query(alias="asOf", description="Valid time (RFC 3339): what was true then."),
]
AsKnownAt = Annotated[
    DateTime | None,
    Query(alias="asKnownAt", description="Record time (RFC 3339): what the memory held then (the journal)."),
]

#: What a 202 of a write means.
PROPOSED = "not applied: it would override a person's correction, so it waits as a proposal"


def proposed(proposal: dict[str, Any]) -> JSONResponse:
    """The 202 answer of a write that became a proposal."""
    return JSONResponse(dump(ProposedOut.model_validate({"proposal": proposal})), status_code=202)


@router.post(
    "/knowledge",
    status_code=201,
    response_model=CreatedNoteOut,
    responses=answers(
        403,
        409,
        502,
        *BODY,
        also=[
            (200, "the id existed already, or the note was merged into its twin", CreatedNoteOut),
            (202, PROPOSED, ProposedOut),
        ],
    ),
)
async def create_note(body: NoteIn, principal: PrincipalDep, knowledge: KnowledgeDep) -> JSONResponse:
    """Create an atomic note, or fold it into an active note it restates (cosine at or above
    the embedder's dedupe threshold, 0.92 for the default one): `mergedInto` names it. A
    near-twin that changes a value (a number, a time, a date, a name, a negation) is an
    update, never folded: it is created and `supersedes` the note it changes (or, when a
    name changed beside another value, `conflictsWith` it).

    An agent's create of a twin of a note a person deleted from an agent, or a merge that
    would move fields a person corrected, is not applied: 202 with the proposal."""
    [result] = await knowledge.notes.create(principal, [new_note(body)], batch=False)
    if result.proposal is not None:
        return proposed(result.proposal)
    out = CreatedNoteOut.model_validate(
        {
            "node": result.node,
            "mergedInto": result.merged_into,
            "alreadyMerged": result.already_merged or None,
            "supersedes": result.supersedes,
            "conflictsWith": result.conflicts_with,
        }
    )
    return JSONResponse(dump(out), status_code=201 if result.created else 200)


@router.post(
    "/knowledge/batch",
    status_code=201,
    response_model=NoteBatchOut,
    openapi_extra=documented_body(NoteBatchIn),
    responses=answers(
        403,
        409,
        502,
        *BODY,
        also=[
            (200, "nothing new: every id existed already, or every note was merged", NoteBatchOut),
            (202, "nothing created, and some notes became proposals (see results)", NoteBatchOut),
        ],
    ),
)
async def create_notes(
    body: Annotated[NoteBatchIn, Depends(json_body(NoteBatchIn))],
    principal: PrincipalDep,
    knowledge: KnowledgeDep,
) -> JSONResponse:
    """Create up to 1,000 notes in one transaction: all of them, or none. Each item answers
    its outcome and ids, not the note: `{id, outcome: created|existing|merged|proposed,
    mergedInto?, alreadyMerged?, supersedes?, conflictsWith?, proposal?: {id, status}}`. A
    note an agent may not write (see the single create) is `proposed`."""
    results = await knowledge.notes.create(principal, [new_note(n) for n in body.items], batch=True)
    # Outcomes and ids only: a batch folded into one note must not repeat that note (with its
    # merge records) once per item. Built in the documented shape, not re-validated.
    out = {"results": [batch_result_view(r, n.id) for r, n in zip(results, body.items, strict=True)]}
    status = 201 if any(r.created for r in results) else 200
    if status == 200 and any(r.proposal is not None for r in results):
        status = 202
    return FastJSONResponse(out, status_code=status)


@router.get("/knowledge", response_model=NotePageOut)
async def list_notes(
    principal: PrincipalDep,
    pages: PagesDep,
    knowledge: KnowledgeDep,
    type: KnowledgeType | None = None,  # noqa: A002 - the API's field name
    source: KnowledgeSource | None = None,
    status: KnowledgeStatus | None = None,
    tag: str | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: TimedCursor | None = None,
    include_embedding: Annotated[bool, Query(alias="includeEmbedding")] = False,
    current: Annotated[
        bool, Query(description="Only what is still true now (no ended or superseded validity).")
    ] = False,
    as_of: AsOf = None,
    as_known_at: AsKnownAt = None,
) -> JSONResponse:
    """The caller's notes, newest first, a page at a time (with their vectors if
    `includeEmbedding`: what an export keeps). With `asKnownAt`, the notes recorded by then as
    the memory held them (`status` and `asOf` read from what it held; a page may hold fewer
    than `limit`, and notes deleted since are not listed)."""
    items, next_cursor = await pages.fit(
        limit,
        lambda n: knowledge.notes.list_notes(
            principal,
            note_type=type.value if type else None,
            source=source.value if source else None,
            status=status.value if status else None,
            tag=tag,
            limit=n,
            cursor=cursor,
            with_embedding=include_embedding,
            current=current,
            as_of=millis(as_of),
            as_known_at=millis(as_known_at),
        ),
    )
    return JSONResponse(
        dump(NotePageOut.model_validate({"items": items, "nextCursor": TIMED.wire(next_cursor)}))
    )


@router.get("/knowledge/{id}", response_model=NoteOut, responses=answers(404))
async def get_note(
    id: NoteId,  # noqa: A002
    principal: PrincipalDep,
    knowledge: KnowledgeDep,
    include_embedding: Annotated[bool, Query(alias="includeEmbedding")] = False,
    follow_merges: Annotated[
        bool,
        Query(
            alias="followMerges",
            description="When a create of this id was folded into a twin, answer the twin.",
        ),
    ] = False,
    as_of: AsOf = None,
    as_known_at: AsKnownAt = None,
) -> JSONResponse:
    """One note, with how many creates were merged into it (`mergeCount`) and the newest 3
    of them (`merges`; all of them: `GET /v1/knowledge/{id}/merges`). An id dedupe folded
    into a twin is not a note (404), unless `followMerges=true`: then the twin, one of whose
    merge records names the id.

    `asOf`: the version of the fact true then (this note, or another of its supersedes
    chain: the answer's `id` says which). `asKnownAt`: the note as the memory held it then,
    from the journal (a note deleted since too). 404 when there is no such version."""
    node = await knowledge.notes.get(
        principal, id, with_embedding=include_embedding, follow_merges=follow_merges,
        as_of=millis(as_of), as_known_at=millis(as_known_at),
    )  # fmt: skip
    return JSONResponse(dump(NoteOut.model_validate(node)))


@router.get("/knowledge/{id}/merges", response_model=MergePageOut, responses=answers(404, 422))
async def note_merges(
    id: NoteId,  # noqa: A002
    principal: PrincipalDep,
    pages: PagesDep,
    knowledge: KnowledgeDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: TimedCursor | None = None,
) -> JSONResponse:
    """The creates merged into a note, newest first, a page at a time (a note carries only
    its `mergeCount` and newest 3 inline)."""
    read: dict[str, Any] = {}

    async def merges(n: int) -> tuple[list[Any], str | None]:
        read["page"] = await knowledge.merges.page(principal, id, limit=n, cursor=cursor)
        return read["page"]["items"], read["page"].get("nextCursor")

    items, next_cursor = await pages.fit(limit, merges)
    page = {"items": items, "mergeCount": read["page"]["mergeCount"], "nextCursor": TIMED.wire(next_cursor)}
    return JSONResponse(dump(MergePageOut.model_validate(page)))


@router.patch(
    "/knowledge/{id}",
    response_model=NoteOut,
    responses=answers(404, 409, 502, *BODY, also=(202, PROPOSED, ProposedOut)),
)
async def update_note(
    id: NoteId,  # noqa: A002
    body: NotePatchIn,
    principal: PrincipalDep,
    knowledge: KnowledgeDep,
) -> JSONResponse:
    """Change some fields; the vector is recomputed only if title or content changed.

    A person's change of fields an agent wrote is a correction (give the reason in
    `X-Change-Reason`); an agent's change of a corrected field waits as a proposal (202)."""
    result = await knowledge.notes.update(principal, id, note_patch(body))
    if isinstance(result, Proposed):
        return proposed(result.proposal)
    return JSONResponse(dump(NoteOut.model_validate(result)))


@router.post(
    "/knowledge/{id}/invalidate",
    response_model=NoteOut,
    responses=answers(404, 409, *BODY, also=(202, PROPOSED, ProposedOut)),
)
async def invalidate_note(
    id: NoteId,  # noqa: A002
    body: InvalidateIn,
    principal: PrincipalDep,
    knowledge: KnowledgeDep,
) -> JSONResponse:
    """State that a fact stopped being true (at `at`, now by default) and why: its
    `validUntil` and `invalidReason` are set, journaled as an update (undo brings it back).
    Reads that feed an agent leave it out from then on; `asOf` before then still finds it.

    409 when it had stopped being valid by then already (of two invalidations at once, the
    first stands). An agent's invalidation of a note a person wrote or corrected waits as a
    proposal (202); a person's invalidation of an agent's note is a correction."""
    result = await knowledge.notes.invalidate(principal, id, reason=body.reason, at=body.at_millis())
    if isinstance(result, Proposed):
        return proposed(result.proposal)
    return JSONResponse(dump(NoteOut.model_validate(result)))


@router.delete(
    "/knowledge/{id}", status_code=204, responses=answers(403, 404, also=(202, PROPOSED, ProposedOut))
)
async def delete_note(id: NoteId, principal: PrincipalDep, knowledge: KnowledgeDep) -> Response:  # noqa: A002
    """Delete a note with its edges; notes it alone superseded become active again.

    A person's delete of an agent's note is a correction: no agent writes its twin back. An
    agent's delete of a corrected note waits as a proposal (202)."""
    result = await knowledge.notes.delete(principal, id)
    if isinstance(result, Proposed):
        return proposed(result.proposal)
    return Response(status_code=204)


@router.post(
    "/knowledge/{id}/connections",
    status_code=201,
    response_model=CreatedEdgeOut,
    responses=answers(
        404,
        409,
        *BODY,
        also=[(200, "the edge existed already", CreatedEdgeOut), (202, PROPOSED, ProposedOut)],
    ),
)
async def connect(
    id: NoteId,  # noqa: A002
    body: EdgeIn,
    principal: PrincipalDep,
    knowledge: KnowledgeDep,
) -> JSONResponse:
    """Create a typed edge from this note to another of the caller's notes. An agent's edge
    that a person removed, or a `supersedes` edge that would mark superseded a note whose status
    a person set, answers 202 with a proposal instead. A person's connect of an agent's edge
    as it stands is their word on it (200, journaled). A note connected to itself is a 409
    (`targetId`)."""
    check_id(id)
    result = await knowledge.edges.connect(principal, [new_edge(body, id)], batch=False)
    if isinstance(result, Proposed):
        return proposed(result.proposal)
    [(edge, created)] = result
    out = CreatedEdgeOut.model_validate({"edge": edge, "created": created})
    return JSONResponse(dump(out), status_code=201 if created else 200)


@router.get("/connections", response_model=EdgeListOut, response_model_by_alias=True, responses=answers(422))
async def list_edges(
    principal: PrincipalDep,
    pages: PagesDep,
    knowledge: KnowledgeDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 500,
    cursor: EdgeCursor | None = None,
) -> JSONResponse:
    """Every edge of yours, a page at a time, in the order of source id, type and target id:
    what an export reads."""
    items, next_cursor = await pages.fit(
        limit, lambda n: knowledge.edges.list_edges(principal, limit=n, cursor=cursor)
    )
    return JSONResponse(
        dump(EdgeListOut.model_validate({"items": items, "nextCursor": EDGES.wire(next_cursor)}))
    )


@router.get("/knowledge/{id}/connections", response_model=EdgeListOut, responses=answers(404))
async def connections(
    id: NoteId,  # noqa: A002
    principal: PrincipalDep,
    pages: PagesDep,
    knowledge: KnowledgeDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 500,
    cursor: EdgeCursor | None = None,
) -> JSONResponse:
    """The note's edges in both directions, a page at a time, in the order of source id,
    type and target id."""
    items, next_cursor = await pages.fit(
        limit, lambda n: knowledge.edges.connections(principal, id, limit=n, cursor=cursor)
    )
    return JSONResponse(
        dump(EdgeListOut.model_validate({"items": items, "nextCursor": EDGES.wire(next_cursor)}))
    )


@router.delete(
    "/knowledge/{id}/connections/{type}/{target_id}",
    status_code=204,
    responses=answers(404, also=(202, PROPOSED, ProposedOut)),
)
async def disconnect(
    id: NoteId,  # noqa: A002
    type: EdgeType,  # noqa: A002
    target_id: Id,
    principal: PrincipalDep,
    knowledge: KnowledgeDep,
) -> Response:
    """Remove one edge; a note no longer superseded by anything becomes active again. An
    agent's removal of an edge a person made or confirmed, or one that would so change a status
    a person set, answers 202 with a proposal. A person's removal is a correction (its reason:
    `X-Change-Reason`): an agent's connect of the edge again is proposed."""
    result = await knowledge.edges.disconnect(principal, id, type, target_id)
    if isinstance(result, Proposed):
        return proposed(result.proposal)
    return Response(status_code=204)


@router.post(
    "/connections/batch",
    status_code=201,
    response_model=EdgeBatchOut,
    responses=answers(
        404,
        409,
        *BODY,
        also=[
            (200, "every edge existed already", EdgeBatchOut),
            (202, "nothing created, and some edges became proposals (see results)", EdgeBatchOut),
        ],
    ),
)
async def connect_many(body: EdgeBatchIn, principal: PrincipalDep, knowledge: KnowledgeDep) -> JSONResponse:
    """Create up to 1,000 edges in one transaction: all of them, or none. An item connecting
    a note to itself is a 409 (`items.<i>.targetId`). An item an agent may not write (see the
    single connect) is not written but proposed: its result has `created: false` and
    `proposal: {id, status}`, and the other items are written (201 if any was made)."""
    edges = [new_edge(item, item.source_id) for item in body.items]
    results = await knowledge.edges.connect_batch(principal, edges)
    out = EdgeBatchOut.model_validate(
        {
            "results": [
                {"edge": e, "created": c, "proposal": p and {"id": p["id"], "status": p["status"]}}
                for e, c, p in results
            ]
        }
    )
    status = 201 if any(c for _, c, _ in results) else 202 if any(p for _, _, p in results) else 200
    return JSONResponse(dump(out), status_code=status)


@router.get("/knowledge/{id}/neighborhood", response_model=NeighborhoodOut, responses=answers(404))
async def neighborhood(
    id: NoteId,  # noqa: A002
    principal: PrincipalDep,
    pages: PagesDep,
    knowledge: KnowledgeDep,
    depth: Annotated[int, Query(ge=0, le=3)] = 1,
    include_superseded: Annotated[bool, Query(alias="includeSuperseded")] = True,
    limit: Annotated[
        int, Query(ge=0, le=500, description="The most notes reached, the nearest first.")
    ] = 100,
) -> JSONResponse:
    """The note and the notes within ``depth`` hops, the nearest first (at most `limit`;
    `truncated` when more were there), with the edges among them."""
    result = pages.trim(
        await knowledge.retrieval.neighborhood(
            principal, id, depth, include_superseded=include_superseded, limit=limit
        ),
        ("nodes",),
    )
    return JSONResponse(dump(NeighborhoodOut.model_validate(result)))


@search_router.post("/search", response_model=SearchOut, responses=answers(502, *BODY))
async def search(
    body: SearchIn, principal: PrincipalDep, pages: PagesDep, knowledge: KnowledgeDep
) -> FastJSONResponse:
    """Top-k notes (vector, fulltext or hybrid), expanded along typed edges to ``maxDepth``.
    An answer holds what fits `CTXNET_PAGE_BYTES` (384 KiB): the best hits, one at least,
    then the nearest notes reached and the edges among them (`truncated` if any were left out)."""
    result = pages.trim(await knowledge.retrieval.search(principal, search_query(body)), ("hits", "expanded"))
    # The service already builds the documented shape (camelCase, no empty optional fields);
    # validating dozens of notes again through SearchOut cost a tenth of a search.
    return FastJSONResponse(result)
