"""What may stop or hold back an undo, checked under the write gate in the undo's own
transaction (:mod:`graph.knowledge.undo`).

* The notes whose status an undo may flip (:func:`watched_notes`), read before and after it.
* An agent's undo that would change what a person corrected becomes a proposal (:func:`guard`).
* A 409 names the mutation to undo first: a status the supersedes edges forbid
  (:func:`check_status`), a loop of supersedes edges (:func:`check_loop`), a status that
  followed an edge's write (:func:`status_conflict`), a note deleted since (:func:`gone`), a
  later change of the same fields or edge (:func:`changed_since`).
"""

from __future__ import annotations

import json
from typing import Any

from graph.core import journal
from graph.core.db import Database
from graph.core.errors import Conflict
from graph.core.gate import Gated
from graph.core.principals import Principal
from graph.knowledge import corrections
from graph.knowledge.edges import held_statuses, people_words, statuses, would_flip
from graph.knowledge.models import NOTE_FIELDS, EdgeType, KnowledgeStatus, NewEdge, Proposed, rel_type_of
from graph.knowledge.note_states import superseded_by_snapshot


async def watched_notes(gated: Gated, m: dict[str, Any]) -> list[str]:
    """The notes whose status undoing ``m`` may flip (through supersedes edges it removes or
    brings back)."""
    op, before, after = m["op"], m.get("before") or {}, m.get("after") or {}
    if op == "note.create":
        rows = await gated.run("queries/knowledge/note_snapshot", id=m["targetId"], withEmbedding=False)
        return superseded_by_snapshot(rows[0]["note"]) if rows else []
    if op == "note.delete":
        edges = await deleted_edges(gated, m)
        return sorted(
            {e["targetId"] for e in edges if e["relType"] == "SUPERSEDES" and e["sourceId"] == m["targetId"]}
        )
    edge = after if op == "edge.connect" else before if op == "edge.disconnect" else {}
    return [edge["targetId"]] if edge.get("type") == EdgeType.SUPERSEDES.value else []


async def deleted_edges(gated: Gated, m: dict[str, Any]) -> list[dict[str, Any]]:
    """The edges the delete ``m`` of a note removed, each with its ``relType``: journaled on
    their own in its write (or, for a delete from before, inside its entry)."""
    before = m.get("before") or {}
    if "edges" in before:
        return [dict(e) for e in before["edges"]]
    [row] = await gated.run(
        "queries/knowledge/note_delete_edges", seq=m["seq"], part=m["part"], id=m["targetId"]
    )
    edges = []
    for entry in row["edges"]:
        edge = json.loads(entry["before"])
        edges.append(edge | {"relType": rel_type_of(EdgeType(edge["type"]))})
    return edges


async def guard(
    gated: Gated,
    principal: Principal,
    m: dict[str, Any],
    was: dict[str, dict[str, Any]],
    embedding: list[float] | None,
    dedupe_threshold: float,
) -> Proposed | None:
    """An agent's undo that would change what a person corrected (the note's corrected
    fields, a status a supersedes edge would flip, or a fact a person deleted that the
    restored note is a twin of) becomes a proposal."""
    op, target = m["op"], m["targetId"]
    fields: set[str] = set()
    holders: list[str | None] = []
    if m["targetType"] == "Knowledge":
        held = (await corrections.held(gated, [target])).get(target, {})
        fields = corrections.touched(m) & set(held)
        holders = [held[k] for k in fields]
    flipping = would_flip(was, removing=op in ("note.create", "edge.connect"))
    status_held = await held_statuses(gated, principal, flipping)
    if status_held:
        fields.add("status")
        holders.extend(status_held.values())
    edge = await _edge_held(gated, m)
    if edge != "":
        fields.add("edge")
        holders.append(edge)
    if op == "note.delete" and embedding is not None:
        before = m.get("before") or {}
        reading = corrections.Reading(embedding, corrections.fingerprint(before["title"], before["content"]))
        twins = await corrections.deleted_twins(gated, [(0, reading)], dedupe_threshold)
        if 0 in twins and twins[0]["targetId"] != target:
            fields.update(NOTE_FIELDS)
            holders.append(twins[0]["correctionId"])
    if not fields:
        return None
    return Proposed(await corrections.propose(
        gated, principal, op="undo", target_id=target, payload={"mutationId": m["id"]},
        fields=fields, corrections=holders,
    ))  # fmt: skip


async def _edge_held(gated: Gated, m: dict[str, Any]) -> str | None:
    """What holds an edge an agent's undo of ``m`` would change: a person made or confirmed
    the edge it removes (or whose confirmation it takes back, or that goes with the note
    whose create it undoes): :data:`PERSON_WRITTEN
    <graph.knowledge.corrections.PERSON_WRITTEN>`; a person removed the edge it makes again:
    their correction. ``""`` for nothing held (``None`` is a person's own word)."""
    op, before, after = m["op"], m.get("before"), m.get("after")
    if op == "note.create":  # the undo deletes the note, and its edges with it
        rows = await gated.run("queries/knowledge/note_snapshot", id=m["targetId"], withEmbedding=False)
        edges = rows[0]["note"]["edges"] if rows else []
        said = any(e.get("createdByRole") == "human" or e.get("confirmedByPerson") for e in edges)
        return corrections.PERSON_WRITTEN if said else ""
    edge = after if op == "edge.connect" else before if op == "edge.disconnect" else None
    if edge is None:
        return ""
    new = NewEdge(edge["sourceId"], EdgeType(edge["type"]), edge["targetId"])
    [word] = await people_words(gated, [new])
    if op == "edge.connect" and word["stands"] and word["personSaid"]:
        return corrections.PERSON_WRITTEN
    if op == "edge.disconnect" and not word["stands"] and word["removedBy"] is not None:
        return str(word["removedBy"])
    return ""


async def changed_since(gated: Gated, m: dict[str, Any]) -> None:
    """409 naming the first later mutation of the same fields of a note (of the same edge)."""
    later = await journal.later(gated, m)
    if m["targetType"] == "Knowledge":
        fields = corrections.touched(m)
        later = [lm for lm in later if corrections.touched(lm) & fields]
    if later:
        raise Conflict(
            f"{later[0]['op']} {later[0]['id']!r} changed {m['targetId']!r} after mutation "
            f"{m['id']!r}; undo it first",
            field="id",
            blocking_mutation=later[0]["id"],
        )


async def check_status(gated: Gated, m: dict[str, Any], status: str, was: dict[str, dict[str, Any]]) -> None:
    """An update's undo must leave the status the supersedes edges allow: ``superseded``
    only while something supersedes the note, ``active`` only while nothing does."""
    target = m["targetId"]
    now = was.get(target) or (await statuses(gated, [target]))[target]
    if status == KnowledgeStatus.SUPERSEDED.value and now["superseders"] == 0:
        problem, op = "nothing supersedes it any more", "edge.disconnect"
    elif status == KnowledgeStatus.ACTIVE.value and now["superseders"] > 0:
        problem, op = "a note supersedes it now", "edge.connect"
    else:
        return
    rows = await gated.run(
        "queries/knowledge/supersede_mutations_since", ids=[target], afterSeq=m["seq"]
    )  # fmt: skip
    cause = next((r for r in rows if r["op"] == op and r["targetId"].endswith(f" supersedes {target}")), None)
    raise Conflict(
        f"undoing {m['id']!r} would make {target!r} {status}, but {problem}"
        + (f" ({cause['op']} {cause['id']!r}); undo that first" if cause else ""),
        field="id",
        blocking_mutation=cause["id"] if cause else None,
    )


async def check_loop(gated: Gated, m: dict[str, Any], node_id: str, what: str) -> None:
    """409 when ``node_id`` is now on a loop of supersedes edges, naming the newest
    mutation since ``m`` that made an edge of that loop."""
    [loops] = await gated.run("queries/knowledge/supersede_loops", ids=[node_id])
    if not loops["looping"]:
        return
    [loop] = await gated.run("queries/knowledge/supersede_loop_nodes", id=node_id)
    rows = await gated.run(
        "queries/knowledge/supersede_mutations_since", ids=loop["ids"], afterSeq=m["seq"]
    )  # fmt: skip
    cause = next((r for r in rows if r["op"] == "edge.connect"), None)
    raise Conflict(
        f"{what} would close a loop of supersedes edges ({' -> '.join(loop['ids'])})"
        + (f", made by {cause['op']} {cause['id']!r}; undo that first" if cause else ""),
        field="id",
        blocking_mutation=cause["id"] if cause else None,
    )


async def status_conflict(db: Database, principal: Principal, mutation: dict[str, Any]) -> Conflict:
    """The 409 of undoing a status a supersedes edge set: the edge's write is what to undo."""
    rows = await journal.of_write(db, principal, mutation["seq"])
    cause = next((r for r in rows if r["op"] != "note.status"), None)
    target = mutation["targetId"]
    if cause is None:
        return Conflict(f"the status of {target!r} followed a supersedes edge; undo that write", field="id")
    return Conflict(
        f"the status of {target!r} followed {cause['op']} {cause['id']!r} (a supersedes edge); undo that",
        field="id",
        blocking_mutation=cause["id"],
    )


async def gone(gated: Gated, m: dict[str, Any], notes: list[str]) -> Conflict:
    """The 409 of an edge undo whose note was deleted since, naming that delete."""
    for note_id in notes:
        for later in await journal.history(gated, note_id, after_seq=m["seq"] - 1):
            if later["op"] == "note.delete":
                return Conflict(
                    f"note {note_id!r} was deleted after mutation {m['id']!r} (note.delete "
                    f"{later['id']!r}); undo that first",
                    field="id",
                    blocking_mutation=later["id"],
                )
    return Conflict(f"a note of {m['targetId']!r} no longer exists", field="id")
