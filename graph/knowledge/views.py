"""How notes and edges leave the knowledge domain: JSON-ready dicts in the API's shape.

Every note the queries project goes through :func:`note_view` and every edge through
:func:`edge_view`; a walk over any value (:func:`graph.core.values.plain`) cost a tenth of
a search that returns dozens of notes.
"""

from __future__ import annotations

from typing import Any

from graph.core.values import iso_millis
from graph.knowledge.models import EdgeType, KnowledgeStatus


def edge_view(row: dict[str, Any]) -> dict[str, Any]:
    """An edge as the API shows it: its API type name, ISO time, no empty optional fields."""
    edge = {
        "type": EdgeType.from_rel_type(row["type"]).value,
        "sourceId": row["sourceId"],
        "targetId": row["targetId"],
    }
    if row.get("createdAt") is not None:
        edge["createdAt"] = iso_millis(row["createdAt"])
    for key in ("source", "confidence", "note"):
        if row.get(key) is not None:
            edge[key] = row[key]
    return edge


def note_view(node: dict[str, Any]) -> dict[str, Any]:
    """A note as the Cypher note projections return it, made JSON-ready in place (times to
    ISO strings, empty optional fields dropped)."""
    node["createdAt"] = iso_millis(node["createdAt"])
    node["updatedAt"] = iso_millis(node["updatedAt"])
    for key in ("embedding", "sourceRef"):
        if node.get(key, 0) is None:
            del node[key]
    for merge in node.get("merges") or ():
        merge["mergedAt"] = iso_millis(merge["mergedAt"])
        for key in ("requestedId", "sourceRef"):
            if merge.get(key, 0) is None:
                del merge[key]
    return node


def created_note_view(row: dict[str, Any], stamp: str) -> dict[str, Any]:
    """A note this transaction created, as the API shows it: everything but its time
    (``stamp``, from the database) is known already, so it is not read back."""
    view = {
        "id": row["id"],
        "title": row["title"],
        "content": row["content"],
        "type": row["type"],
        "source": row["source"],
        "confidence": row["confidence"],
        "status": KnowledgeStatus.ACTIVE.value,
        "tags": row["tags"],
        "createdAt": stamp,
        "updatedAt": stamp,
        "mergeCount": 0,
        "merges": [],
    }
    if row.get("sourceRef") is not None:
        view["sourceRef"] = row["sourceRef"]
    return view
