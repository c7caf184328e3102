"""Typed edges between a user's notes: connect (one or a batch), list, disconnect.

Exactly four types (:class:`~graph.knowledge.models.EdgeType`); both ends must be the
caller's notes, so no edge ever dangles or crosses users. ``A supersedes B`` marks B
superseded, and removing the edge restores it unless something else still supersedes it
(in the queries, so every path that writes edges keeps the rule).

A person's word holds for edges as for notes: an edge a person made (``createdByRole``) or
confirmed (their connect of an agent's edge as it stands, ``confirmedByPerson``) is not
removed by an agent alone, and an edge a person removed (a ``Correction`` of target type
``Edge``, with the reason given) is not made again by an agent alone: either write becomes
a proposal, until a person approves it or connects the edge again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from graph.core import journal
from graph.core.db import Database
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Scope
from graph.core.values import decode_key_cursor, encode_key_cursor
from graph.knowledge import corrections
from graph.knowledge.edge_states import (
    EdgeResult,
    edge_keys,
    edge_payload,
    edge_row,
)
from graph.knowledge.edge_states import edge_state as edge_state  # others read them here
from graph.knowledge.edge_states import edge_target as edge_target
from graph.knowledge.models import (
    ALL_REL_TYPES,
    MAX_BATCH,
    EdgeType,
    KnowledgeStatus,
    NewEdge,
    Proposed,
    rel_type_of,
)
from graph.knowledge.views import edge_view


class EdgeService:
    """Create, list and remove the typed edges of a user's notes."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._gate = WriteGate(db)

    async def connect(
        self,
        principal: Principal,
        edges: Sequence[NewEdge],
        *,
        batch: bool,
        approving: str | None = None,
        then: Callable[[Gated, list[str]], Awaitable[None]] | None = None,
    ) -> list[tuple[dict[str, Any], bool]] | Proposed:
        """Create edges (:meth:`connect_batch` says how): each as the API shows it and whether
        it was made now; a write held back alone is the proposal it became."""
        made = await self._connect(principal, edges, batch=batch, approving=approving, then=then)
        if isinstance(made, Proposed):
            return made
        return [(edge, created) for edge, created, _ in made]

    async def connect_batch(self, principal: Principal, edges: Sequence[NewEdge]) -> list[EdgeResult]:
        """Create up to 1,000 edges in one transaction; an item a person's word holds back is
        its own proposal, and the others are written."""
        made = await self._connect(principal, edges, batch=True)
        assert not isinstance(made, Proposed)  # noqa: S101 - a batch proposes item by item
        return made

    async def _connect(
        self,
        principal: Principal,
        edges: Sequence[NewEdge],
        *,
        batch: bool,
        approving: str | None = None,
        then: Callable[[Gated, list[str]], Awaitable[None]] | None = None,
    ) -> list[EdgeResult] | Proposed:
        """Create edges in one transaction; both ends must be the caller's notes. An agent's
        edge that a person removed (an active correction), or a supersedes edge that would mark
        superseded a note whose status a person wrote or corrected, is not applied but proposed:
        the whole write alone, each such item in a batch (the others are written). A person's
        connect of an agent's edge as it stands is their word on it (journaled, held from then on)."""
        if len(edges) > MAX_BATCH:
            raise InvalidInput(f"at most {MAX_BATCH} edges per batch, got {len(edges)}", field="items")

        def field(i: int, name: str) -> str:
            return f"items.{i}.{name}" if batch else name

        for i, edge in enumerate(edges):
            if edge.source_id == edge.target_id:
                raise Conflict("a note cannot be connected to itself", field=field(i, "targetId"))
        wanted = sorted({e.source_id for e in edges} | {e.target_id for e in edges})
        superseded = sorted({e.target_id for e in edges if e.type == EdgeType.SUPERSEDES})

        async def work(gated: Gated) -> list[EdgeResult] | Proposed:
            [found] = await gated.run(
                "queries/knowledge/notes_existing_ids", ids=wanted, scope=Scope.of(principal.scope)
            )
            present = set(found["ids"])
            for i, e in enumerate(edges):
                for name, node_id in (("sourceId", e.source_id), ("targetId", e.target_id)):
                    if node_id not in present:
                        raise NotFound(f"no note {node_id!r}", field=field(i, name))
            words = await people_words(gated, edges)
            was = await statuses(gated, superseded)
            holds = {} if approving is not None else await _holds(gated, principal, edges, words, was)
            if holds and not batch:
                fields, holders = holds[0]
                return Proposed(await corrections.propose(
                    gated, principal, op="edge.connect", target_id=edges[0].target_id,
                    payload={"edges": [edge_payload(edges[0])]}, fields=fields, corrections=holders,
                ))  # fmt: skip
            proposals = {i: await _propose_item(gated, principal, edges[i], *holds[i]) for i in sorted(holds)}
            made = [i for i in range(len(edges)) if i not in holds]
            created = await gated.run(
                "queries/knowledge/edges_create", rows=[edge_row(i, edges[i]) for i in made],
                role=principal.role.value, agentId=principal.agent_id,
            )  # fmt: skip
            await _no_loop(gated, edges, made, field)
            ordered = sorted(created, key=lambda r: r["index"])
            changes, keys = [], []  # the changes to journal, the edge of each
            for r in ordered:
                if r["created"]:
                    state = edge_state(r["edge"])
                    changes.append(journal.Change(
                        "edge.connect", "Edge", edge_target(r["edge"]), None, state, proposal_id=approving
                    ))  # fmt: skip
                elif not corrections.is_agent(principal) and _agents(words[r["index"]]):
                    changes.append(await _confirm(gated, r["edge"], approving))
                else:
                    continue
                keys.append(r["edge"])
            # What the edges flipped comes first: a write's last mutation is its own change.
            flipped = status_changes(was, await statuses(gated, superseded), approving)
            mutation_ids = await journal.record_many(gated, principal, flipped + changes)
            for mutation_id, made_edge in zip(mutation_ids[len(flipped) :], keys, strict=True):
                await person_word(gated, principal, mutation_id, made=made_edge)
            if then is not None:
                await then(gated, mutation_ids)
            results: dict[int, EdgeResult] = {
                r["index"]: (edge_view(r["edge"]), bool(r["created"]), None) for r in ordered
            }
            for i, proposal in proposals.items():
                results[i] = (
                    edge_view(edge_row(i, edges[i]) | {"type": rel_type_of(edges[i].type)}),
                    False,
                    proposal,
                )
            return [results[i] for i in range(len(edges))]

        return await self._gate.write(principal.user_id, work)

    async def connections(
        self, principal: Principal, node_id: str, *, limit: int = 500, cursor: str | None = None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A note's edges in both directions, a page at a time (by source id, type, target id)."""
        scope = Scope.of(principal.scope)
        [found] = await self._db.read(
            "queries/knowledge/notes_existing_ids", userId=principal.user_id, ids=[node_id], scope=scope
        )
        if not found["ids"]:
            raise NotFound(f"no note {node_id!r}", field="id")
        rows = await self._db.read(
            "queries/knowledge/edges_of_note", userId=principal.user_id, id=node_id, relTypes=ALL_REL_TYPES,
            scope=scope, after=decode_key_cursor(cursor) if cursor else None, limit=limit + 1,
        )  # fmt: skip
        items = [edge_view(r["edge"]) for r in rows[:limit]]
        return items, encode_key_cursor(rows[limit - 1]["key"]) if len(rows) > limit else None

    async def list_edges(
        self, principal: Principal, *, limit: int = 500, cursor: str | None = None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Every edge of the caller's, a page at a time (by source id, type, target id)."""
        after = decode_key_cursor(cursor) if cursor else None
        rows = await self._db.read(
            "queries/knowledge/edges_list", userId=principal.user_id, relTypes=ALL_REL_TYPES,
            scope=Scope.of(principal.scope), after=after, afterSource=after.split(" ")[0] if after else None,
            limit=limit + 1,
        )  # fmt: skip
        items = [edge_view(r["edge"]) for r in rows[:limit]]
        return items, encode_key_cursor(rows[limit - 1]["key"]) if len(rows) > limit else None

    async def disconnect(
        self,
        principal: Principal,
        node_id: str,
        edge_type: EdgeType,
        target_id: str,
        *,
        approving: str | None = None,
        then: Callable[[Gated, list[str]], Awaitable[None]] | None = None,
    ) -> Proposed | None:
        """Remove one edge (404 if there is none). An agent's removal of an edge a person made
        or confirmed, or of the last supersedes edge into a note whose status a person wrote or
        corrected, becomes a proposal; a person's removal is a correction (with the request's
        ``X-Change-Reason``), so an agent does not make the edge again alone."""

        async def work(gated: Gated) -> Proposed | None:
            if principal.scope is not None:  # a scoped key touches only edges inside its scope
                ends = [node_id, target_id]
                [found] = await gated.run(
                    "queries/knowledge/notes_existing_ids", ids=ends, scope=Scope.of(principal.scope)
                )
                for name, end in (("id", node_id), ("targetId", target_id)):
                    if end not in found["ids"]:
                        raise NotFound(f"no note {end!r}", field=name)
            watched = [target_id] if edge_type == EdgeType.SUPERSEDES else []
            was = await statuses(gated, watched)
            flips = would_flip(was, removing=True)
            if flips and corrections.is_agent(principal):  # only if the one superseder is this edge
                [by] = await gated.run("queries/knowledge/superseded_by", id=target_id)
                flips = flips if node_id in by["ids"] else []
            if approving is None and corrections.is_agent(principal):
                held: dict[str, str | None] = dict(await held_statuses(gated, principal, flips))
                [word] = await people_words(gated, [NewEdge(node_id, edge_type, target_id)])
                if word["stands"] and word["personSaid"]:
                    held["edge"] = corrections.PERSON_WRITTEN
                if held:
                    return Proposed(await corrections.propose(
                        gated, principal, op="edge.disconnect", target_id=target_id,
                        payload={"sourceId": node_id, "type": edge_type.value, "targetId": target_id},
                        fields=["edge" if k == "edge" else "status" for k in held],
                        corrections=held.values(),
                    ))  # fmt: skip
            rows = await gated.run(
                "queries/knowledge/edge_delete", sourceId=node_id, targetId=target_id,
                relType=rel_type_of(edge_type),
            )  # fmt: skip
            if not rows or rows[0]["deleted"] == 0:
                missing = f"no {edge_type.value} edge from {node_id!r} to {target_id!r}"
                raise NotFound(missing, field="targetId")
            removed = [edge_state(edge) for edge in rows[0]["edges"]]
            changes = [
                journal.Change(
                    "edge.disconnect", "Edge", edge_target(edge), edge, None, proposal_id=approving
                )
                for edge in removed
            ]
            flipped = status_changes(was, await statuses(gated, watched), approving)
            mutation_ids = await journal.record_many(gated, principal, flipped + changes)
            for mutation_id, edge in zip(mutation_ids[len(flipped) :], removed, strict=True):
                await person_word(gated, principal, mutation_id, removed=edge)
            if then is not None:
                await then(gated, mutation_ids)
            return None

        return await self._gate.write(principal.user_id, work)


async def person_word(
    gated: Gated,
    principal: Principal,
    mutation_id: str,
    *,
    removed: dict[str, Any] | None = None,
    made: dict[str, Any] | None = None,
) -> None:
    """A person's word on an edge, kept with the mutation that wrote it: their removal of an
    edge (a disconnect, an undo of a connect) is a correction with the reason given, so an
    agent does not make it again alone; their making it (a connect, an undo of a disconnect)
    retires the corrections that held it removed (an undo of that brings them back)."""
    if corrections.is_agent(principal):
        return
    if removed is not None:
        await corrections.record(
            gated, principal, mutation_id=mutation_id, kind="delete", node_id=edge_target(removed),
            fields=["edge"], before={"edge": removed}, after=None, target_type="Edge",
        )  # fmt: skip
    if made is not None:
        keys = edge_keys(made)
        await gated.run("queries/knowledge/edge_corrections_retire", keys=keys, mutationId=mutation_id)


def _agents(word: dict[str, Any]) -> bool:
    """Whether an edge stood before the write, made by an agent and not confirmed by a person."""
    return bool(word["stands"] and not word["personSaid"])


async def people_words(gated: Gated, edges: Sequence[NewEdge]) -> list[dict[str, Any]]:
    """For each edge, in order: whether it stands (``stands``), whether a person made or
    confirmed it (``personSaid``), and the active correction of a person's that removed it
    (``removedBy``, or ``None``)."""
    rows = [
        {
            "index": i, "sourceId": e.source_id, "relType": rel_type_of(e.type), "targetId": e.target_id,
            "keys": edge_keys({"sourceId": e.source_id, "type": rel_type_of(e.type),
                               "targetId": e.target_id}),
        }
        for i, e in enumerate(edges)
    ]  # fmt: skip
    found = {r["index"]: r for r in await gated.run("queries/knowledge/edges_held", rows=rows)}
    return [
        {
            "stands": found[i]["stands"], "personSaid": found[i]["personSaid"],
            "removedBy": found[i]["removedBy"][0] if found[i]["removedBy"] else None,
        }
        for i in range(len(edges))
    ]  # fmt: skip


async def _holds(
    gated: Gated,
    principal: Principal,
    edges: Sequence[NewEdge],
    words: list[dict[str, Any]],
    was: dict[str, dict[str, Any]],
) -> dict[int, tuple[list[str], list[str | None]]]:
    """The items of a non-human connect that a person's word holds back, each with the fields
    held (``edge``: a person removed it; ``status``: it would flip a held status) and what
    holds them."""
    if not corrections.is_agent(principal):
        return {}
    status = await held_statuses(gated, principal, would_flip(was, removing=False))
    holds: dict[int, tuple[list[str], list[str | None]]] = {}
    for i, e in enumerate(edges):
        fields, holders = [], []
        if not words[i]["stands"] and words[i]["removedBy"] is not None:
            fields.append("edge")
            holders.append(words[i]["removedBy"])
        if e.type == EdgeType.SUPERSEDES and e.target_id in status:
            fields.append("status")
            holders.append(status[e.target_id])
        if fields:
            holds[i] = (fields, holders)
    return holds


async def _propose_item(
    gated: Gated, principal: Principal, edge: NewEdge, fields: list[str], holders: list[str | None]
) -> dict[str, Any]:
    """One held item of a batch as its own proposal (a change a person rejected answers with
    that rejected proposal, as a batch of notes does)."""
    try:
        return await corrections.propose(
            gated, principal, op="edge.connect", target_id=edge.target_id,
            payload={"edges": [edge_payload(edge)]}, fields=fields, corrections=holders,
        )  # fmt: skip
    except corrections.Rejected as rejected:
        return rejected.proposal


async def _no_loop(
    gated: Gated, edges: Sequence[NewEdge], made: list[int], field: Callable[[int, str], str]
) -> None:
    """409 when the supersedes edges just made close a loop (each note would hide the other)."""
    superseding = sorted({edges[i].source_id for i in made if edges[i].type == EdgeType.SUPERSEDES})
    if not superseding:
        return
    [loops] = await gated.run("queries/knowledge/supersede_loops", ids=superseding)
    if not loops["looping"]:
        return
    first = next(
        i for i in made if edges[i].type == EdgeType.SUPERSEDES and edges[i].source_id in loops["looping"]
    )
    raise Conflict(
        f"{edges[first].source_id!r} supersedes {edges[first].target_id!r} would close a loop of "
        "supersedes edges (each note would hide the other); delete the edge the other way first",
        field=field(first, "targetId"),
    )


async def _confirm(gated: Gated, edge: dict[str, Any], approving: str | None) -> journal.Change:
    """A person's connect of an agent's edge as it stands: their word on it, journaled as an
    ``edge.connect`` from the edge as it was to the edge confirmed (undone, it is the agent's
    again)."""
    [row] = await gated.run(
        "queries/knowledge/edge_confirm", sourceId=edge["sourceId"], targetId=edge["targetId"],
        relType=edge.get("relType") or edge["type"], confirmed=True,
    )  # fmt: skip
    after = edge_state(row["edge"])
    before = {k: v for k, v in after.items() if k != "confirmedByPerson"}
    return journal.Change("edge.connect", "Edge", edge_target(edge), before, after, proposal_id=approving)


async def link(
    gated: Gated, principal: Principal, rows: list[dict[str, Any]], approving: str | None = None
) -> list[journal.Change]:
    """Edges another write makes in its own transaction (``rows`` as ``edges_create`` takes
    them, between notes that exist and with no loop possible): their changes to journal, a
    status each supersedes edge flipped first."""
    superseded = sorted({r["targetId"] for r in rows if r["relType"] == rel_type_of(EdgeType.SUPERSEDES)})
    was = await statuses(gated, superseded)
    created = await gated.run(
        "queries/knowledge/edges_create", rows=rows, role=principal.role.value, agentId=principal.agent_id
    )
    edges = [
        journal.Change("edge.connect", "Edge", edge_target(r["edge"]), None, edge_state(r["edge"]),
                       proposal_id=approving)
        for r in sorted(created, key=lambda r: r["index"])
        if r["created"]
    ]  # fmt: skip
    return status_changes(was, await statuses(gated, superseded), approving) + edges


async def statuses(gated: Gated, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Each existing note's ``{status, superseders}`` (read around writes of supersedes edges)."""
    if not ids:
        return {}
    rows = await gated.run("queries/knowledge/notes_status", ids=list(ids))
    return {r["id"]: {"status": r["status"], "superseders": r["superseders"]} for r in rows}


def would_flip(was: dict[str, dict[str, Any]], *, removing: bool) -> list[str]:
    """The notes (``was`` as :func:`statuses` read them) whose status a supersedes edge into
    each would flip: adding one marks an active note superseded; removing its one superseder
    makes a superseded note active again."""
    if removing:
        return [
            i for i, n in was.items()
            if n["status"] == KnowledgeStatus.SUPERSEDED.value and n["superseders"] == 1
        ]  # fmt: skip
    return [i for i, n in was.items() if n["status"] == KnowledgeStatus.ACTIVE.value]


def status_changes(
    was: dict[str, dict[str, Any]], now: dict[str, dict[str, Any]], approving: str | None = None
) -> list[journal.Change]:
    """A ``note.status`` change for each note whose status a supersedes edge flipped (the
    edge's write journals it beside the edge, so the note's own history shows it)."""
    return [
        journal.Change(
            "note.status", "Knowledge", node_id, {"status": was[node_id]["status"]},
            {"status": now[node_id]["status"]}, proposal_id=approving,
        )
        for node_id in sorted(was)
        if node_id in now and now[node_id]["status"] != was[node_id]["status"]
    ]  # fmt: skip


async def held_statuses(gated: Gated, principal: Principal, flips: Sequence[str]) -> dict[str, str | None]:
    """For a non-human write that would flip these notes' status: the notes among them whose
    status a person wrote or corrected, each with the correction that holds it (``None``
    for a person's own write); nothing for a person's own write."""
    if not flips or not corrections.is_agent(principal):
        return {}
    held = await corrections.held(gated, flips)
    return {node_id: fields["status"] for node_id, fields in sorted(held.items()) if "status" in fields}
