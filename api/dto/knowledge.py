"""Knowledge requests as the domain takes them: notes, edges, searches."""

from __future__ import annotations

from ctxnet.wire.base import data_text
from ctxnet.wire.knowledge.edges import EdgeIn
from ctxnet.wire.knowledge.notes import NoteIn, NotePatchIn
from ctxnet.wire.knowledge.search import FiltersIn, SearchIn
from ctxnet.wire.knowledge.validity import millis
from graph.knowledge.models import NewEdge, NewNote, NotePatch, SearchFilters, SearchQuery


def new_note(body: NoteIn) -> NewNote:
    """The domain's view of a note to create."""
    valid_from, valid_until = body.valid_millis()
    return NewNote(
        id=body.id,
        title=body.title,
        content=body.content,
        type=body.type,
        source=body.source,
        confidence=body.confidence,
        tags=tuple(body.tags),
        embedding=body.embedding,
        dedupe=body.dedupe,
        source_ref=body.source_ref,
        valid_from=valid_from,
        valid_until=valid_until,
        data=data_text(body.data),
    )


def note_patch(body: NotePatchIn) -> NotePatch:
    """The domain's view of a change to a note."""
    return NotePatch(
        title=body.title,
        content=body.content,
        type=body.type,
        source=body.source,
        confidence=body.confidence,
        tags=tuple(body.tags) if body.tags is not None else None,
        status=body.status,
        source_ref=body.source_ref,
        valid_from=millis(body.valid_from),
        valid_until=millis(body.valid_until),
        data=data_text(body.data),
        cleared=body.cleared(),
    )


def new_edge(body: EdgeIn, source_id: str) -> NewEdge:
    """The domain's view of an edge from ``source_id``."""
    start, end = body.valid_millis()
    return NewEdge(source_id, body.type, body.target_id, body.confidence, body.source, body.note, start, end)


def search_filters(body: FiltersIn | None) -> SearchFilters:
    """The domain's view of a search's filters (none: no filter)."""
    if body is None:
        return SearchFilters()
    return SearchFilters(
        types=tuple(body.types) if body.types else None,
        sources=tuple(body.sources) if body.sources else None,
        min_confidence=body.min_confidence,
        status=tuple(body.status) if body.status else None,
        tags=tuple(body.tags) if body.tags else None,
        created_after=body.created_after,
        created_before=body.created_before,
        begun_after=millis(body.begun_after),
        begun_before=millis(body.begun_before),
    )


def search_query(body: SearchIn) -> SearchQuery:
    """The domain's view of a search."""
    return SearchQuery(
        query=body.query,
        top_k=body.top_k,
        mode=body.mode,
        expand_connections=body.expand_connections,
        max_depth=body.max_depth,
        edge_types=tuple(body.edge_types) if body.edge_types else None,
        direction=body.direction,
        filters=search_filters(body.filters),
        include_superseded=body.include_superseded,
        embedding=body.embedding,
        collapse_by=body.collapse_by,
        as_of=millis(body.as_of),
        include_ended=body.include_ended,
        as_known_at=millis(body.as_known_at),
        read_dates=body.read_dates,
        recency=body.recency,
        max_expanded=body.max_expanded,
    )
