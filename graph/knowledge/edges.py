"""Typed edges between a user's notes: connect (one or a batch), list, disconnect.

Exactly four types (:class:`~graph.knowledge.models.EdgeType`); both ends must be the
caller's notes, so no edge ever dangles or crosses users. ``A supersedes B`` marks B
superseded, and removing the edge restores it unless something else still supersedes it
(in the queries, so every path that writes edges keeps the rule).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from graph.core import journal
from graph.core.db import Database, Row
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Scope
from graph.core.values import decode_key_cursor, encode_key_cursor
from graph.knowledge import corrections
from graph.knowledge.models import (
    ALL_REL_TYPES,
    MAX_BATCH,
    EdgeType,
    KnowledgeSource,
    KnowledgeStatus,
    NewEdge,
    Proposed,
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
        """Create edges in one transaction; both ends must be the caller's notes. An agent's
        supersedes edge that would mark superseded a note whose status a person corrected is
        not applied: the whole write becomes a proposal."""
        if len(edges) > MAX_BATCH:
            raise InvalidInput(f"at most {MAX_BATCH} edges per batch, got {len(edges)}", field="items")

        def field(i: int, name: str) -> str:
            return f"items.{i}.{name}" if batch else name

        for i, edge in enumerate(edges):
            if edge.source_id == edge.target_id:
                raise Conflict("a note cannot be connected to itself", field=field(i, "targetId"))
        rows = [
            {
                "index": i,
                "sourceId": e.source_id,
                "targetId": e.target_id,
                "relType": e.type.rel_type,
                "source": e.source.value,
                "confidence": e.confidence,
                "note": e.note,
                "validFrom": e.valid_from,
                "validUntil": e.valid_until,
            }
            for i, e in enumerate(edges)
        ]
        wanted = sorted({e.source_id for e in edges} | {e.target_id for e in edges})
        superseding = sorted({e.source_id for e in edges if e.type == EdgeType.SUPERSEDES})
        superseded = sorted({e.target_id for e in edges if e.type == EdgeType.SUPERSEDES})

        async def work(gated: Gated) -> list[Row] | Proposed:
            [found] = await gated.run(
                "queries/knowledge/notes_existing_ids", ids=wanted, scope=Scope.of(principal.scope)
            )
            present = set(found["ids"])
            for i, e in enumerate(edges):
                for name, node_id in (("sourceId", e.source_id), ("targetId", e.target_id)):
                    if node_id not in present:
                        raise NotFound(f"no note {node_id!r}", field=field(i, name))
            was = await statuses(gated, superseded)
            flips = would_flip(was, removing=False)
            if approving is None:
                held = await held_statuses(gated, principal, flips)
                if held:
                    return Proposed(await corrections.propose(
                        gated, principal, op="edge.connect", target_id=edges[0].target_id,
                        payload={"edges": [edge_payload(e) for e in edges]}, fields=["status"],
                        corrections=held.values(),
                    ))  # fmt: skip
            created = await gated.run(
                "queries/knowledge/edges_create",
                rows=rows,
                role=principal.role.value,
                agentId=principal.agent_id,
            )
            if superseding:
                [loops] = await gated.run("queries/knowledge/supersede_loops", ids=superseding)
                if loops["looping"]:
                    first = next(
                        i
                        for i, e in enumerate(edges)
                        if e.type == EdgeType.SUPERSEDES and e.source_id in loops["looping"]
                    )
                    raise Conflict(
                        f"{edges[first].source_id!r} supersedes {edges[first].target_id!r} would close "
                        "a loop of supersedes edges (each note would hide the other); delete the edge "
                        "the other way first",
                        field=field(first, "targetId"),
                    )
            changes = [
                journal.Change(
                    "edge.connect", "Edge", edge_target(r["edge"]), None, edge_state(r["edge"]),
                    proposal_id=approving,
                )
                for r in sorted(created, key=lambda r: r["index"])
                if r["created"]
            ]  # fmt: skip
            # What the edges flipped comes first: a write's last mutation is its own change.
            changes = status_changes(was, await statuses(gated, superseded), approving) + changes
            mutation_ids = await journal.record_many(gated, principal, changes)
            if then is not None:
                await then(gated, mutation_ids)
            return created

        created = await self._gate.write(principal.user_id, work)
        if isinstance(created, Proposed):
            return created
        ordered = sorted(created, key=lambda r: r["index"])
        return [(edge_view(r["edge"]), bool(r["created"])) for r in ordered]

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
        """Remove one edge (404 if there is none). An agent's removal of the last supersedes
        edge into a note whose status a person corrected becomes a proposal."""

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
            if approving is None:
                held = await held_statuses(gated, principal, flips)
                if held:
                    return Proposed(await corrections.propose(
                        gated, principal, op="edge.disconnect", target_id=target_id,
                        payload={"sourceId": node_id, "type": edge_type.value, "targetId": target_id},
                        fields=["status"], corrections=held.values(),
                    ))  # fmt: skip
            rows = await gated.run(
                "queries/knowledge/edge_delete", sourceId=node_id, targetId=target_id,
                relType=edge_type.rel_type,
            )  # fmt: skip
            if not rows or rows[0]["deleted"] == 0:
                missing = f"no {edge_type.value} edge from {node_id!r} to {target_id!r}"
                raise NotFound(missing, field="targetId")
            changes = [
                journal.Change(
                    "edge.disconnect",
                    "Edge",
                    edge_target(edge),
                    edge_state(edge),
                    None,
                    proposal_id=approving,
                )
                for edge in rows[0]["edges"]
            ]
            changes = status_changes(was, await statuses(gated, watched), approving) + changes
            mutation_ids = await journal.record_many(gated, principal, changes)
            if then is not None:
                await then(gated, mutation_ids)
            return None

        return await self._gate.write(principal.user_id, work)


async def link(
    gated: Gated, principal: Principal, rows: list[dict[str, Any]], approving: str | None = None
) -> list[journal.Change]:
    """Edges another write makes in its own transaction (``rows`` as ``edges_create`` takes
    them, between notes that exist and with no loop possible): their changes to journal, a
    status each supersedes edge flipped first."""
    superseded = sorted({r["targetId"] for r in rows if r["relType"] == EdgeType.SUPERSEDES.rel_type})
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


def edge_payload(edge: NewEdge) -> dict[str, Any]:
    """An edge write as a proposal keeps it (and :func:`edge_from_payload` reads it back)."""
    return {
        "sourceId": edge.source_id, "type": edge.type.value, "targetId": edge.target_id,
        "source": edge.source.value, "confidence": edge.confidence, "note": edge.note,
        "validFrom": edge.valid_from, "validUntil": edge.valid_until,
    }  # fmt: skip


def edge_from_payload(payload: dict[str, Any]) -> NewEdge:
    return NewEdge(
        source_id=payload["sourceId"], type=EdgeType(payload["type"]), target_id=payload["targetId"],
        source=KnowledgeSource(payload["source"]), confidence=payload["confidence"], note=payload["note"],
        valid_from=payload.get("validFrom"), valid_until=payload.get("validUntil"),
    )  # fmt: skip


def edge_target(edge: dict[str, Any]) -> str:
    """An edge's id in the journal: ``"<sourceId> <type> <targetId>"`` (ids hold no spaces)."""
    kind = edge.get("relType") or edge["type"]
    return f"{edge['sourceId']} {EdgeType.from_rel_type(kind).value} {edge['targetId']}"


def edge_state(edge: dict[str, Any]) -> dict[str, Any]:
    """An edge as the journal keeps it (API type name; what an undo needs to bring it back)."""
    state = {k: v for k, v in edge.items() if v is not None and k not in ("relType", "type")}
    return state | {"type": EdgeType.from_rel_type(edge.get("relType") or edge["type"]).value}
