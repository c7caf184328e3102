"""Request and response bodies of project context: decisions, patterns, constraints, agents'
docs, self-docs and instructions, and unified search."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator

from ctxnet.wire.base import NOT_BLANK, CamelModel, Day, Id, OutModel, Tag, non_blank, unique_tags
from ctxnet.wire.knowledge.notes import word_limit
from ctxnet.wire.vocabulary import Layer

#: Most agents one entry may name.
MAX_AGENTS = 32
#: Most consequences one decision may list.
MAX_CONSEQUENCES = 20
#: Most lines (capabilities plus constraints) one agent's docs may hold.
MAX_LINES = 200

Line = Annotated[str, Field(min_length=1, max_length=1_000)]


class _EntryIn(CamelModel):
    """What every project context entry has."""

    id: Id | None = Field(default=None, description="Your id for it; generated if absent.")
    title: str = Field(min_length=1, max_length=300, json_schema_extra=NOT_BLANK)
    date: Day | None = Field(default=None, description="When it was decided (YYYY-MM-DD); default today.")
    agents: list[Id] = Field(
        default_factory=list,
        max_length=MAX_AGENTS,
        description="The agents it affects; none: every agent of the project.",
    )
    tags: list[Tag] = Field(default_factory=list, max_length=32)

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        return non_blank(value, "title")

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: list[str]) -> list[str]:
        return unique_tags(value) or []


class DecisionIn(_EntryIn):
    """An architecture decision record, in the seed's shape."""

    context: str = Field(min_length=1, max_length=5_000, description="The forces at play: why a decision.")
    decision: str = Field(
        min_length=1,
        max_length=20_000,
        description="What was decided (an atomic note).",
        json_schema_extra=NOT_BLANK,
    )
    consequences: list[Line] = Field(default_factory=list, max_length=MAX_CONSEQUENCES)

    @field_validator("decision")
    @classmethod
    def _decision(cls, value: str, info: ValidationInfo) -> str:
        return word_limit(non_blank(value, "decision"), info)


class DescribedIn(_EntryIn):
    """A pattern (how things are done here) or a constraint (what must hold)."""

    description: str = Field(min_length=1, max_length=20_000, json_schema_extra=NOT_BLANK)

    @field_validator("description")
    @classmethod
    def _description(cls, value: str, info: ValidationInfo) -> str:
        return word_limit(non_blank(value, "description"), info)


class RecordedByOut(OutModel):
    """Who recorded a project context entry."""

    role: Literal["human", "agent", "system"]
    agent_id: str | None = None
    proposed_by_role: Literal["human", "agent", "system"] | None = Field(
        default=None, description="For an entry a person approved: the proposer's role."
    )
    proposed_by_agent: str | None = None


class EntryOut(OutModel):
    """A decision, pattern or constraint as stored (a knowledge note that is project context)."""

    id: str
    kind: Literal["decision", "pattern", "constraint"]
    title: str
    decision: str | None = Field(default=None, description="A decision's: what was decided.")
    description: str | None = Field(default=None, description="A pattern's or constraint's.")
    context: str | None = None
    consequences: list[str] | None = None
    date: str
    status: Literal["active", "superseded", "archived"]
    agents: list[str] = Field(description="The agents it affects; empty: every agent.")
    tags: list[str]
    superseded_by: list[str] = Field(description="The decisions that supersede this one.")
    supersedes: list[str]
    created_at: str
    updated_at: str
    recorded_by: RecordedByOut | None = Field(
        default=None,
        description="Who recorded it; for an agent's proposal a person approved, who proposed it.",
    )


class EntryPageOut(OutModel):
    """Entries of one kind, the newest first by date."""

    items: list[EntryOut]
    next_cursor: str | None = None


class NotifiedThreadOut(OutModel):
    """A conversation a new decision was announced in, and why."""

    thread_id: str
    message_id: str = Field(description="The system message it got.")
    by_session: bool = Field(description="A session of an agent the decision names is about this thread.")
    reason: Literal["session", "similar", "standsOut"] = Field(
        description="Why it was told: `session` (a session of an agent the decision names is about "
        "it), `similar` (its gist or an insight is at least CTXNET_DECISION_NOTIFY_MIN_SIMILARITY "
        "similar to the decision), `standsOut` (it stands out among the user's threads for this "
        "decision by at least CTXNET_DECISION_NOTIFY_STANDING)."
    )
    thread_similarity: float | None = Field(
        default=None,
        description="Cosine of the thread's gist (its topic and latest messages) to what the decision "
        "decides (title, decision, consequences, context).",
    )
    insight_similarity: float | None = Field(default=None, description="Cosine of its closest insight.")
    standing: float | None = Field(
        default=None,
        description="How far the thread stands out among the user's threads for this decision: "
        "standard deviations above them, plus the shared terms' bonus.",
    )
    shared_terms: list[str] | None = Field(
        default=None,
        description="Named technologies and tags it shares with the decision that few of the "
        "user's threads mention.",
    )


class RecordedOut(OutModel):
    """A decision recorded: whose instructions it changed and which conversations it told."""

    decision: EntryOut
    refreshed_agents: list[str]
    notified_threads: list[NotifiedThreadOut]


class SupersedeIn(CamelModel):
    """The decision that replaces this one."""

    by_id: Id = Field(description="The id of the (newer) decision that supersedes this one.")


class SupersededOut(OutModel):
    """The superseded decision, and whose instructions lost it."""

    decision: EntryOut
    refreshed_agents: list[str]


class AgentDocsIn(CamelModel):
    """An agent's documentation (replaces what it had)."""

    capabilities: list[Line] = Field(default_factory=list, max_length=MAX_LINES)
    constraints: list[Line] = Field(default_factory=list, max_length=MAX_LINES)
    base_instructions: str | None = Field(
        default=None, min_length=1, max_length=20_000, description="Its instructions before any decision."
    )


class AgentDocsOut(OutModel):
    """An agent's documentation as stored."""

    agent_id: str
    capabilities: list[str]
    constraints: list[str]
    base_instructions: str | None = None
    updated_at: str | None = None


class ScoredLineOut(OutModel):
    """A capability or constraint, with its similarity to the question."""

    id: str | None = Field(default=None, description="A project constraint's id (an agent's own has none).")
    title: str | None = None
    text: str
    score: float | None = Field(default=None, description="Cosine to the question; absent without one.")


class ScoredDecisionOut(OutModel):
    """An active decision that affects the agent, with its similarity to the question."""

    id: str
    title: str
    decision: str
    date: str
    score: float | None = None


class SelfDocsOut(OutModel):
    """What an agent finds about itself for a question (the seed's `query-my-docs`)."""

    agent_id: str
    query: str | None = None
    capabilities: list[ScoredLineOut]
    relevant_decisions: list[ScoredDecisionOut]
    constraints: list[ScoredLineOut]


class UsedDecisionOut(OutModel):
    """A decision the instructions carry."""

    id: str
    title: str
    date: str


class InstructionsOut(OutModel):
    """An agent's base instructions and the active decisions it must respect, as one text."""

    agent_id: str
    text: str
    decisions: list[UsedDecisionOut] = Field(description="The decisions in the text, newest first.")
    dropped: list[str] = Field(description="Ids of decisions left out: the budget was spent.")
    cut: list[str] = Field(
        default_factory=list,
        description="Ids of decisions in the text that were cut to their first 2,000 characters "
        "(marked in the text; GET /v1/decisions/{id} has them whole).",
    )
    not_read: int = Field(
        default=0,
        description="Older active decisions not read at all: only the newest 500 are considered.",
    )
    tokens: int
    token_budget: int
    tokenizer: str
    revision: str = Field(description="A hash of the text: re-read your cached instructions when it changes.")


class UnifiedSearchIn(CamelModel):
    """One search over the layers of context."""

    query: str = Field(min_length=1, max_length=2_000, json_schema_extra=NOT_BLANK)
    layers: list[Layer] = Field(
        default_factory=lambda: list(Layer),
        min_length=1,
        description="knowledge, memory, docs (default: all).",
    )
    top_k: int = Field(default=10, ge=1, le=100)

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        return non_blank(value, "query")

    @field_validator("layers")
    @classmethod
    def _layers(cls, value: list[Layer]) -> list[Layer]:
        return list(dict.fromkeys(value))


class UnifiedResultOut(OutModel):
    """One result: its layer, what it is, the item, and its score (one measure for every layer)."""

    layer: Literal["knowledge", "memory", "docs"]
    kind: Literal["note", "insight", "agentDoc"]
    item: dict[str, object]
    score: float = Field(description="Cosine to the query, from the same embedder for every layer.")


class UnifiedSearchOut(OutModel):
    """The best results of the chosen layers, in one ranking."""

    query: str
    layers: list[Layer]
    results: list[UnifiedResultOut]
    truncated: bool | None = Field(
        default=None, description="True when results past the answer's size (384 KiB) were left out."
    )
