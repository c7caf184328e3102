"""Domain models of the knowledge network (independent of HTTP).

The vocabularies here are the allow-lists: a label or relationship type reaches
Cypher only if it comes out of one of these mappings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ctxnet.wire.knowledge.notes import MAX_BATCH as MAX_BATCH
from ctxnet.wire.vocabulary import Direction as Direction
from ctxnet.wire.vocabulary import EdgeType as EdgeType
from ctxnet.wire.vocabulary import KnowledgeSource as KnowledgeSource
from ctxnet.wire.vocabulary import KnowledgeStatus as KnowledgeStatus
from ctxnet.wire.vocabulary import KnowledgeType as KnowledgeType
from ctxnet.wire.vocabulary import SearchMode as SearchMode


def note_label(kind: KnowledgeType) -> str:
    """The sublabel next to ``Knowledge`` (Neo4j Browser colours by it)."""
    return kind.value.capitalize()


_REL_TYPES = {
    EdgeType.RELATED_TO: "RELATED_TO",
    EdgeType.DEPENDS_ON: "DEPENDS_ON",
    EdgeType.SUPERSEDES: "SUPERSEDES",
    EdgeType.CONFLICTS_WITH: "CONFLICTS_WITH",
}
_API_NAMES = {rel: api for api, rel in _REL_TYPES.items()}
ALL_REL_TYPES = list(_REL_TYPES.values())


def rel_type_of(kind: EdgeType) -> str:
    """The Neo4j relationship type of an edge type."""
    return _REL_TYPES[kind]


def edge_type_of(stored: str) -> EdgeType:
    """The API name of a stored relationship type."""
    return _API_NAMES[stored]


#: The fields of a note whose writer is kept, and that a correction can cover.
NOTE_FIELDS = (
    "title", "content", "type", "source", "confidence", "tags", "status", "validFrom", "validUntil", "data"
)  # fmt: skip


@dataclass(frozen=True)
class NewNote:
    """A note to create (validated by the API layer)."""

    title: str
    content: str
    type: KnowledgeType
    source: KnowledgeSource = KnowledgeSource.INFERRED
    confidence: float = 1.0
    tags: tuple[str, ...] = ()
    id: str | None = None
    embedding: list[float] | None = None
    dedupe: bool = True
    source_ref: str | None = None
    #: When the fact became true and stopped being true, epoch milliseconds (either open);
    #: when neither is sent they are read from the text (:mod:`graph.knowledge.valid_time`).
    valid_from: int | None = None
    valid_until: int | None = None
    #: A payload kept exactly: its compact JSON text (never embedded, searched nor compared).
    data: str | None = None


@dataclass(frozen=True)
class NotePatch:
    """Fields to change; ``None`` means leave as is."""

    title: str | None = None
    content: str | None = None
    type: KnowledgeType | None = None
    source: KnowledgeSource | None = None
    confidence: float | None = None
    tags: tuple[str, ...] | None = None
    status: KnowledgeStatus | None = None
    source_ref: str | None = None
    #: Valid time, epoch milliseconds; a field named in ``cleared`` is removed instead.
    valid_from: int | None = None
    valid_until: int | None = None
    #: Why the fact stopped being true (an invalidation says it).
    invalid_reason: str | None = None
    #: A new payload, as compact JSON text (``data`` in ``cleared``: none any more).
    data: str | None = None
    cleared: frozenset[str] = frozenset()


@dataclass(frozen=True)
class NewEdge:
    """An edge to create between two of the caller's notes."""

    source_id: str
    type: EdgeType
    target_id: str
    confidence: float = 1.0
    source: KnowledgeSource = KnowledgeSource.INFERRED
    note: str | None = None
    #: When the relation held, epoch milliseconds (either open).
    valid_from: int | None = None
    valid_until: int | None = None


@dataclass
class CreateResult:
    """The outcome of creating one note: the note (created, existing, or the twin it was
    merged into), or the proposal it became (an agent's create that a person's correction
    holds back: ``node`` is then ``None``)."""

    node: dict[str, Any] | None
    created: bool
    merged_into: str | None = None
    proposal: dict[str, Any] | None = None
    #: Merged into its twin by an earlier create of the same id (this one changed nothing).
    already_merged: bool = False
    #: A near-twin that changed a value (:mod:`graph.knowledge.updates`): the note it
    #: supersedes, or the one it conflicts with when which is current cannot be told.
    supersedes: str | None = None
    conflicts_with: str | None = None


@dataclass(frozen=True)
class Proposed:
    """A write that was not applied but stored as a proposal for a person."""

    proposal: dict[str, Any]


@dataclass(frozen=True)
class SearchFilters:
    """Narrowing of a search; ``None`` means no restriction."""

    types: tuple[KnowledgeType, ...] | None = None
    sources: tuple[KnowledgeSource, ...] | None = None
    min_confidence: float | None = None
    status: tuple[KnowledgeStatus, ...] | None = None
    tags: tuple[str, ...] | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    #: Valid time, epoch milliseconds: notes that began (``validFrom``, else when recorded)
    #: at or after ``begun_after`` and before ``begun_before``.
    begun_after: int | None = None
    begun_before: int | None = None


@dataclass(frozen=True)
class SearchQuery:
    """One search: text (or a vector), mode, filters, and how far to expand."""

    query: str
    top_k: int = 5
    mode: SearchMode = SearchMode.HYBRID
    expand_connections: bool = True
    max_depth: int = 1
    edge_types: tuple[EdgeType, ...] | None = None
    direction: Direction = Direction.BOTH
    filters: SearchFilters = field(default_factory=SearchFilters)
    include_superseded: bool = False
    embedding: list[float] | None = None
    collapse_by: str | None = None
    #: Valid time, epoch milliseconds: only what was true then (begun, not ended, not yet
    #: superseded); ``None``: what is true now (what has ended is left out).
    as_of: int | None = None
    #: Keep notes and edges whose validity has ended (``as_of`` is then ignored).
    include_ended: bool = False
    #: Record time, epoch milliseconds: the notes as the memory held them then (the journal).
    as_known_at: int | None = None
    #: Read the question's time words against ``as_of`` (else now): spans searched within
    #: their windows, compared events on their own (``graph.knowledge.dated_search``).
    read_dates: bool = False
    #: Discount scores by age: ``score * (1 - recency * ln(1 + days))``; 0: not at all.
    recency: float = 0.0
    #: The most notes expansion reaches, the nearest first.
    max_expanded: int = 50
