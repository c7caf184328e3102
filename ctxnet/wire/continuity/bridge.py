"""Request and response bodies of the context bridge: the agents' bridge configuration, and the
block a session starts with."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ctxnet.wire.base import CamelModel, Id, OutModel
from ctxnet.wire.continuity.pending import PendingActionOut
from ctxnet.wire.continuity.profile import PreferenceValue


class BridgeConfigOut(OutModel):
    """How the context bridge treats an agent's sessions."""

    enabled: bool
    recent_sessions: int = Field(description="Past sessions with the user the bridge includes.")
    include_profile: bool = Field(description="Whether the user's profile is included.")
    token_budget: int = Field(description="Most tokens the bridge block may use.")
    memory_matches: int = Field(description="Most notes and insights on the opening topic it includes.")


class AgentOut(OutModel):
    """An agent as the service applies it."""

    id: str
    configured: bool = Field(description="Whether the agents file names it; if not, the defaults apply.")
    context_bridge: BridgeConfigOut


class AgentListOut(OutModel):
    """Every agent the agents file names, in its order, and what the others get."""

    items: list[AgentOut]
    defaults: BridgeConfigOut = Field(description="The context bridge of agents the file does not name.")


class BridgeIn(CamelModel):
    """What to assemble the bridge for."""

    agent_id: Id | None = Field(default=None, description="The agent; defaults to the key's agent.")
    topic: str | None = Field(
        default=None, max_length=20_000, description="The opening topic: what memory is found for."
    )
    token_budget: int | None = Field(
        default=None, ge=50, le=100_000, description="Most tokens of the block; the agent's budget if absent."
    )


class BridgeSessionOut(OutModel):
    """An earlier session as the bridge carries it over."""

    id: str
    summary: str
    topics: list[str] | None = None
    key_decisions: list[str] | None = None
    message_count: int | None = None
    duration_minutes: int | None = None
    started_at: str
    ended_at: str | None = None


class BridgeMemoryOut(OutModel):
    """A note or insight on the opening topic."""

    kind: Literal["note", "insight"]
    id: str
    content: str
    type: str
    confidence: float | None = None
    title: str | None = Field(default=None, description="Notes only.")
    thread_id: str | None = Field(default=None, description="Insights only: the thread it came from.")
    page_slug: str | None = Field(
        default=None, description="Insights only: the saved session page it came from."
    )
    extracted_at: str | None = Field(default=None, description="Insights only.")
    relevance: float = Field(description="Reciprocal-rank relevance (1.0 for the first of a search).")


class ProfileSummaryOut(OutModel):
    """The user profile as the bridge includes it."""

    background: str | None = None
    preferences: dict[str, PreferenceValue]
    sources: dict[str, str] = Field(description="For preferences promoted from an insight: its id.")


class BridgeSectionsOut(OutModel):
    """What the block holds, as data (only what it kept)."""

    recent_sessions: list[BridgeSessionOut]
    pending_actions: list[PendingActionOut]
    memory: list[BridgeMemoryOut]
    profile: ProfileSummaryOut | None = None


class DroppedOut(OutModel):
    """An item left out to fit the token budget."""

    section: Literal["recentSessions", "pendingActions", "memory", "profile"]
    id: str
    tokens: int = Field(description="What it would have taken.")


class BridgeOut(OutModel):
    """The context bridge: one system-level block, and its content as sections."""

    agent_id: str
    enabled: bool
    reason: str | None = Field(default=None, description="Why there is no block (a disabled agent).")
    topic: str | None = None
    text: str | None = Field(default=None, description="The block, markdown; absent when disabled.")
    sections: BridgeSectionsOut
    tokens: int = Field(description="Tokens of `text`, counted with `tokenizer`.")
    token_budget: int
    tokenizer: str = Field(description="What tokens are counted with (offline).")
    dropped: list[DroppedOut] = Field(description="What was left out to fit the budget, in that order.")
    warnings: list[str] = Field(
        default_factory=list, description="What could not be included, and why (e.g. the embedder failed)."
    )
