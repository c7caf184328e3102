"""How notes and edges leave the knowledge domain: JSON-ready dicts in the API's shape.

Every note the queries project goes through :func:`note_view` and every edge through
:func:`edge_view`; a walk over any value (:func:`graph.core.values.plain`) cost a tenth of
a search that returns dozens of notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graph.core.values import data_view, iso_millis
from graph.knowledge.models import NOTE_FIELDS, CreateResult, KnowledgeStatus, edge_type_of


def edge_view(row: dict[str, Any]) -> dict[str, Any]:
    """An edge as the API shows it: its API type name, ISO time, no empty optional fields."""
    edge = {
        "type": edge_type_of(row["type"]).value,
        "sourceId": row["sourceId"],
        "targetId": row["targetId"],
    }
    if row.get("createdAt") is not None:
        edge["createdAt"] = iso_millis(row["createdAt"])
    for key in ("source", "confidence", "note"):
        if row.get(key) is not None:
            edge[key] = row[key]
    for key in ("validFrom", "validUntil"):
        if row.get(key) is not None:
            edge[key] = iso_millis(row[key])
    return edge


def merge_view(merge: dict[str, Any]) -> dict[str, Any]:
    """A merge record as the API shows it, made JSON-ready in place (its time as ISO, empty
    optional fields and the paging keys ``id`` and ``position`` dropped)."""
    merge["mergedAt"] = iso_millis(merge["mergedAt"])
    for key in ("id", "position"):
        merge.pop(key, None)
    for key in ("requestedId", "sourceRef"):
        if merge.get(key, 0) is None:
            del merge[key]
    return data_view(merge)


def note_view(node: dict[str, Any]) -> dict[str, Any]:
    """A note as the Cypher note projections return it, made JSON-ready in place (times to
    ISO strings, empty optional fields dropped). The projections carry ``mergeCount`` and
    only the newest few merge records (``GET /v1/knowledge/{id}/merges`` pages the rest)."""
    node["createdAt"] = iso_millis(node["createdAt"])
    node["updatedAt"] = iso_millis(node["updatedAt"])
    if "createdByRole" in node:
        node["writtenBy"] = written_by(
            node.pop("createdByRole"), node.pop("createdByAgent", None), node.pop("personFields", None)
        )
    if node.get("mergeCount") is None:
        node["mergeCount"] = 0
    validity_view(node)
    for key in ("embedding", "sourceRef", "invalidReason"):
        if node.get(key, 0) is None:
            del node[key]
    for merge in node.get("merges") or ():
        merge_view(merge)
    return data_view(node)


def validity_view(node: dict[str, Any]) -> None:
    """A note's valid time as the API shows it, in place: ``validFrom`` as stored, and
    ``validUntil`` the earlier of what was stated and the start of the first note that
    supersedes it (``supersededFrom``, which the projections read from the edges); both ISO,
    absent when open."""
    ends = [e for e in [node.get("validUntil"), *(node.pop("supersededFrom", None) or ())] if e is not None]
    node["validUntil"] = min(ends) if ends else None
    for key in ("validFrom", "validUntil"):
        if node.get(key) is not None:
            node[key] = iso_millis(node[key])
        else:
            node.pop(key, None)


def batch_result_view(result: CreateResult, requested_id: str | None) -> dict[str, Any]:
    """One item's outcome in a batch create's answer: what became of it and the ids that
    name it, never the note itself (1,000 items folded into one note would repeat it, with
    its merge records, 1,000 times).

    ``outcome`` is ``created`` (``id``: the new note), ``existing`` (the id existed with the
    same fields), ``merged`` (``id``: the id asked for, if any; ``mergedInto``: the twin;
    ``alreadyMerged`` when an earlier create of that id was folded and this one changed
    nothing) or ``proposed`` (``proposal``: its id and status); a created note that updates a
    near-twin names it (``supersedes`` or ``conflictsWith``)."""
    if result.proposal is not None:
        view: dict[str, Any] = {"outcome": "proposed"}
        if requested_id is not None:
            view["id"] = requested_id
        view["proposal"] = {"id": result.proposal["id"], "status": result.proposal["status"]}
        return view
    if result.merged_into:
        view = {"outcome": "merged"}
        if requested_id is not None:
            view["id"] = requested_id
        view["mergedInto"] = result.merged_into
        if result.already_merged:
            view["alreadyMerged"] = True
        return view
    assert result.node is not None  # noqa: S101 - a create that is not a proposal has its note
    view = {"id": result.node["id"], "outcome": "created" if result.created else "existing"}
    if result.supersedes:
        view["supersedes"] = result.supersedes
    if result.conflicts_with:
        view["conflictsWith"] = result.conflicts_with
    return view


def written_by(role: str | None, agent_id: str | None, person_fields: list[str] | None) -> dict[str, Any]:
    """Who wrote a note: who created it, and which of its fields a person wrote last (the
    rest an agent or a pipeline of the service wrote; a note from before this was kept
    counts as its creator's)."""
    if person_fields is None:
        person_fields = list(NOTE_FIELDS) if role == "human" else []
    return {
        "createdByRole": role,
        "createdByAgent": agent_id,
        "personFields": sorted(set(person_fields) & set(NOTE_FIELDS)),
    }


def author_mark(note: Mapping[str, Any]) -> str:
    """How text handed to agents (a bridge, a brief) says a note is not a person's word:
    `` (written by agent X)`` when no person wrote its content, nothing when one did."""
    written = note.get("writtenBy") or {}
    if "content" in written.get("personFields", ["content"]):
        return ""
    agent = written.get("createdByAgent")
    if written.get("createdByRole") == "system":
        return f" (written by the service's {agent})" if agent else " (written by the service)"
    return f" (written by agent {agent})" if agent else " (written by an agent)"


def created_note_view(row: dict[str, Any], stamp: str, role: str, agent_id: str | None) -> dict[str, Any]:
    """A note this transaction created by ``role`` (and ``agent_id``), as the API shows it:
    everything but its time (``stamp``, from the database) is known already, so it is not
    read back."""
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
        # A person's create writes every field it sets (an open valid time is not set).
        "writtenBy": written_by(
            role,
            agent_id,
            [f for f in NOTE_FIELDS if f not in _SET_ONLY or row.get(f) is not None]
            if role == "human"
            else [],
        ),
    }
    if row.get("sourceRef") is not None:
        view["sourceRef"] = row["sourceRef"]
    for key in ("validFrom", "validUntil"):
        if row.get(key) is not None:
            view[key] = iso_millis(row[key])
    return data_view(view | {"data": row.get("data")})


#: Fields a create writes only when it sets them (an open valid time, no payload).
_SET_ONLY = frozenset({"validFrom", "validUntil", "data"})
