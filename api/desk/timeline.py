"""What agents did: the journal as a timeline, filtered by agent, session, kind and time,
each entry's before and after as a diff, and Undo (its 409's reason shown when refused).
A supersession (a ``supersedes`` edge made or removed) names both notes and both authors:
who wrote the old note, and who superseded it (or proposed it, for a person's approval)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse

from api.desk.base import CsrfField, Desk, DeskDep, DeskRoute
from api.routes.corrections import undo_mutation
from graph.core import journal
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.values import check_id
from graph.knowledge.models import EdgeType, Proposed

router = APIRouter(prefix="/desk", include_in_schema=False, route_class=DeskRoute)

#: Entries one page shows, and how many a filter the service does not take (agent, kind,
#: until) reads at most, in one read, to fill one.
PAGE = 50
FILTERED_READ = 200
#: The kinds a person filters by: the first word of a mutation's ``op``.
KINDS = ("note", "edge", "merge", "proposal", "correction", "session", "thread", "insight", "profile")


def _iso(value: str | None, field: str) -> str | None:
    """A time from the filter form (``2026-12-02T10:00`` or a date), as ISO-8601 UTC."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{field} must be a date or a date and time", field=field) from None
    return moment.isoformat() if moment.tzinfo else moment.isoformat() + "+00:00"


@router.get("/timeline")
async def timeline(
    desk: DeskDep,
    session: Annotated[str | None, Query(max_length=128)] = None,
    kind: Annotated[str | None, Query(max_length=32)] = None,
    since: Annotated[str | None, Query(max_length=40)] = None,
    until: Annotated[str | None, Query(max_length=40)] = None,
    cursor: Annotated[str | None, Query(max_length=64)] = None,
) -> HTMLResponse:
    """The journal, newest first, as filtered; a page at a time."""
    session = check_id(session, "session") if session else None
    kind = kind if kind in KINDS else None
    start, end = _iso(since, "since"), _iso(until, "until")
    filtered = desk.agent is not None or kind is not None or end is not None
    items, next_cursor = await journal.list_mutations(
        desk.services.db, desk.principal, since=start, session_id=session,
        limit=FILTERED_READ if filtered else PAGE, cursor=cursor or None,
    )  # fmt: skip
    entries = [m for m in items if _kept(m, desk.agent, kind, end)]
    if len(entries) > PAGE:  # the next page continues after the last one shown
        entries, next_cursor = entries[:PAGE], journal.cursor_of(entries[PAGE - 1])
    filters = {"session": session, "kind": kind, "since": since, "until": until}
    return await desk.page(
        "timeline.html", entries=entries, kinds=KINDS, filters=filters, next_cursor=next_cursor,
        supersessions=await supersessions(desk, entries),
    )  # fmt: skip


def superseding_edge(mutation: dict[str, Any]) -> dict[str, Any] | None:
    """The ``supersedes`` edge an entry makes (``edge.connect``) or removes (``edge.disconnect``),
    if it is one; a person's confirmation of an edge that stood (a connect with a ``before``)
    is no supersession of its own."""
    op, before, after = mutation.get("op"), mutation.get("before"), mutation.get("after")
    edge = after if op == "edge.connect" and not before else before if op == "edge.disconnect" else None
    if not isinstance(edge, dict) or edge.get("type") != EdgeType.SUPERSEDES.value:
        return None
    return edge


async def supersessions(desk: Desk, entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """For each entry of the page that makes or removes a supersession, by its id: the newer
    note (``new``) and the older (``old``), each ``{id, note}`` (``note``: as it stands now,
    with who wrote it, or ``None`` when it is gone or outside the key's scope), and who
    proposed it (``proposedBy``) when a person approved it. For each ``note.status`` entry the
    same write's supersession flipped, by its id: the newer note's id (``supersededBy``).
    One read of the notes, beside one of each proposal approved."""
    edges = {m["id"]: (m, e) for m in entries if (e := superseding_edge(m)) is not None}
    if not edges:
        return {}
    ids = {e[key] for _, e in edges.values() for key in ("sourceId", "targetId")}
    approved = sorted({m["proposalId"] for m, _ in edges.values() if m.get("proposalId")})
    notes, by = await asyncio.gather(
        desk.services.knowledge.notes.get_many(desk.principal, sorted(ids)),
        asyncio.gather(*(_proposer(desk, p) for p in approved)),
    )
    proposers = dict(zip(approved, by, strict=True))
    found: dict[str, dict[str, Any]] = {}
    for mutation_id, (m, e) in edges.items():
        found[mutation_id] = {
            "new": {"id": e["sourceId"], "note": notes.get(e["sourceId"])},
            "old": {"id": e["targetId"], "note": notes.get(e["targetId"])},
            "proposedBy": proposers.get(m.get("proposalId") or ""),
            "made": m["op"] == "edge.connect",
        }
    flipped = {(m["seq"], e["targetId"]): e["sourceId"] for m, e in edges.values()}
    for m in entries:
        if m.get("op") == "note.status" and (by := flipped.get((m.get("seq"), m.get("targetId")))):
            found[m["id"]] = {"supersededBy": by}
    return found


async def _proposer(desk: Desk, proposal_id: str) -> dict[str, Any] | None:
    """Who proposed the write a person approved (``None`` when a scoped key cannot read
    proposals, or the proposal is gone)."""
    if desk.principal.scope is not None:
        return None
    try:
        proposal = await desk.services.knowledge.proposals.get(desk.principal, proposal_id)
    except NotFound:
        return None
    by: dict[str, Any] | None = proposal.get("proposedBy")
    return by


def _kept(mutation: dict[str, Any], agent: str | None, kind: str | None, until: str | None) -> bool:
    """Whether an entry passes the filters the journal's own query does not take."""
    if agent is not None and (mutation.get("actor") or {}).get("agentId") != agent:
        return False
    if kind is not None and str(mutation.get("op", "")).split(".")[0] != kind:
        return False
    return until is None or _before(mutation.get("at"), until)


def _before(at: Any, until: str) -> bool:
    try:
        return datetime.fromisoformat(str(at).replace("Z", "+00:00")) <= datetime.fromisoformat(until)
    except ValueError:
        return True


@router.post("/mutations/{mutation_id}/undo")
async def undo(desk: DeskDep, mutation_id: str, csrf: CsrfField = None) -> HTMLResponse:
    """Undo one entry through the API's own undo path; the answer replaces the entry's
    Undo button: what was restored, the proposal it became, or why it was refused (409)."""
    desk.check(csrf)
    try:
        done = await undo_mutation(desk.principal, desk.services, check_id(mutation_id))
    except Conflict as exc:
        return desk.fragment("_undone.html", status=409, refused=exc.message, blocking=exc.blocking_mutation)
    if isinstance(done, Proposed):
        return desk.fragment("_undone.html", proposal=done.proposal)
    return desk.fragment("_undone.html", done=done)
