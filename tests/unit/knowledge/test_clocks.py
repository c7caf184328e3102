"""Record time replayed from the journal, and the valid-time test of what it gives back."""

from __future__ import annotations

import json
from typing import Any

from graph.core.values import iso_millis
from graph.knowledge.clocks import held_view, replay, valid_at

DAY = 86_400_000


def change(op: str, at: int, after: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"op": op, "at": at, "after": json.dumps(after) if after is not None else None}


def test_replay_follows_creates_updates_deletes_and_undos_in_order() -> None:
    created = {
        "title": "Owner",
        "content": "Team Atlas.",
        "type": "fact",
        "status": "active",
        "embedding": [1],
    }
    changes = [
        change("note.create", 1_000, created),
        change("note.update", 2_000, {"content": "Team Borealis."}),
        change("note.update", 3_000, {"validUntil": 5_000, "invalidReason": "dissolved"}),
    ]
    known = replay(changes)
    assert known.fields is not None and "embedding" not in known.fields
    assert (known.fields["content"], known.fields["validUntil"], known.created_at, known.changed_at) == (
        "Team Borealis.", 5_000, 1_000, 3_000,
    )  # fmt: skip
    assert replay([*changes, change("note.delete", 4_000)]).fields is None
    back = replay([*changes, change("note.delete", 4_000), change("note.create", 5_000, created)])
    assert back.fields is not None and back.fields["content"] == "Team Atlas." and back.created_at == 1_000


def test_a_held_view_is_the_note_as_it_was_and_none_before_it_was_recorded() -> None:
    now = {
        "id": "n",
        "content": "new",
        "status": "active",
        "createdAt": iso_millis(1_000),
        "validUntil": None,
    }
    known = replay([change("note.create", 1_000, {"content": "old", "status": "active"})])
    view = held_view(dict(now), "n", known, 1_500)
    assert view is not None and view["content"] == "old"
    assert held_view(dict(now), "n", None, 500) is None  # recorded after the moment, no journal
    gone = held_view(None, "n", known, 1_500)
    assert gone is not None and gone["createdAt"] == iso_millis(1_000)


def test_valid_at_begins_at_valid_from_else_when_recorded_else_at_no_known_time() -> None:
    recorded = 100 * DAY
    note = {"createdAt": iso_millis(recorded)}
    assert not valid_at(note, recorded - DAY) and valid_at(note, recorded + DAY)
    stated = note | {"validFrom": iso_millis(10 * DAY), "validUntil": iso_millis(50 * DAY)}
    assert valid_at(stated, 20 * DAY) and not valid_at(stated, 50 * DAY) and not valid_at(stated, 5 * DAY)
    late = note | {"validUntil": iso_millis(50 * DAY)}  # recorded after its stated end
    assert valid_at(late, 1) and not valid_at(late, 60 * DAY)
    assert valid_at(note | {"validFrom": iso_millis(200 * DAY)}, 150 * DAY, begun=False)
