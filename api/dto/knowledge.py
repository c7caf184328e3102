"""Request and response bodies of the knowledge network: notes, edges, search."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from api.dto.base import CamelModel, OutModel, non_blank, unique_tags
from graph.core.settings import get_settings
from graph.knowledge.models import (
    Direction,
    EdgeType,
    KnowledgeSource,
    KnowledgeStatus,
    KnowledgeType,
    NewEdge,
    NewNote,
    NotePatch,
    SearchFilters,
    SearchMode,
    SearchQuery,
)


def word_limit(content: str) -> str:
    """``content``, if it holds no more words than an atomic note may (else a ValueError)."""
    limit = get_settings().note_max_words
    words = len(content.split())
    if words > limit:
        raise ValueError(
            f"content has {words} words; an atomic note holds at most {limit}: "
            "split it into several notes and connect them"
        )
    return content


# --- notes ---------------------------------------------------------------------------------------
class NoteIn(CamelModel):
    """A note to create."""

    id: str | None = Field(default=None, description="Your id for the note; generated if absent.")
    title: str = Field(max_length=300)
    content: str = Field(max_length=20_000)
    type: KnowledgeType
    source: KnowledgeSource = KnowledgeSource.INFERRED
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    tags: list[str] = Field(default_factory=list, max_length=32)
    embedding: list[float] | None = Field(
        default=None, description="A precomputed vector of the index dimension; skips the embedder."
    )
    dedupe: bool = Field(
        default=True, description="Fold into an active note at or above the embedder's dedupe threshold."
    )
    source_ref: str | None = Field(
        default=None,
        min_length=1,
        max_length=512,
        description="The document, thread or session this note came from; search can keep one hit "
        "per source (collapseBy).",
    )

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        return non_blank(value, "title")

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        return word_limit(non_blank(value, "content"))

    @field_validator("tags")
    @classmethod
    def _tag_list(cls, value: list[str]) -> list[str]:
        return unique_tags(value) or []

    def to_domain(self) -> NewNote:
        """The domain's view of this note."""
        return NewNote(
            id=self.id,
            title=self.title,
            content=self.content,
            type=self.type,
            source=self.source,
            confidence=self.confidence,
            tags=tuple(self.tags),
            embedding=self.embedding,
            dedupe=self.dedupe,
            source_ref=self.source_ref,
        )


class NoteBatchIn(CamelModel):
    """Up to 1,000 notes, created all or nothing."""

    items: list[NoteIn] = Field(min_length=1, max_length=1_000)


class NotePatchIn(CamelModel):
    """Fields to change; absent fields stay as they are."""

    title: str | None = Field(default=None, max_length=300)
    content: str | None = Field(default=None, max_length=20_000)
    type: KnowledgeType | None = None
    source: KnowledgeSource | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    tags: list[str] | None = Field(default=None, max_length=32)
    status: KnowledgeStatus | None = None
    source_ref: str | None = Field(default=None, min_length=1, max_length=512)

    @field_validator("title")
    @classmethod
    def _title(cls, value: str | None) -> str | None:
        return None if value is None else non_blank(value, "title")

    @field_validator("content")
    @classmethod
    def _content(cls, value: str | None) -> str | None:
        return None if value is None else word_limit(non_blank(value, "content"))

    @field_validator("tags")
    @classmethod
    def _tag_list(cls, value: list[str] | None) -> list[str] | None:
        return unique_tags(value)

    @model_validator(mode="after")
    def _something(self) -> NotePatchIn:
        if not self.model_fields_set:
            raise ValueError("nothing to change: send at least one field")
        for name in self.model_fields_set:
            if getattr(self, name) is None:
                raise ValueError(f"{to_camel(name)} cannot be null")
        return self

    def to_domain(self) -> NotePatch:
        """The domain's view of this change."""
        return NotePatch(
            title=self.title,
            content=self.content,
            type=self.type,
            source=self.source,
            confidence=self.confidence,
            tags=tuple(self.tags) if self.tags is not None else None,
            status=self.status,
            source_ref=self.source_ref,
        )


class MergeOut(OutModel):
    """A create that was folded into this note (nothing is lost)."""

    requested_id: str | None = None
    title: str
    content: str
    type: str
    source: str
    confidence: float
    similarity: float
    merged_at: str
    source_ref: str | None = None


class WrittenByOut(OutModel):
    """Who wrote a note: who created it, and which fields a person wrote last (an agent or
    a pipeline of the service wrote the rest). What a person wrote is held against agents'
    writes (docs/journal.md#corrections)."""

    created_by_role: str | None = None
    created_by_agent: str | None = None
    person_fields: list[str] = Field(default_factory=list)


class NoteOut(OutModel):
    """A note as the API shows it."""

    id: str
    title: str
    content: str
    type: KnowledgeType
    source: KnowledgeSource
    confidence: float
    status: KnowledgeStatus
    tags: list[str]
    created_at: str
    updated_at: str
    merge_count: int = Field(default=0, description="How many creates were merged into this note.")
    merges: list[MergeOut] = Field(
        default_factory=list,
        description="The newest 3 of them at most; GET /v1/knowledge/{id}/merges pages them all.",
    )
    embedding: list[float] | None = None
    source_ref: str | None = None
    written_by: WrittenByOut | None = None


class ProposedByOut(OutModel):
    """Who proposed a write."""

    role: str
    agent_id: str | None = None
    session_id: str | None = None


class ProposalDecisionOut(OutModel):
    """How a person decided a proposal."""

    reason: str | None = None
    mutation_ids: list[str] = Field(
        default_factory=list, description="The journal entries of the write, once approved."
    )


class ProposalOut(OutModel):
    """An agent's write held back because it would override a person's correction."""

    id: str
    status: Literal["pending", "approved", "rejected"]
    op: str = Field(description="note.create, note.update, note.delete, or undo.")
    target_id: str | None = None
    payload: dict[str, Any] = Field(description="The write as the agent asked for it.")
    fields: list[str] = Field(description="The corrected fields it would change.")
    correction_ids: list[str]
    proposed_by: ProposedByOut
    created_at: str
    decided_at: str | None = None
    decision: ProposalDecisionOut | None = None


class ProposedOut(OutModel):
    """202: the write was not applied; a person decides (POST /v1/proposals/{id}/approve)."""

    proposal: ProposalOut


class CreatedNoteOut(OutModel):
    """The outcome of one create: the note, or (an agent's create of a fact a person
    deleted, or a merge into corrected fields) the proposal it became."""

    node: NoteOut | None = None
    merged_into: str | None = None
    already_merged: bool | None = Field(
        default=None,
        description="True when an earlier create of this id was merged (this one changed nothing).",
    )
    proposal: ProposalOut | None = None


class ProposalRefOut(OutModel):
    """A proposal a batch item became (the whole of it: ``GET /v1/proposals``)."""

    id: str
    status: Literal["pending", "approved", "rejected"]


class NoteBatchItemOut(OutModel):
    """What became of one item of a batch: its outcome and the ids that name it, not the note."""

    id: str | None = Field(
        default=None,
        description="created / existing: the note's id; merged / proposed: the id asked for, if any.",
    )
    outcome: Literal["created", "existing", "merged", "proposed"] = Field(
        description="created: a new note; existing: the id existed with these fields; merged: "
        "folded into its twin (mergedInto); proposed: held back by a person's correction (proposal)."
    )
    merged_into: str | None = Field(default=None, description="merged: the twin it was folded into.")
    already_merged: bool | None = Field(
        default=None,
        description="merged: true when an earlier create of this id was merged (this one changed nothing).",
    )
    proposal: ProposalRefOut | None = None


class NoteBatchOut(OutModel):
    """Outcomes in request order."""

    results: list[NoteBatchItemOut]


class MergePageOut(OutModel):
    """A page of a note's merge records, newest first."""

    items: list[MergeOut]
    merge_count: int = Field(description="How many creates were merged into the note in all.")
    next_cursor: str | None = None


class NotePageOut(OutModel):
    """A page of notes."""

    items: list[NoteOut]
    next_cursor: str | None = None


# --- edges -------------------------------------------------------------------------------------
class EdgeIn(CamelModel):
    """An edge from the note in the path to ``targetId``."""

    type: EdgeType
    target_id: str = Field(min_length=1, max_length=128)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: KnowledgeSource = KnowledgeSource.INFERRED
    note: str | None = Field(default=None, max_length=2_000)

    def to_domain(self, source_id: str) -> NewEdge:
        """The domain's view of this edge."""
        return NewEdge(source_id, self.type, self.target_id, self.confidence, self.source, self.note)


class EdgeBatchItemIn(EdgeIn):
    """An edge with both ends named."""

    source_id: str = Field(min_length=1, max_length=128)


class EdgeBatchIn(CamelModel):
    """Up to 1,000 edges, created all or nothing."""

    items: list[EdgeBatchItemIn] = Field(min_length=1, max_length=1_000)


class EdgeOut(OutModel):
    """A typed edge between two notes."""

    type: EdgeType
    source_id: str
    target_id: str
    created_at: str | None = None
    source: str | None = None
    confidence: float | None = None
    note: str | None = None


class CreatedEdgeOut(OutModel):
    """The outcome of one edge create."""

    edge: EdgeOut
    created: bool


class EdgeBatchOut(OutModel):
    """Outcomes in request order."""

    results: list[CreatedEdgeOut]


class EdgeListOut(OutModel):
    """Edges: a note's, or a page of all of yours (``nextCursor``)."""

    items: list[EdgeOut]
    next_cursor: str | None = None


class ReachedNoteOut(OutModel):
    """A note reached by expansion, with its depth and the edges that reached it."""

    node: NoteOut
    depth: int
    via: list[EdgeOut]


class NeighborhoodOut(OutModel):
    """A note and everything within N hops."""

    node: NoteOut
    nodes: list[ReachedNoteOut]
    edges: list[EdgeOut]


# --- search --------------------------------------------------------------------------------------
class FiltersIn(CamelModel):
    """Narrow a search."""

    types: list[KnowledgeType] | None = None
    sources: list[KnowledgeSource] | None = None
    min_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    status: list[KnowledgeStatus] | None = None
    tags: list[str] | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None

    def to_domain(self) -> SearchFilters:
        """The domain's view of these filters."""
        return SearchFilters(
            types=tuple(self.types) if self.types else None,
            sources=tuple(self.sources) if self.sources else None,
            min_confidence=self.min_confidence,
            status=tuple(self.status) if self.status else None,
            tags=tuple(self.tags) if self.tags else None,
            created_after=self.created_after,
            created_before=self.created_before,
        )


class SearchIn(CamelModel):
    """One search call."""

    query: str = Field(min_length=1, max_length=4_000)
    top_k: int = Field(default=5, ge=1, le=100)
    mode: SearchMode = SearchMode.HYBRID
    expand_connections: bool = True
    max_depth: int = Field(default=1, ge=0, le=3)
    edge_types: list[EdgeType] | None = None
    direction: Direction = Direction.BOTH
    filters: FiltersIn | None = None
    include_superseded: bool = False
    embedding: list[float] | None = Field(default=None, description="Search by this vector instead.")
    collapse_by: Literal["sourceRef"] | None = Field(
        default=None,
        description="sourceRef: keep the best hit of each source, so topK fills with distinct "
        "sources (a note without a sourceRef is a source of its own).",
    )

    def to_domain(self) -> SearchQuery:
        """The domain's view of this search."""
        return SearchQuery(
            query=self.query,
            top_k=self.top_k,
            mode=self.mode,
            expand_connections=self.expand_connections,
            max_depth=self.max_depth,
            edge_types=tuple(self.edge_types) if self.edge_types else None,
            direction=self.direction,
            filters=self.filters.to_domain() if self.filters else SearchFilters(),
            include_superseded=self.include_superseded,
            embedding=self.embedding,
            collapse_by=self.collapse_by,
        )


class HitOut(OutModel):
    """A search hit."""

    node: NoteOut
    score: float
    vector_score: float | None = None
    text_score: float | None = None


class SearchOut(OutModel):
    """Hits, the notes expansion reached, and the edges among all of them."""

    hits: list[HitOut]
    expanded: list[ReachedNoteOut]
    edges: list[EdgeOut]
    plan: str | None = None


# --- corrections and proposals -------------------------------------------------------------------
class AcknowledgementOut(OutModel):
    """A session that has seen a correction."""

    session_id: str
    action_taken: str
    at: str


class CorrectionOut(OutModel):
    """A person's correction of agent-written fields of a note."""

    id: str
    kind: Literal["update", "delete"]
    status: Literal["active", "retired"] = Field(
        description="retired once the mutation it records is undone."
    )
    target_type: str
    target_id: str
    fields: list[str]
    mutation_id: str
    before: dict[str, Any] = Field(description="What the agent had written, field by field.")
    after: dict[str, Any] | None = Field(default=None, description="What the person set (none for a delete).")
    reason: str | None = Field(default=None, description="The X-Change-Reason the person gave.")
    at: str
    acknowledgements: list[AcknowledgementOut]


class CorrectionPageOut(OutModel):
    """A page of corrections, newest first."""

    items: list[CorrectionOut]
    next_cursor: str | None = None


class AcknowledgeIn(CamelModel):
    """A session acknowledges a correction."""

    session_id: str = Field(min_length=1, max_length=128)
    action_taken: str = Field(max_length=2_000, description="What the session did about it.")

    @field_validator("action_taken")
    @classmethod
    def _action_taken(cls, value: str) -> str:
        return non_blank(value, "actionTaken")


class ProposalPageOut(OutModel):
    """A page of proposals, newest first."""

    items: list[ProposalOut]
    next_cursor: str | None = None


class DecideIn(CamelModel):
    """A person's decision on a proposal."""

    reason: str | None = Field(default=None, max_length=2_000)
