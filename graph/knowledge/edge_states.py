"""An edge's states as the journal, proposals and the connect keep them: its id in the
journal, its state, a proposal's payload, and the row ``edges_create`` takes."""

from __future__ import annotations

from typing import Any

from graph.knowledge.models import EdgeType, KnowledgeSource, NewEdge, edge_type_of, rel_type_of

#: One edge of a connect: as the API shows it, whether it was made now, and the proposal
#: it became instead (in a batch; ``None`` when written).
EdgeResult = tuple[dict[str, Any], bool, dict[str, Any] | None]


def edge_row(index: int, e: NewEdge) -> dict[str, Any]:
    """An edge as ``edges_create`` takes it."""
    return {
        "index": index, "sourceId": e.source_id, "targetId": e.target_id, "relType": rel_type_of(e.type),
        "source": e.source.value, "confidence": e.confidence, "note": e.note,
        "validFrom": e.valid_from, "validUntil": e.valid_until,
    }  # fmt: skip


def edge_keys(edge: dict[str, Any]) -> list[str]:
    """An edge's journal ids: its own, and the other way round for conflictsWith (one edge
    either way)."""
    key = edge_target(edge)
    source, kind, target = key.split(" ")
    return [key, f"{target} {kind} {source}"] if kind == EdgeType.CONFLICTS_WITH.value else [key]


def edge_payload(edge: NewEdge) -> dict[str, Any]:
    """An edge write as a proposal keeps it (and :func:`edge_from_payload` reads it back)."""
    return {
        "sourceId": edge.source_id, "type": edge.type.value, "targetId": edge.target_id,
        "source": edge.source.value, "confidence": edge.confidence, "note": edge.note,
        "validFrom": edge.valid_from, "validUntil": edge.valid_until,
    }  # fmt: skip


def edge_from_payload(payload: dict[str, Any]) -> NewEdge:
    return NewEdge(
        source_id=payload["sourceId"], type=EdgeType(payload["type"]), target_id=payload["targetId"],
        source=KnowledgeSource(payload["source"]), confidence=payload["confidence"], note=payload["note"],
        valid_from=payload.get("validFrom"), valid_until=payload.get("validUntil"),
    )  # fmt: skip


#: The API's names of the edge types (a journaled edge's ``type``).
_API_TYPES = frozenset(t.value for t in EdgeType)


def edge_target(edge: dict[str, Any]) -> str:
    """An edge's id in the journal: ``"<sourceId> <type> <targetId>"`` (ids hold no spaces)."""
    kind = edge.get("relType") or edge["type"]
    name = kind if kind in _API_TYPES else edge_type_of(kind).value
    return f"{edge['sourceId']} {name} {edge['targetId']}"


def edge_state(edge: dict[str, Any]) -> dict[str, Any]:
    """An edge as the journal keeps it (API type name; what an undo needs to bring it back)."""
    state = {k: v for k, v in edge.items() if v is not None and k not in ("relType", "type")}
    return state | {"type": edge_type_of(edge.get("relType") or edge["type"]).value}
