"""Request and response bodies of search over the knowledge network."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ctxnet.wire.base import CamelModel, DateTime, OutModel, Vector, vector_size
from ctxnet.wire.knowledge.edges import EdgeOut, ReachedNoteOut
from ctxnet.wire.knowledge.notes import NoteOut
from ctxnet.wire.vocabulary import (
    Direction,
    EdgeType,
    KnowledgeSource,
    KnowledgeStatus,
    KnowledgeType,
    SearchMode,
)

#: Most characters of a search's query.
MAX_QUERY = 4_000
#: Most hits a search may ask for.
MAX_TOP_K = 100


class FiltersIn(CamelModel):
    """Narrow a search."""

    types: list[KnowledgeType] | None = None
    sources: list[KnowledgeSource] | None = None
    min_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    status: list[KnowledgeStatus] | None = None
    tags: list[str] | None = None
    created_after: DateTime | None = None
    created_before: DateTime | None = None
    begun_after: DateTime | None = Field(
        default=None, description="Valid time: the notes that began (validFrom, else recorded) then or after."
    )
    begun_before: DateTime | None = Field(
        default=None, description="Valid time: notes that began (validFrom, else when recorded) before this."
    )


class SearchIn(CamelModel):
    """One search call."""

    query: str = Field(min_length=1, max_length=MAX_QUERY)
    top_k: int = Field(default=5, ge=1, le=MAX_TOP_K)
    mode: SearchMode = SearchMode.HYBRID
    expand_connections: bool = True
    max_depth: int = Field(default=1, ge=0, le=3)
    max_expanded: int = Field(
        default=50,
        ge=0,
        le=500,
        description="The most notes expansion reaches, the nearest first (then those more edges "
        "reach); `truncated` in the answer when some were left out.",
    )
    edge_types: list[EdgeType] | None = None
    direction: Direction = Direction.BOTH
    filters: FiltersIn | None = None
    include_superseded: bool = False
    embedding: Vector | None = Field(
        default=None, description="Search by this vector instead.", json_schema_extra=vector_size
    )
    collapse_by: Literal["sourceRef", "none"] | None = Field(
        default=None,
        description="sourceRef: keep the best hit of each source, so topK fills with distinct "
        "sources (a note without a sourceRef is a source of its own). Absent: the same for a "
        "conversation's turns (source conversation, with a sourceRef; not the facts consolidation drew "
        "from a thread, sourceRef thread:<id>): one hit per conversation. none: every hit.",
    )
    as_of: DateTime | None = Field(
        default=None,
        description="Valid time: only what was true then (begun, not ended, not yet superseded); "
        "superseded notes count. Absent: what is true now (notes and edges whose validity ended are "
        "left out).",
    )
    include_ended: bool = Field(
        default=False, description="Keep notes and edges whose validity has ended (asOf is then ignored)."
    )
    as_known_at: DateTime | None = Field(
        default=None,
        description="Record time: the notes as the memory held them then (from the journal), ranked as "
        "they read now; with asOf, what was held then about what was true at asOf. Notes deleted since "
        "are not searched.",
    )

    read_dates: bool = Field(
        default=False,
        description="Read the query's time words against asOf (else now): a span it names (\"last "
        'Saturday", "two weeks ago", "in March") is searched again among the notes that began '
        'then, fused with the query\'s ranking; events it compares ("which did I do first, X or Y") '
        "are searched on their own and each one's best hit is kept near the top.",
    )
    recency: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Discount each score by its note's age at asOf (else now), from when it began: "
        "score × (1 − recency · ln(1 + days)). 0.1 costs a day-old note 7 %, a month-old one 34 %.",
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
    truncated: bool | None = Field(
        default=None,
        description="True when expansion reached more notes than `maxExpanded`, or the notes more "
        "edges than an answer carries (1,000): the nearest were kept.",
    )
