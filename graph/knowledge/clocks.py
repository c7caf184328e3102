"""Both clocks of a note: valid time (``asOf``: what was true at T) and record time
(``asKnownAt``: what the memory held at T, replayed from the journal).

Valid time is stored on the note (``validFrom``, ``validUntil``, epoch milliseconds) and on
edges; a supersedes edge ends the older note at the newer one's start. The queries test it
(``cypher/queries/knowledge/search_*``, ``note_version_at``, ``notes_list``); this module
holds the record-time side: a note's fields as its mutations left them at T (a create sets
them, an update, status change or merge changes some, a delete ends the note; an undo is
journaled as the change it makes, so it replays the same way), and the valid-time test of
such a replayed state.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.core.db import Database
from graph.core.values import iso_millis
from graph.knowledge.models import NOTE_FIELDS, KnowledgeStatus
from graph.knowledge.valid_time import millis_now

#: The fields of a note the journal's states carry, and a replay sets.
_REPLAYED = frozenset({*NOTE_FIELDS, "sourceRef", "invalidReason"})


@dataclass(frozen=True)
class Known:
    """A note as the journal recorded it up to a moment: its fields (``None``: it did not
    exist then, or had been deleted), when it was created and last changed then."""

    fields: dict[str, Any] | None
    created_at: int | None
    changed_at: int | None


def replay(changes: Sequence[dict[str, Any]]) -> Known:
    """The state ``changes`` (a note's mutations in commit order, their states as JSON text)
    leave."""
    fields: dict[str, Any] | None = None
    created = changed = None
    for change in changes:
        after = json.loads(change["after"]) if change.get("after") else None
        if change["op"] == "note.create" and isinstance(after, dict):
            fields = {k: v for k, v in after.items() if k in _REPLAYED}
            created = change["at"] if created is None or change["at"] < created else created
        elif change["op"] == "note.delete":
            fields = None
        elif fields is not None and isinstance(after, dict):
            fields |= {k: v for k, v in after.items() if k in _REPLAYED}
        changed = change["at"]
    return Known(fields, created, changed)


async def known_at(db: Database, user_id: str, ids: Sequence[str], moment: int) -> dict[str, Known]:
    """Each of these notes as the journal recorded it up to ``moment`` (a note with no
    mutation then is absent)."""
    if not ids:
        return {}
    rows = await db.read("queries/knowledge/notes_known_at", userId=user_id, ids=list(ids), knownAt=moment)
    return {r["id"]: replay(r["changes"]) for r in rows}


def held_view(
    now: dict[str, Any] | None, node_id: str, known: Known | None, moment: int
) -> dict[str, Any] | None:
    """A note as the memory held it at ``moment``, in the API's shape: ``now`` (its view
    today, ``None`` when it is gone) with the fields the journal had then, or ``None`` when
    it was not held then. A note the journal never recorded counts as held as it is since it
    was created (notes from before the journal)."""
    if known is None:
        if now is None or _millis(now["createdAt"]) > moment:
            return None
        return now
    if known.fields is None:
        return None
    base = dict(now) if now is not None else {"id": node_id, "mergeCount": 0, "merges": []}
    view = base | {k: v for k, v in known.fields.items() if k not in ("validFrom", "validUntil")}
    ended_by_edge = now.get("validUntil") if now is not None else None  # a superseder's start
    for key in ("validFrom", "validUntil"):
        view.pop(key, None)
        if known.fields.get(key) is not None:
            view[key] = iso_millis(known.fields[key])
    if "validUntil" not in view and known.fields.get("status") == "superseded" and ended_by_edge:
        view["validUntil"] = ended_by_edge  # superseded then: ended where its superseder began
    if known.fields.get("invalidReason") is None:
        view.pop("invalidReason", None)
    view.pop("data", None)  # the payload as held then (journaled as its compact JSON text)
    if known.fields.get("data") is not None:
        view["data"] = json.loads(known.fields["data"])
    if known.created_at is not None:
        view.setdefault("createdAt", iso_millis(known.created_at))
    if known.changed_at is not None:
        view["updatedAt"] = iso_millis(known.changed_at)
    view.setdefault("status", KnowledgeStatus.ACTIVE.value)
    return view


def valid_at(view: dict[str, Any], moment: int | None, *, begun: bool = True) -> bool:
    """Whether a note (as the API shows it) was true at ``moment`` (now, if ``None``): its
    validity had begun (unless ``begun`` is false) and had not ended."""
    moment = millis_now() if moment is None else moment
    end = _millis(view["validUntil"]) if view.get("validUntil") else None
    recorded = _millis(view["createdAt"])
    # Begun at validFrom, else when recorded; recorded after its end, at no known time.
    start = (
        _millis(view["validFrom"])
        if view.get("validFrom")
        else (0 if end is not None and end <= recorded else recorded)
    )
    started = not begun or start <= moment
    return started and (end is None or end > moment)


def _millis(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp() * 1000)
