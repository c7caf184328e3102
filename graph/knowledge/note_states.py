"""A note's states as the journal, undo and proposals keep them: a snapshot of a deleted
note and how it is brought back, a patch as stored properties, a create as a proposal
holds it."""

from __future__ import annotations

import re
from typing import Any

from graph.core.errors import Conflict
from graph.knowledge.models import (
    KnowledgeSource,
    KnowledgeStatus,
    KnowledgeType,
    NewNote,
    NotePatch,
    note_label,
)
from graph.knowledge.valid_time import note_validity

#: The fields a note is embedded from: correcting them away changes what the note says.
TEXT_FIELDS = frozenset({"title", "content"})
#: A note's valid time and why it ended: a patch may remove them (an undo of an invalidation).
VALIDITY_FIELDS = ("validFrom", "validUntil", "invalidReason")
#: What a patch may remove: the valid time, and the payload (``data``).
CLEARABLE = (*VALIDITY_FIELDS, "data")


def superseded_by_snapshot(snap: dict[str, Any]) -> list[str]:
    """The notes a note (as ``note_snapshot`` read it) supersedes."""
    return sorted(
        {
            e["targetId"]
            for e in snap.get("edges") or []
            if e["relType"] == "SUPERSEDES" and e["sourceId"] == snap["id"]
        }
    )


def patch_props(patch: NotePatch) -> dict[str, Any]:
    """The stored properties a patch sets."""
    props: dict[str, Any] = {}
    for name in ("title", "content", "confidence"):
        value = getattr(patch, name)
        if value is not None:
            props[name] = value
    for name in ("type", "source", "status"):
        value = getattr(patch, name)
        if value is not None:
            props[name] = value.value
    if patch.tags is not None:
        props["tags"] = list(patch.tags)
    if patch.source_ref is not None:
        props["sourceRef"] = patch.source_ref
    if patch.data is not None:
        props["data"] = patch.data
    validity = {
        "validFrom": patch.valid_from,
        "validUntil": patch.valid_until,
        "invalidReason": patch.invalid_reason,
    }
    for name, value in validity.items():
        if value is not None:
            props[name] = value
    for name in patch.cleared:  # removed (a null in SET n += $props removes the property)
        props[name] = None
    return props


def patch_from_props(props: dict[str, Any]) -> NotePatch:
    """A patch that sets stored properties (of a proposal, of an undo)."""
    return NotePatch(
        title=props.get("title"),
        content=props.get("content"),
        type=KnowledgeType(props["type"]) if "type" in props else None,
        source=KnowledgeSource(props["source"]) if "source" in props else None,
        confidence=props.get("confidence"),
        tags=tuple(props["tags"]) if "tags" in props else None,
        status=KnowledgeStatus(props["status"]) if "status" in props else None,
        source_ref=props.get("sourceRef"),
        valid_from=props.get("validFrom"),
        valid_until=props.get("validUntil"),
        invalid_reason=props.get("invalidReason"),
        data=props.get("data"),
        cleared=frozenset(k for k in CLEARABLE if k in props and props[k] is None),
    )


def create_payload(note: NewNote, node_id: str) -> dict[str, Any]:
    """A create as a proposal keeps it (without its vector: approving embeds it again)."""
    return {
        "id": node_id, "title": note.title, "content": note.content, "type": note.type.value,
        "source": note.source.value, "confidence": note.confidence, "tags": list(note.tags),
        "dedupe": note.dedupe, "sourceRef": note.source_ref,
        "validFrom": note.valid_from, "validUntil": note.valid_until, "data": note.data,
    }  # fmt: skip


def note_from_payload(payload: dict[str, Any]) -> NewNote:
    """The create a proposal holds."""
    return NewNote(
        id=payload["id"], title=payload["title"], content=payload["content"],
        type=KnowledgeType(payload["type"]), source=KnowledgeSource(payload["source"]),
        confidence=payload["confidence"], tags=tuple(payload["tags"]), dedupe=payload["dedupe"],
        source_ref=payload.get("sourceRef"), valid_from=payload.get("validFrom"),
        valid_until=payload.get("validUntil"), data=payload.get("data"),
    )  # fmt: skip


def create_row(note: NewNote, node_id: str, embedding: list[float]) -> dict[str, Any]:
    """A new note as ``queries/knowledge/notes_create`` writes it (its valid time read from
    its text when none was sent; its payload, ``data``, as compact JSON text)."""
    return {
        "id": node_id,
        "title": note.title,
        "content": note.content,
        "type": note.type.value,
        "label": note_label(note.type),
        "source": note.source.value,
        "confidence": note.confidence,
        "tags": list(note.tags),
        "sourceRef": note.source_ref,
        **note_validity(note.title, note.content, note.valid_from, note.valid_until),
        "data": note.data,
        "embedding": embedding,
        # A vector the client sent is not the service's reading of the text: a person who
        # takes this text away later has it read again (corrections.read_stored).
        "vectorSupplied": True if note.embedding is not None else None,
        # Created with dedupe off: compared with nothing, by the create or the judge.
        "uncompared": None if note.dedupe else True,
    }


def created_state(row: dict[str, Any]) -> dict[str, Any]:
    """A new note's fields as the journal keeps them."""
    state = {k: row[k] for k in ("title", "content", "type", "source", "confidence", "tags")}
    for name in ("sourceRef", "validFrom", "validUntil", "data"):
        if row.get(name) is not None:
            state[name] = row[name]
    return state | {"status": KnowledgeStatus.ACTIVE.value}


def read_snapshot(note: dict[str, Any]) -> dict[str, Any]:
    """A note as ``note_snapshot`` read it, its times as epoch milliseconds (JSON, as the
    journal keeps them)."""
    snap = dict(note)
    for name in snap.get("times") or []:
        value = snap.get(name)
        if value is not None and not isinstance(value, int):
            snap[name] = int(value.to_native().timestamp() * 1000)
    return snap


def snapshot_state(snap: dict[str, Any], *, merges: int = 0) -> dict[str, Any]:
    """A deleted note as the journal keeps it: every property it held and its labels, and how
    many merge records its delete held (``mergesHeld``: found by the mutation's id) and edges
    it journaled on their own (``edgesJournaled``: each an ``edge.disconnect`` of the same
    write), so the entry is bounded by a note's own fields whatever it gathered; never its
    vector, which the delete's mutation keeps beside the JSON."""
    state = {k: v for k, v in snap.items() if v is not None and k not in _NOT_STATE}
    return state | {"mergesHeld": merges, "edgesJournaled": len(snap.get("edges") or [])}


#: What a label a note brings back from the journal looks like (the snapshot read it from
#: the note as stored; the check keeps anything else out of the restore's labels).
_LABEL = re.compile(r"^[A-Z][A-Za-z]{0,63}$")
#: Keys of a snapshot that are not properties of the note.
_NOT_PROPS = frozenset(
    {
        "id",
        "labels",
        "times",
        "merges",
        "edges",
        "embedding",
        "embeddingModel",
        "mergesHeld",
        "edgesJournaled",
    }
)
#: Keys of a snapshot the journal's state leaves out (the vector; what is kept elsewhere).
_NOT_STATE = frozenset({"embedding", "embeddingModel", "merges", "edges"})


def restorable(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The ``$note`` of ``queries/knowledge/note_restore`` for a journaled snapshot (those
    journaled before snapshots kept labels and times get their type's label and createdAt)."""
    labels = snapshot.get("labels") or [note_label(KnowledgeType(snapshot["type"]))]
    if not all(_LABEL.match(label) for label in labels):
        raise Conflict(f"the journaled note {snapshot['id']!r} cannot be brought back", field="id")
    merges = [
        {"id": None, "requestedId": None, "tags": [], "createdByRole": None, "createdByAgent": None} | m
        for m in snapshot.get("merges") or []
    ]
    props = {k: v for k, v in snapshot.items() if k not in _NOT_PROPS}
    times = snapshot.get("times") or (["createdAt"] if "createdAt" in props else [])
    return {"id": snapshot["id"], "labels": labels, "times": times, "props": props, "merges": merges}
