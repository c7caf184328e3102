"""Request and response bodies of waking up: catch_up (what changed since), orient (what to do
first) and brief (what a task needs)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator

from ctxnet.wire.base import NOT_BLANK, CamelModel, DateTime, OutModel, non_blank

#: Most items a section of catch_up may list.
MAX_PER_SECTION = 50


class EntityScopeIn(CamelModel):
    """A part of your knowledge: notes with one of these ids or one of these tags. It can
    only narrow what your key sees; ids outside the key's scope are dropped."""

    ids: list[Annotated[str, StringConstraints(min_length=1, max_length=128)]] = Field(
        default_factory=list, max_length=1_000
    )
    tags: list[Annotated[str, StringConstraints(min_length=1, max_length=64)]] = Field(
        default_factory=list, max_length=100
    )


class CatchUpIn(CamelModel):
    """What to catch up on."""

    since: DateTime | None = Field(
        default=None,
        description="An explicit cutoff; else your last saved session, last access, or 24 h ago.",
    )
    entity_scope: EntityScopeIn | None = Field(default=None, description="Narrow to part of your knowledge.")
    limit_per_section: int = Field(default=5, ge=0, le=MAX_PER_SECTION, description="Top items per section.")


class SectionOut(OutModel):
    """One section of catch_up: how many changed, and the top items."""

    count: int
    items: list[dict[str, Any]]


class CatchUpOut(OutModel):
    """What changed since the cutoff, in six sections."""

    cutoff: str
    cutoff_tier: Literal["explicit", "session_record", "last_access", "default_24h"]
    cutoff_clock: Literal["recorded"] = Field(
        description="Times are when the service recorded each change, not event times a caller gave."
    )
    my_last_session: dict[str, Any] | None = Field(
        default=None, description="This agent's newest saved page, else its newest session."
    )
    sessions: SectionOut = Field(description="Sessions started or ended (not the one you call in).")
    mutations: SectionOut = Field(description="Journal entries, newest first.")
    knowledge: SectionOut = Field(description="Notes new or updated (`newCount`, `updatedCount`); top first.")
    work: SectionOut = Field(description="Goals set or closed, pending actions opened or resolved.")
    wiki: SectionOut = Field(description="Saved session pages.")
    approvals: SectionOut = Field(description="Proposals made since and waiting (`waiting`: all that wait).")
    is_empty: bool = Field(description="Whether nothing changed in any section.")


class OrientIn(CamelModel):
    """What the agent means to do, if it knows (matched against skills and the goal stack)."""

    goal: str | None = Field(default=None, max_length=2_000)


class NextCallOut(OutModel):
    """A call to make next, and why."""

    call: str = Field(description="Method and path, e.g. `POST /v1/catch-up`.")
    why: str


class RelevantSkillOut(OutModel):
    """A skill that fits, and why it matched."""

    id: str
    name: str
    why: str


class OrientOut(OutModel):
    """Everything a fresh agent needs first, in one answer."""

    sync_status: dict[str, Any] = Field(
        description="Neo4j reachable, the schema's state, counts, and the time of the last write."
    )
    active_focus: dict[str, Any] = Field(
        description="The goal given, the top goal, this agent's last session."
    )
    hot_entities: list[dict[str, Any]] = Field(
        description="Notes the latest writes touched most (the journal)."
    )
    goal_stack: list[dict[str, Any]] = Field(description="Active goals, newest on top.")
    last_corrections: list[dict[str, Any]] = Field(
        description="Corrections by a person this session (X-Session-ID) has not acknowledged."
    )
    relevant_skills: list[RelevantSkillOut]
    next_likely_calls: list[NextCallOut]


class BriefIn(CamelModel):
    """The task to be primed for, and how many tokens the bundle may use."""

    task: str = Field(
        min_length=1,
        max_length=2_000,
        description="A short description of the task.",
        json_schema_extra=NOT_BLANK,
    )
    token_budget: int = Field(default=2_000, ge=200, le=32_000, description="Most tokens the text may use.")

    @field_validator("task")
    @classmethod
    def _task(cls, value: str) -> str:
        return non_blank(value, "task")


class BriefSectionsOut(OutModel):
    """What the text holds, as data, each section most relevant first."""

    decisions: list[dict[str, Any]]
    knowledge: list[dict[str, Any]]
    pages: list[dict[str, Any]]
    insights: list[dict[str, Any]]


class BriefDroppedOut(OutModel):
    """An item left out of the brief to fit its budget."""

    section: Literal["decisions", "knowledge", "pages", "insights"]
    id: str = Field(description="The note's or insight's id, or the page's slug.")
    tokens: int = Field(description="What it would have taken.")


class BriefOut(OutModel):
    """A task-scoped bundle within a token budget."""

    task: str
    text: str = Field(description="The bundle as markdown, to put in the agent's context.")
    tokens: int = Field(description="The text's tokens, counted offline with `tokenizer`.")
    token_budget: int
    token_budget_hint: int = Field(description="What the whole bundle would need, nothing dropped.")
    tokenizer: str
    sections: BriefSectionsOut
    dropped: list[BriefDroppedOut] = Field(
        description="Left out to fit, least relevant first, with their cost."
    )
