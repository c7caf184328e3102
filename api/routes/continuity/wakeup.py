"""Waking up: catch_up (what changed since you were last here), orient (what to do first) and
brief (what a task needs, within a token budget)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from api.dto.continuity import entity_scope
from ctxnet.wire.base import dump
from ctxnet.wire.continuity.wakeup import BriefIn, BriefOut, CatchUpIn, CatchUpOut, OrientIn, OrientOut
from ctxnet.wire.errors import BODY, answers

router = APIRouter()


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
        entity_scope=entity_scope(body.entity_scope) if body.entity_scope else None,
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
