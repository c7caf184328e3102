"""The edges a create makes from each update to the note it changes (a near-twin that changes
a value ``supersedes`` or ``conflictsWith`` it): their rows, and the ones a person's word
holds back from an agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.core.gate import Gated
from graph.knowledge.edges import people_words
from graph.knowledge.models import EdgeType, NewEdge, NewNote, rel_type_of


def update_kind(supersedes: bool) -> EdgeType:
    """The edge an update makes: ``supersedes`` when it plainly replaces the value, else
    ``conflictsWith`` (which is current is unclear)."""
    return EdgeType.SUPERSEDES if supersedes else EdgeType.CONFLICTS_WITH


async def removed_links(gated: Gated, wanted: dict[int, NewEdge]) -> dict[int, dict[str, str | None]]:
    """For an agent's create: the updates (by index) whose edge a person removed and that do
    not stand, each as the held field ``edge`` with the correction that holds it (an agent
    does not make such an edge again alone, on this path as on a connect)."""
    if not wanted:
        return {}
    order = sorted(wanted)
    words = await people_words(gated, [wanted[i] for i in order])
    return {
        i: {"edge": word["removedBy"]}
        for i, word in zip(order, words, strict=True)
        if not word["stands"] and word["removedBy"] is not None
    }


def update_rows(
    notes: Sequence[tuple[str, NewNote]], updates: dict[int, tuple[str, EdgeType, str]]
) -> list[dict[str, Any]]:
    """Each update's edge to the note it changes, as ``edges_create`` takes it (``notes``:
    each index's note id and note)."""
    return [
        {
            "index": i, "sourceId": notes[i][0], "targetId": twin, "relType": rel_type_of(kind),
            "source": notes[i][1].source.value, "confidence": notes[i][1].confidence,
            "note": f"an update: its {why} changed",
        }
        for i, (twin, kind, why) in sorted(updates.items())
    ]  # fmt: skip


def linked(updates: dict[int, tuple[str, EdgeType, str]], index: int, kind: EdgeType) -> str | None:
    """The note an update of this kind links the note at ``index`` to, if any."""
    twin, made, _ = updates.get(index, (None, None, None))
    return twin if made == kind else None
