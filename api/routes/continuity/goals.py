"""The goal stack: goals pushed, listed, completed or abandoned, across sessions."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from api.dto.continuity import new_goal
from api.pages import PagesDep
from ctxnet.wire.base import Id, dump
from ctxnet.wire.continuity.goals import GoalAbandonIn, GoalCloseIn, GoalIn, GoalOut, GoalPageOut
from ctxnet.wire.cursors import GOALS, GoalCursor
from ctxnet.wire.errors import BODY, answers

router = APIRouter()


GoalId = Annotated[Id, Path(description="The goal's id.")]


@router.post(
    "/goals",
    status_code=201,
    response_model=GoalOut,
    responses=answers(404, 409, *BODY, also=(200, "the goal existed already, the same", GoalOut)),
)
async def set_goal(body: GoalIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Push a goal onto your stack (under `parentId`, an active goal of yours, if given); it
    stays until completed or abandoned, across sessions. The same id again with the same
    title and parent answers 200; with another, 409. 404 names a `parentId` you do not have;
    a `parentId` that is the goal's own id is a 409 (`parentId`: a goal is not its own
    parent)."""
    goal, created = await services.goals.set(principal, new_goal(body))
    return JSONResponse(dump(GoalOut.model_validate(goal)), status_code=201 if created else 200)


@router.get("/goals", response_model=GoalPageOut, response_model_by_alias=True, responses=answers(422))
async def list_goals(
    principal: PrincipalDep,
    pages: PagesDep,
    services: ServicesDep,
    status: Literal["active", "completed", "abandoned"] | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: GoalCursor | None = None,
) -> JSONResponse:
    """Your goal stack: active goals first, the newest on top, then closed ones, the most
    recently closed first."""
    items, next_cursor = await pages.fit(
        limit, lambda n: services.goals.list_goals(principal, status=status, limit=n, cursor=cursor)
    )
    return JSONResponse(
        dump(GoalPageOut.model_validate({"items": items, "nextCursor": GOALS.wire(next_cursor)}))
    )


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
