"""The user profile (tier-3 memory): read, replaced, patched, or promoted into from preference
insights; an agent's write over a person's word waits as a proposal."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import PrincipalDep, ServicesDep
from api.routes.knowledge import proposed
from ctxnet.wire.base import dump
from ctxnet.wire.continuity.profile import ProfileIn, ProfileOut, ProfilePatchIn, PromoteIn
from ctxnet.wire.errors import BODY, answers
from ctxnet.wire.knowledge.proposals import ProposedOut
from graph.knowledge.models import Proposed

router = APIRouter()


@router.get(
    "/profile",
    response_model=ProfileOut,
    response_model_by_alias=True,
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


@router.put("/profile", response_model=ProfileOut, responses=_PROFILE_WRITE)
async def replace_profile(body: ProfileIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Replace your whole profile (journaled with who made the change). An agent's replace
    that would change or remove what a person wrote waits as a proposal (202)."""
    return _profile_answer(await services.profile.replace(principal, body.preferences, body.background))


@router.patch("/profile", response_model=ProfileOut, responses=_PROFILE_WRITE)
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
    responses=answers(403, 404, 409, *BODY, also=(202, PROFILE_PROPOSED, ProposedOut)),
)
async def promote_to_profile(body: PromoteIn, principal: PrincipalDep, services: ServicesDep) -> JSONResponse:
    """Promote preference insights of your conversations into your profile: each becomes a
    preference (named by `names`, else after what it states; valued with its sentence) that
    keeps the insight it came from. 404 names an insight that is not yours; 422 one that is
    not a preference; 409 (`names`) a name given to an insight not in `insightIds`. An
    agent's promote over a preference a person wrote waits as a proposal (202)."""
    return _profile_answer(await services.profile.promote(principal, body.insight_ids, body.names))
