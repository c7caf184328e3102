"""Skills: how-tos an agent loads when their trigger fits, with how often they were loaded."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from api.dto.continuity import new_skill
from api.pages import PagesDep
from ctxnet.wire.base import Id, dump
from ctxnet.wire.continuity.skills import SkillIn, SkillOut, SkillPageOut, SkillWrittenOut
from ctxnet.wire.cursors import SKILLS, SkillCursor
from ctxnet.wire.errors import BODY, answers

router = APIRouter()


SkillId = Annotated[Id, Path(description="The skill's id, e.g. `starter:wake-up`.")]


@router.post(
    "/skills",
    status_code=201,
    response_model=SkillWrittenOut,
    responses=answers(*BODY, also=(200, "the skill existed: redefined, or unchanged", SkillWrittenOut)),
)
async def put_skill(body: SkillIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Create a skill, or redefine the one with this id (its invocation count is kept).
    `ctxnet skills install --user U` installs the starter bundle."""
    [(skill, outcome)] = await services.skills.put(principal, [new_skill(body)])
    out = SkillWrittenOut.model_validate({"skill": skill, "outcome": outcome})
    return JSONResponse(dump(out), status_code=201 if outcome == "created" else 200)


@router.get("/skills", response_model=SkillPageOut, response_model_by_alias=True, responses=answers(422))
async def list_skills(
    principal: PrincipalDep,
    pages: PagesDep,
    services: ServicesDep,
    bundle: Id | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    cursor: SkillCursor | None = None,
) -> JSONResponse:
    """Your skills by id, with their triggers and counts, without their bodies."""
    items, next_cursor = await pages.fit(
        limit, lambda n: services.skills.list_skills(principal, bundle=bundle, limit=n, cursor=cursor)
    )
    return JSONResponse(
        dump(SkillPageOut.model_validate({"items": items, "nextCursor": SKILLS.wire(next_cursor)}))
    )


@router.get("/skills/{id}", response_model=SkillOut, response_model_by_alias=True, responses=answers(404))
async def get_skill(id: SkillId, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """A skill with its body (reading it does not count as loading it)."""
    return JSONResponse(dump(SkillOut.model_validate(await services.skills.get(principal, id))))


@router.post("/skills/{id}/load", response_model=SkillOut, responses=answers(404))
async def load_skill(id: SkillId, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:  # noqa: A002
    """Load a skill to follow it now: its body, with `invocationCount` raised by one."""
    return JSONResponse(dump(SkillOut.model_validate(await services.skills.load(principal, id))))
