"""Request and response bodies of edges: typed links between notes, and a note's neighbourhood."""

from __future__ import annotations

from pydantic import Field

from ctxnet.wire.base import CamelModel, Id, OutModel
from ctxnet.wire.knowledge.notes import MAX_BATCH, NoteOut
from ctxnet.wire.knowledge.proposals import ProposalRefOut
from ctxnet.wire.knowledge.validity import ValidityIn
from ctxnet.wire.vocabulary import EdgeType, KnowledgeSource


class EdgeIn(ValidityIn):
    """An edge from the note in the path to ``targetId``."""

    type: EdgeType
    target_id: Id
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: KnowledgeSource = KnowledgeSource.INFERRED
    note: str | None = Field(default=None, max_length=2_000)


class EdgeBatchItemIn(EdgeIn):
    """An edge with both ends named."""

    source_id: Id


class EdgeBatchIn(CamelModel):
    """Up to 1,000 edges, created all or nothing."""

    items: list[EdgeBatchItemIn] = Field(min_length=1, max_length=MAX_BATCH)


class EdgeOut(OutModel):
    """A typed edge between two notes."""

    type: EdgeType
    source_id: str
    target_id: str
    created_at: str | None = None
    source: str | None = None
    confidence: float | None = None
    note: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None


class CreatedEdgeOut(OutModel):
    """The outcome of one edge create."""

    edge: EdgeOut
    created: bool
    proposal: ProposalRefOut | None = Field(
        default=None,
        description="In a batch: the proposal this item became, not written (a person's word holds it).",
    )


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
    truncated: bool | None = Field(
        default=None,
        description="True when more notes lie within the depth than `limit`, or more edges among "
        "them than an answer carries (1,000): the nearest were kept.",
    )
