"""Request and response bodies of session continuity: agents, sessions, pending actions, the
context bridge, the user profile, goals and skills."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field, StringConstraints, field_validator

from api.dto.base import BoundedJson, CamelModel, JsonBounds, OutModel, non_blank
from graph.continuity.catchup import MAX_PER_SECTION
from graph.continuity.goals import NewGoal
from graph.continuity.sessions import NewSession, SessionEnd
from graph.continuity.skills import MAX_BODY, MAX_NAME, MAX_TAG, MAX_TAGS, MAX_TRIGGER, NewSkill
from graph.continuity.toolcalls import ToolCall
from graph.continuity.wiki import MAX_INSIGHTS, MAX_ITEMS, SavedInsight, SessionSave
from graph.conversations.models import InsightType
from graph.core.principals import Scope

#: A preference's value: a JSON scalar (strings at most 2,000 characters).
PreferenceValue = Annotated[str, StringConstraints(max_length=2_000)] | bool | int | float
#: The preferences as sent, checked as free-form JSON before their names and values are
#: (keys and strings UTF-8, integers within 64 bits, finite numbers): 200 of them fit.
PREFERENCE_BOUNDS = JsonBounds(max_depth=2, max_bytes=512_000)


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


class SessionIn(CamelModel):
    """A session to start."""

    id: str | None = Field(default=None, description="Your id for the session; generated if absent.")
    agent_id: str | None = Field(default=None, description="The agent; defaults to the key's agent.")
    topic: str | None = Field(default=None, max_length=500, description="What the session opens on.")
    opening_message: str | None = Field(
        default=None, max_length=20_000, description="The user's first message."
    )
    thread_id: str | None = Field(default=None, description="A conversation thread of yours it belongs to.")

    def to_domain(self) -> NewSession:
        return NewSession(
            id=self.id,
            agent_id=self.agent_id,
            topic=self.topic,
            opening_message=self.opening_message,
            thread_id=self.thread_id,
        )


class SessionEndIn(CamelModel):
    """How a session ended."""

    summary: str = Field(max_length=4_000, description="2-4 sentences: what was discussed and decided.")
    topics: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=50
    )
    key_decisions: list[Annotated[str, Field(min_length=1, max_length=2_000)]] = Field(
        default_factory=list, max_length=50
    )
    pending_actions: list[Annotated[str, Field(min_length=1, max_length=2_000)]] = Field(
        default_factory=list, max_length=100, description="Items left open; each becomes a pending action."
    )
    message_count: int = Field(default=0, ge=0, le=1_000_000)
    duration_minutes: int | None = Field(
        default=None, ge=0, le=525_600, description="Computed from start and end when absent."
    )

    @field_validator("summary")
    @classmethod
    def _summary(cls, value: str) -> str:
        return non_blank(value, "summary")

    def to_domain(self) -> SessionEnd:
        return SessionEnd(
            summary=self.summary,
            topics=tuple(self.topics),
            key_decisions=tuple(self.key_decisions),
            pending_actions=tuple(self.pending_actions),
            message_count=self.message_count,
            duration_minutes=self.duration_minutes,
        )


class PendingActionOut(OutModel):
    """A pending action with where it came from and where it is now."""

    id: str
    text: str
    status: str = Field(description="open, or done once acknowledged and cleared.")
    carried_count: int = Field(description="How often it was carried forward into a later session.")
    agent_id: str
    origin_session_id: str = Field(description="The session whose end left it open.")
    session_id: str = Field(description="The session it belongs to now (another, once carried).")
    created_at: str
    resolution: str | None = None
    resolved_at: str | None = None


class SessionOut(OutModel):
    """A session as stored."""

    id: str
    agent_id: str
    topic: str | None = None
    opening_message: str | None = None
    thread_id: str | None = None
    status: str = Field(description="open, or ended.")
    started_at: str
    ended_at: str | None = None
    previous_id: str | None = Field(default=None, description="The agent's session with you before this one.")
    summary: str | None = None
    topics: list[str] | None = None
    key_decisions: list[str] | None = None
    message_count: int | None = None
    duration_minutes: int | None = None
    pending_actions: list[PendingActionOut] = Field(default_factory=list)


class SessionEndedOut(OutModel):
    """The ended session and the pending actions it left open."""

    session: SessionOut
    pending_actions: list[PendingActionOut]


class SessionPageOut(OutModel):
    """A page of sessions, newest first."""

    items: list[SessionOut]
    next_cursor: str | None = None


class PendingActionListOut(OutModel):
    """Pending actions, oldest first."""

    items: list[PendingActionOut]


class ResolutionIn(CamelModel):
    """How a pending action was resolved."""

    resolution: str = Field(max_length=2_000)

    @field_validator("resolution")
    @classmethod
    def _resolution(cls, value: str) -> str:
        return non_blank(value, "resolution")


class CarryIn(CamelModel):
    """The session a pending action is carried into."""

    session_id: str


class BridgeIn(CamelModel):
    """What to assemble the bridge for."""

    agent_id: str | None = Field(default=None, description="The agent; defaults to the key's agent.")
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


class PreferenceSourceOut(OutModel):
    """Where a preference came from."""

    insight_id: str | None = Field(default=None, description="The insight it was promoted from.")
    thread_id: str | None = None
    set_by_role: str | None = None
    set_by_agent: str | None = None
    set_at: str | None = None


class ProfileOut(OutModel):
    """The user profile (tier-3 memory)."""

    preferences: dict[str, PreferenceValue]
    background: str | None = None
    sources: dict[str, PreferenceSourceOut] = Field(description="Per preference: who set it, from what.")
    updated_at: str | None = None


PreferenceName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]


class ProfileIn(CamelModel):
    """The whole profile."""

    preferences: Annotated[dict[PreferenceName, PreferenceValue], PREFERENCE_BOUNDS] = Field(
        default_factory=dict, max_length=200
    )
    background: str | None = Field(default=None, max_length=8_000)


class ProfilePatchIn(CamelModel):
    """Changes to the profile: a preference set to null is removed; background only if given."""

    preferences: Annotated[dict[PreferenceName, PreferenceValue | None], PREFERENCE_BOUNDS] = Field(
        default_factory=dict, max_length=200
    )
    background: str | None = Field(default=None, max_length=8_000)


class PromoteIn(CamelModel):
    """Preference insights to promote into the profile."""

    insight_ids: list[str] = Field(min_length=1, max_length=100)
    names: dict[str, PreferenceName] = Field(
        default_factory=dict, description="insightId → preference name; else named after what it states."
    )


class SessionStartedOut(OutModel):
    """The started session and its context bridge."""

    session: SessionOut
    bridge: BridgeOut


class GoalIn(CamelModel):
    """A goal to push onto the stack."""

    id: str | None = Field(default=None, description="Your id for the goal; generated if absent.")
    title: str = Field(min_length=1, max_length=500, description="What is being worked towards.")
    parent_id: str | None = Field(default=None, description="An active goal of yours this one is a step of.")

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        return non_blank(value, "title")

    def to_domain(self) -> NewGoal:
        return NewGoal(title=self.title, id=self.id, parent_id=self.parent_id)


class GoalCloseIn(CamelModel):
    """How a goal ended."""

    outcome: str | None = Field(default=None, max_length=2_000, description="What came of it.")


class GoalAbandonIn(CamelModel):
    """Why a goal was dropped."""

    reason: str | None = Field(default=None, max_length=2_000)


class ActorOut(OutModel):
    """Who made a change: a person or an agent (and which)."""

    role: str | None = None
    agent_id: str | None = None


class GoalOut(OutModel):
    """A goal on the stack."""

    id: str
    title: str
    status: Literal["active", "completed", "abandoned"]
    parent_id: str | None = None
    created_at: str
    created_by: ActorOut
    session_id: str | None = Field(default=None, description="The session it was set in (X-Session-ID).")
    closed_at: str | None = None
    closed_by: ActorOut | None = None
    outcome: str | None = None


class GoalPageOut(OutModel):
    """Active goals first (newest on top), then closed ones (most recently closed first)."""

    items: list[GoalOut]
    next_cursor: str | None = None


class SkillIn(CamelModel):
    """A skill to create, or to redefine (its invocation count is kept)."""

    id: str = Field(description="e.g. `starter:wake-up`.")
    name: str = Field(min_length=1, max_length=MAX_NAME)
    body_md: str = Field(min_length=1, max_length=MAX_BODY, description="The how-to, in markdown.")
    bundle: str = Field(default="default", description="The set it ships in; lists filter by it.")
    trigger: str = Field(default="", max_length=MAX_TRIGGER, description="When an agent should load it.")
    tags: list[Annotated[str, Field(min_length=1, max_length=MAX_TAG)]] = Field(
        default_factory=list, max_length=MAX_TAGS
    )

    def to_domain(self) -> NewSkill:
        return NewSkill(
            id=self.id, name=self.name, body_md=self.body_md, bundle=self.bundle, trigger=self.trigger,
            tags=tuple(self.tags),
        ).checked()  # fmt: skip


class SkillOut(OutModel):
    """A skill (with its body when read or loaded, not when listed)."""

    id: str
    name: str
    bundle: str
    trigger: str
    tags: list[str]
    invocation_count: int = Field(description="How often it was loaded.")
    created_at: str
    updated_at: str
    created_by: ActorOut
    updated_by: ActorOut = Field(description="Who wrote it last (a scoped key redefines only its own).")
    last_loaded_at: str | None = None
    body_md: str | None = None


class SkillWrittenOut(OutModel):
    """The skill as written, and what the write did."""

    skill: SkillOut
    outcome: Literal["created", "updated", "unchanged"]


class SkillPageOut(OutModel):
    """Skills by id, without their bodies."""

    items: list[SkillOut]
    next_cursor: str | None = None


class ToolCallIn(CamelModel):
    """One tool call an agent made."""

    tool: str = Field(min_length=1, max_length=200, description="The tool's name.")
    arguments: BoundedJson = Field(
        default=None,
        description="As given (any JSON: at most 16 KiB, nested at most 20 deep, integers within "
        "64 bits); stored, never executed.",
    )
    result_summary: str | None = Field(default=None, max_length=4_000)
    duration_ms: int | None = Field(default=None, ge=0, le=86_400_000)
    at: AwareDatetime | None = Field(default=None, description="When it was called; now if absent.")
    position: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000_000,
        description=(
            "Its place in the log, from 1 (give all calls one, following on, or none): a call at "
            "a position the log holds is a repeat and is skipped, so a retried append changes nothing."
        ),
    )

    def to_domain(self) -> ToolCall:
        return ToolCall(
            tool=self.tool, arguments=self.arguments, result_summary=self.result_summary,
            duration_ms=self.duration_ms, at=self.at, position=self.position,
        )  # fmt: skip


class ToolCallsIn(CamelModel):
    """Tool calls to append to a session's log, in the order they were made."""

    items: list[ToolCallIn] = Field(min_length=1, max_length=500)


class ToolCallsOut(OutModel):
    """Where the calls landed in the session's log."""

    session_id: str
    first: int = Field(description="The position of the first call sent.")
    last: int = Field(description="The position of the last.")
    appended: int = Field(description="How many were new (the rest were repeats of given positions).")


class ToolCallOut(OutModel):
    """A recorded tool call."""

    position: int = Field(description="Its place in the session's log, from 1.")
    tool: str
    arguments: Any = None
    result_summary: str | None = None
    duration_ms: int | None = None
    at: str
    recorded_at: str
    role: str
    agent_id: str | None = None


class ReplayOut(OutModel):
    """A session's tool calls in the order they were recorded."""

    session_id: str
    items: list[ToolCallOut]
    next_cursor: str | None = None


Item = Annotated[str, StringConstraints(min_length=1, max_length=2_000)]


class SavedInsightIn(CamelModel):
    """A typed insight the session yielded."""

    type: InsightType
    content: str = Field(min_length=1, max_length=2_000)
    confidence: float = Field(default=0.9, ge=0.0, le=1.0, description="How sure the agent is.")


class SessionSaveIn(CamelModel):
    """A session's wiki page: the seed's summary template."""

    summary: str = Field(min_length=1, max_length=10_000, description="What the session did.")
    decisions: list[Item] = Field(default_factory=list, max_length=MAX_ITEMS)
    learnings: list[Item] = Field(default_factory=list, max_length=MAX_ITEMS)
    open_questions: list[Item] = Field(default_factory=list, max_length=MAX_ITEMS)
    insights: list[SavedInsightIn] = Field(
        default_factory=list, max_length=MAX_INSIGHTS, description="None, or 3 to 5 typed insights."
    )

    @field_validator("summary")
    @classmethod
    def _summary(cls, value: str) -> str:
        return non_blank(value, "summary")

    def to_domain(self) -> SessionSave:
        return SessionSave(
            summary=self.summary, decisions=tuple(self.decisions), learnings=tuple(self.learnings),
            open_questions=tuple(self.open_questions),
            insights=tuple(SavedInsight(i.type.value, i.content, i.confidence) for i in self.insights),
        )  # fmt: skip


class PageInsightOut(OutModel):
    """An insight of a saved page (also listed by `GET /v1/insights`)."""

    id: str
    type: str
    content: str
    confidence: float
    extracted_at: str | None = None


class WikiPageOut(OutModel):
    """A saved session's concept page."""

    slug: str = Field(description="Stable: the first save names it, later saves keep it.")
    session_id: str
    agent_id: str | None = None
    title: str
    summary: str
    decisions: list[str]
    learnings: list[str]
    open_questions: list[str]
    insights: list[PageInsightOut]
    saved_at: str
    created_at: str
    saved_count: int = Field(description="How often the session was saved with changes.")
    saved_by_role: str | None = None
    markdown: str = Field(description="The page as markdown, front matter `type: concept`, `session: true`.")


class WikiSavedOut(OutModel):
    """The page as saved, and what the save did."""

    page: WikiPageOut
    outcome: Literal["created", "updated", "unchanged"]


class WikiPageListOut(OutModel):
    """Saved pages, newest save first."""

    items: list[WikiPageOut]
    next_cursor: str | None = None


class EntityScopeIn(CamelModel):
    """A part of your knowledge: notes with one of these ids or one of these tags. It can
    only narrow what your key sees; ids outside the key's scope are dropped."""

    ids: list[Annotated[str, StringConstraints(min_length=1, max_length=128)]] = Field(
        default_factory=list, max_length=1_000
    )
    tags: list[Annotated[str, StringConstraints(min_length=1, max_length=64)]] = Field(
        default_factory=list, max_length=100
    )

    def to_domain(self) -> Scope:
        return Scope(ids=tuple(self.ids), tags=tuple(self.tags))


class CatchUpIn(CamelModel):
    """What to catch up on."""

    since: AwareDatetime | None = Field(
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

    task: str = Field(min_length=1, max_length=2_000, description="A short description of the task.")
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
