"""The inbox: proposals waiting for a person (approve or reject one or many) and the
corrections agents have not acknowledged yet."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Form
from fastapi.responses import HTMLResponse

from api.desk.base import COUNT_CAP, CsrfField, Desk, DeskDep, DeskRoute
from api.routes.corrections import appliers
from graph.core.errors import ContextNetworkError, Forbidden, NotFound
from graph.core.values import check_id

router = APIRouter(prefix="/desk", include_in_schema=False, route_class=DeskRoute)

#: Proposals and corrections one inbox page shows (as many as the header counts: the
#: inbox's own lists give its counts); the recent corrections a held proposal's reason is
#: looked up in.
PAGE = COUNT_CAP
REASONS = 50


def _proposed(proposal: dict[str, Any]) -> dict[str, Any]:
    """The fields a proposal would write (a patch, or the whole record it would create)."""
    payload = proposal.get("payload") or {}
    if isinstance(payload.get("edges"), list):  # an edge.connect: the edges it would make
        return {"edge": "; ".join(f"{e['sourceId']} {e['type']} {e['targetId']}" for e in payload["edges"])}
    if proposal.get("op") == "edge.disconnect":
        return {"edge": f"(removed) {payload['sourceId']} {payload['type']} {payload['targetId']}"}
    for name in ("patch", "note", "entry", "fields"):
        if isinstance(payload.get(name), dict):
            return dict(payload[name])
    return {k: v for k, v in payload.items() if not isinstance(v, dict | list) or k in ("tags",)}


def _target(proposal: dict[str, Any]) -> str | None:
    """The note a proposal would change, if it changes one."""
    target = proposal.get("targetId")
    return str(target) if target and str(proposal.get("op", "")).startswith("note.") else None


def _shown(
    proposal: dict[str, Any], notes: dict[str, dict[str, Any]], reasons: dict[str, str]
) -> dict[str, Any]:
    """A proposal with the diff against what stands in its note (one the person can read)
    and why it was held."""
    after = _proposed(proposal)
    target = _target(proposal)
    note = notes.get(target) if target else None
    before = {k: note.get(k) for k in after} if note is not None else None
    why = [reasons.get(c, f"correction {c}") for c in proposal.get("correctionIds") or []]
    return {**proposal, "before": before, "after": after, "why": why, "note": note}


async def _reasons(desk: Desk) -> dict[str, str]:
    """Why each recent correction was made, by id (what a held proposal points at)."""
    items, _ = await desk.services.knowledge.corrections.list_corrections(desk.principal, limit=REASONS)
    return {c["id"]: c.get("reason") or f"a person corrected {', '.join(c['fields'])}" for c in items}


@router.get("/inbox")
async def inbox(desk: DeskDep) -> HTMLResponse:
    """Proposals waiting, with their diffs; corrections not acknowledged."""
    return await _inbox(desk, [])


async def _inbox(desk: Desk, outcomes: list[dict[str, str]]) -> HTMLResponse:
    waiting, reasons, corrections = await asyncio.gather(
        desk.waiting(), _reasons(desk), desk.unacknowledged()
    )
    targets = [t for t in map(_target, waiting) if t]
    notes = await desk.services.knowledge.notes.get_many(desk.principal, targets) if targets else {}
    return await desk.page(
        "inbox.html",
        proposals=[_shown(p, notes, reasons) for p in waiting],
        corrections=corrections,
        scoped=desk.principal.scope is not None,
        outcomes=outcomes,
    )


@router.post("/proposals/decide")
async def decide(
    desk: DeskDep,
    action: Annotated[str, Form(pattern="^(approve|reject)$")],
    ids: Annotated[list[str], Form(alias="id", max_length=PAGE)],
    reason: Annotated[str | None, Form(max_length=500)] = None,
    csrf: CsrfField = None,
) -> HTMLResponse:
    """Approve or reject the ticked proposals, each through the proposals service as the
    API's routes do; the inbox again, saying what each came to (one refused does not stop
    the others)."""
    desk.check(csrf)
    proposals = desk.services.knowledge.proposals
    outcomes: list[dict[str, str]] = []
    for proposal_id in dict.fromkeys(ids):
        check_id(proposal_id)
        try:
            if action == "approve":
                done = await proposals.approve(
                    desk.principal, proposal_id, reason or None, appliers=appliers(desk.services)
                )
            else:
                done = await proposals.reject(desk.principal, proposal_id, reason or None)
            outcomes.append(
                {"id": proposal_id, "status": done["status"], "target": done.get("targetId") or ""}
            )
        except (NotFound, Forbidden):  # not this key's to decide (a scoped key: none is)
            raise
        except ContextNetworkError as exc:
            outcomes.append({"id": proposal_id, "status": "refused", "message": exc.message})
    return await _inbox(desk, outcomes)
