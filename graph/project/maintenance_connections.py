"""Maintenance's validate-connections task: what must not be among a user's typed edges,
found and repaired, and what a person must decide, reported.

* Edges whose other end is not a note of the user (``dangling``) or is another user's note
  (``acrossUsers``) are removed.
* Each loop of supersedes edges is broken at its newest edge, found one loop at a time
  (:func:`loops_to_break`), so loops sharing edges are broken with as few removals as
  that rule allows.
* The statuses those removals change are put right as removing the edge through the API
  would (a note superseded by nothing becomes active again), unless a person's correction
  holds a note's status against a non-human caller: then its edges stay, reported as held
  back.
* Conflicts between two superseded notes and notes superseded only by archived ones are
  reported, not changed.

:class:`~graph.project.maintenance.MaintenanceService` runs it under the user's write gate
and cuts the lists for the report; each change is journaled here, in the same transaction,
as the edge service journals the removal of an edge (``edge.disconnect``, ``note.status``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graph.core import journal
from graph.core.gate import Gated
from graph.core.principals import Principal
from graph.core.scopes import require_unscoped
from graph.knowledge import corrections
from graph.knowledge.edges import edge_state, edge_target, status_changes, statuses
from graph.knowledge.models import KnowledgeStatus, edge_type_of

#: Stands in the journal for an edge's end that is not one of the user's notes (never an id).
UNNAMED_END = "?"


@dataclass(frozen=True)
class _Removal:
    """An edge validate-connections removes: where to find it (its element id beside the
    user's note), what the journal keeps of it, what it is in the report, and the user's
    note it supersedes (whose status its removal may restore)."""

    element: str
    note_id: str
    edge: dict[str, Any]
    problem: str
    into: str | None = None
    #: Whether the source is a note (of anyone): only those count as superseders.
    from_note: bool = True

    @property
    def journal_id(self) -> str:
        return edge_target(self.edge)

    def view(self) -> dict[str, Any]:
        """As the report lists it: ends that are not the user's notes are null."""
        ends = {k: None if self.edge[k] == UNNAMED_END else self.edge[k] for k in ("sourceId", "targetId")}
        return {**ends, "type": edge_type_of(self.edge["relType"]).value, "problem": self.problem}


def _stray_removal(row: dict[str, Any]) -> _Removal:
    """A dangling or cross-user edge as found by ``maintenance_stray_edges``."""
    other = row["otherId"] or UNNAMED_END
    source, target = (row["noteId"], other) if row["outgoing"] else (other, row["noteId"])
    edge = dict(row["edge"]) | {"sourceId": source, "targetId": target}
    superseding = edge["relType"] == "SUPERSEDES" and not row["outgoing"]
    return _Removal(
        row["element"], row["noteId"], edge, row["problem"],
        into=row["noteId"] if superseding else None, from_note=bool(row["otherIsNote"]),
    )  # fmt: skip


def find_loop(edges: Sequence[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """One loop among these supersedes edges (``{sourceId, targetId, ...}``), as its edges in
    order, or ``None``; the same edges always give the same loop (ids in order)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for edge in sorted(edges, key=lambda e: (e["sourceId"], e["targetId"])):
        out.setdefault(edge["sourceId"], []).append(edge)
    done: set[str] = set()
    for start in sorted(out):
        if start in done:
            continue
        # Depth first without recursion (a chain may be long): the stack holds the nodes
        # on the current path, `path` the edges between them.
        stack = [(start, iter(out.get(start, [])))]
        on_path = {start}
        path: list[dict[str, Any]] = []
        while stack:
            node, successors = stack[-1]
            step = next(successors, None)
            if step is None:
                stack.pop()
                on_path.discard(node)
                done.add(node)
                if path:
                    path.pop()
                continue
            after = step["targetId"]
            if after in on_path:
                back = next(i for i, (n, _) in enumerate(stack) if n == after)
                return path[back:] + [step]
            if after not in done:
                on_path.add(after)
                path.append(step)
                stack.append((after, iter(out.get(after, []))))
    return None


def loops_to_break(edges: Sequence[dict[str, Any]]) -> list[tuple[list[dict[str, Any]], dict[str, Any]]]:
    """Each loop among these supersedes edges with its newest edge (by ``createdAt``, then
    ids), found one at a time, each after the newest edge of the one before is taken out:
    loops sharing edges are broken with as few removals as that rule allows."""
    remaining = list(edges)
    found: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []
    while (loop := find_loop(remaining)) is not None:
        newest = max(loop, key=lambda e: (e.get("createdAt") or 0, e["sourceId"], e["targetId"]))
        found.append((loop, newest))
        remaining = [e for e in remaining if e is not newest]
    return found


def freed_notes(was: dict[str, dict[str, Any]], removals: Sequence[_Removal]) -> list[str]:
    """The notes (``was`` as :func:`~graph.knowledge.edges.statuses` read them) that these
    removals leave superseded by nothing: they become active again. The rule of
    :func:`~graph.knowledge.edges.would_flip` for one removal, for several into one note."""
    taken: dict[str, int] = {}
    for removal in removals:
        if removal.into is not None and removal.from_note:
            taken[removal.into] = taken.get(removal.into, 0) + 1
    return sorted(
        note_id
        for note_id, n in was.items()
        if n["status"] == KnowledgeStatus.SUPERSEDED.value and n["superseders"] <= taken.get(note_id, 0)
    )


async def validate(gated: Gated, principal: Principal, dry_run: bool) -> dict[str, list[Any]]:
    """Under the user's gate (or, for a dry run, in a read transaction): find and repair what
    must not be among the user's typed edges, and list what a person must decide; the
    report's lists, by name (each complete: the task cuts them)."""
    require_unscoped(principal, "maintenance (it reaches every part of the memory)")
    stray = [_stray_removal(row) for row in await gated.run("queries/project/maintenance_stray_edges")]
    loop_edges = [
        dict(row["edge"]) | {"element": row["element"]}
        for row in await gated.run("queries/project/maintenance_supersede_loops")
    ]
    loops = loops_to_break(loop_edges)
    breaking = [
        _Removal(
            newest["element"],
            newest["sourceId"],
            {k: v for k, v in newest.items() if k != "element"},
            "supersedeLoop",
            into=newest["targetId"],
        )  # fmt: skip
        for _, newest in loops
    ]
    planned = stray + breaking
    watched = sorted({r.into for r in planned if r.into is not None})
    was = await statuses(gated, watched)
    freed = freed_notes(was, planned)
    held: dict[str, str] = {}  # note id -> the correction that holds its status
    if freed and corrections.is_agent(principal):
        corrected = await corrections.corrected(gated, freed)
        held = {note: fields["status"] for note, fields in corrected.items() if "status" in fields}
    removing = [r for r in planned if r.into not in held]
    held_back = [
        r.view() | {"noteId": r.into, "correctionId": held[r.into]}
        for r in planned
        if r.into is not None and r.into in held
    ]
    restored = [note for note in freed if note not in held]
    if not dry_run and removing:
        rows = [{"element": r.element, "noteId": r.note_id} for r in removing]
        [row] = await gated.run("queries/project/maintenance_edges_remove", rows=rows)
        gone = set(row["removed"])
        removing = [r for r in removing if r.element in gone]
        now = await statuses(gated, watched)
        restored = [n for n in watched if n in now and now[n]["status"] != was[n]["status"]]
        # As the edge service journals a removal: the statuses it flipped first, the
        # edges last (a write's last mutation is its own change).
        await journal.record_many(gated, principal, [
            *status_changes(was, now),
            *(journal.Change("edge.disconnect", "Edge", r.journal_id, edge_state(r.edge), None)
              for r in removing),
        ])  # fmt: skip
    conflicts = [dict(r) for r in await gated.run("queries/project/maintenance_superseded_conflicts")]
    orphaned = [dict(r) for r in await gated.run("queries/project/maintenance_superseded_by_archived")]
    removed = {r.element for r in removing}
    loop_views = [
        {
            "notes": [e["sourceId"] for e in loop],
            "newestEdge": {
                "sourceId": newest["sourceId"],
                "type": "supersedes",
                "targetId": newest["targetId"],
            },
            "broken": newest["element"] in removed,
        }
        for loop, newest in loops
    ]
    lists: dict[str, list[Any]] = {
        "dangling": [r.view() for r in stray if r.problem == "dangling"],
        "acrossUsers": [r.view() for r in stray if r.problem == "acrossUsers"],
        "supersedeLoops": loop_views,
        "supersededConflicts": conflicts,
        "supersededByArchived": orphaned,
        "removed": [r.view() for r in removing],
        "statusesRestored": restored,
        "heldBack": held_back,
    }
    return lists
