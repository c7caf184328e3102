"""Which journal entries the timeline shows as a supersession."""

from __future__ import annotations

from typing import Any

from api.desk.timeline import superseding_edge

EDGE = {"sourceId": "new", "targetId": "old", "type": "supersedes"}


def entry(op: str, before: dict[str, Any] | None, after: dict[str, Any] | None) -> dict[str, Any]:
    return {"id": "m1", "op": op, "targetType": "Edge", "before": before, "after": after}


def test_a_supersedes_edge_made_or_removed_is_a_supersession() -> None:
    assert superseding_edge(entry("edge.connect", None, EDGE)) == EDGE
    assert superseding_edge(entry("edge.disconnect", EDGE, None)) == EDGE


def test_other_edges_a_confirmation_and_note_entries_are_not() -> None:
    related = EDGE | {"type": "relatedTo"}
    assert superseding_edge(entry("edge.connect", None, related)) is None
    assert superseding_edge(entry("edge.connect", None, EDGE | {"type": "conflictsWith"})) is None
    # A person's word on an agent's edge as it stands: the supersession was the agent's write.
    assert superseding_edge(entry("edge.connect", EDGE, EDGE | {"confirmedByPerson": True})) is None
    assert superseding_edge({"op": "note.status", "before": {"status": "active"}, "after": EDGE}) is None
    assert superseding_edge(entry("edge.connect", None, None)) is None
