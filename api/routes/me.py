"""Who am I: the principal an API key resolves to."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from api.deps import PrincipalDep

router = APIRouter(tags=["principals"])


class PrincipalOut(BaseModel):
    """The caller, as the API sees it."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    user_id: str
    role: str
    agent_id: str | None
    key_id: str | None


@router.get("/me", response_model=PrincipalOut, response_model_by_alias=True)
async def me(principal: PrincipalDep) -> PrincipalOut:
    """The user, role and agent behind the presented key."""
    return PrincipalOut(
        user_id=principal.user_id,
        role=principal.role.value,
        agent_id=principal.agent_id,
        key_id=principal.key_id,
    )
