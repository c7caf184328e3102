"""Request and response bodies of session continuity: agents and their configuration."""

from __future__ import annotations

from pydantic import Field

from api.dto.base import OutModel


class BridgeConfigOut(OutModel):
    """How the context bridge treats an agent's sessions."""

    enabled: bool
    recent_sessions: int = Field(description="Past sessions with the user the bridge includes.")
    include_profile: bool = Field(description="Whether the user's profile is included.")
    token_budget: int = Field(description="Most tokens the bridge block may use.")


class AgentOut(OutModel):
    """An agent as the service applies it."""

    id: str
    configured: bool = Field(description="Whether the agents file names it; if not, the defaults apply.")
    context_bridge: BridgeConfigOut


class AgentListOut(OutModel):
    """Every agent the agents file names, in its order, and what the others get."""

    items: list[AgentOut]
    defaults: BridgeConfigOut = Field(description="The context bridge of agents the file does not name.")
