"""Session continuity: the agents and their configuration (from the agents YAML file)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from api.deps import ServicesDep
from api.dto.continuity import AgentListOut, AgentOut, BridgeConfigOut
from graph.core.values import check_id

router = APIRouter(tags=["continuity"])

AgentId = Annotated[str, Path(description="The agent's id (as on its API keys).")]


@router.get("/agents", response_model=AgentListOut, response_model_by_alias=True)
async def list_agents(services: ServicesDep) -> AgentListOut:
    """The agents the file names, in its order, and the defaults every other agent gets."""
    agents = services.agents
    return AgentListOut(
        items=[AgentOut.model_validate(a.model_dump()) for a in agents.configured()],
        defaults=BridgeConfigOut.model_validate(agents.config().defaults.context_bridge.model_dump()),
    )


@router.get("/agents/{id}", response_model=AgentOut, response_model_by_alias=True)
async def get_agent(id: AgentId, services: ServicesDep) -> AgentOut:  # noqa: A002 - the API's name
    """An agent's configuration: its entry in the file, or the defaults (`configured: false`)."""
    return AgentOut.model_validate(services.agents.get(check_id(id)).model_dump())
