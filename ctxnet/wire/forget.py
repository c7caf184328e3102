"""Request and response bodies of forgetting (``POST /v1/forget``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ctxnet.wire.base import NOT_BLANK, CamelModel, DateTime, Id, OutModel, Tag

#: Most things one transaction of a forget run forgets (notes, insights, threads, pages,
#: traces, changes).
BATCH = 1_000
#: Things the dry run's sample shows.
SAMPLE = 20

#: Most ids or tags one match names.
MAX_IDS = 10_000
MAX_TAGS = 100
#: The largest ``limit`` a run may name (more: ``confirm``).
MAX_LIMIT = 1_000_000


class ForgetMatchIn(CamelModel):
    """What to forget. Every criterion given must hold, for everything a run touches; at least
    one must be given. Which kinds each reaches: notes (all six), insights and wiki pages
    (ids, query, before, after), threads (ids alone, with their messages), and by query and
    time every other thing that holds the text (docs/forgetting.md)."""

    ids: list[Id] | None = Field(
        default=None, min_length=1, max_length=MAX_IDS,
        description="Ids of notes, insights or threads, slugs of wiki pages; ids of things already "
        "deleted scrub what the journal still holds of them.",
    )  # fmt: skip
    tags: list[Tag] | None = Field(
        default=None, min_length=1, max_length=MAX_TAGS, description="Notes carrying any of these tags."
    )
    query: str | None = Field(
        default=None, min_length=1, max_length=500, json_schema_extra=NOT_BLANK,
        description="Text inside anything the user stored, compared without regard to case or form "
        "(Unicode caseless, NFKC) in any script: every field of notes, insights, pages, goals, skills, "
        "tool calls, pending actions, preferences and agent docs (they go), of messages, thread topics, "
        "sessions, edges, the profile and agents (they lose the text); and the journal's states, "
        "corrections and proposals that hold it.",
    )  # fmt: skip
    source: Literal["docs", "conversation", "decision", "inferred"] | None = Field(
        default=None, description="Notes of this source."
    )
    before: DateTime | None = Field(
        default=None, description="Created (an insight: extracted; a page: saved) before this."
    )
    after: DateTime | None = Field(default=None, description="Created (extracted, saved) at or after this.")


class ForgetIn(CamelModel):
    """A forget: a dry run unless `dryRun` is false."""

    match: ForgetMatchIn
    dry_run: bool = Field(
        default=True, description="List what would go (counts and a sample); forget nothing."
    )
    limit: int = Field(
        default=1_000, ge=1, le=MAX_LIMIT,
        description="A run that would forget or change more than this (everything counted in `counts`, "
        "journal entries, corrections and proposals included) is refused (409, field limit) unless "
        "`confirm` is true.",
    )  # fmt: skip
    confirm: bool = Field(default=False, description="Forget even more than `limit` things.")


class ForgottenThingOut(OutModel):
    """One of the things that go."""

    kind: str = Field(
        description="note, insight, thread, wikiPage, goal, skill, toolCall, pendingAction, preference, "
        "agentDoc; or a thing that stays, changed: message, thread, session, profile, agent, edge."
    )
    id: str
    title: str | None = Field(default=None, description="A note's or page's title, a thread's topic.")


class ForgetCountsOut(OutModel):
    """How many of each kind go or change (journal entries stay, scrubbed)."""

    notes: int
    merges: int = Field(description="Merge records of the notes.")
    insights: int
    threads: int
    messages: int = Field(description="Messages of the threads.")
    wiki_pages: int
    goals: int
    skills: int
    tool_calls: int
    pending_actions: int
    preferences: int
    agent_docs: int
    changed_messages: int = Field(description="Messages that stay in their thread, their text forgotten.")
    changed_threads: int = Field(description="Threads whose topic is forgotten.")
    changed_sessions: int
    changed_profiles: int
    changed_agents: int = Field(description="Agents whose base instructions are forgotten.")
    changed_edges: int = Field(description="Edges whose note or source is forgotten.")
    corrections: int
    proposals: int
    journal_entries: int = Field(description="Journal entries whose before and after are scrubbed.")


class ForgetOut(OutModel):
    """What a forget reaches, and what a run did."""

    dry_run: bool
    matched: int = Field(
        description="Everything that goes or changes, traces included (the sum of counts): what limit bounds."
    )
    counts: ForgetCountsOut
    sample: list[ForgottenThingOut] = Field(description=f"At most {SAMPLE} of them.")
    mutation_id: str | None = Field(
        default=None, description="A run: its one journal entry (op memory.forget), naming what went by id."
    )
    batches: int | None = Field(
        default=None, description=f"A run: its transactions (at most {BATCH} things each)."
    )
