"""Typed edges between a user's notes: connect (one or a batch), list, disconnect.

Exactly four types (:class:`~graph.knowledge.models.EdgeType`); both ends must be the
caller's notes, so no edge ever dangles or crosses users. ``A supersedes B`` marks B
superseded, and removing the edge restores it unless something else still supersedes it
(in the queries, so every path that writes edges keeps the rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.core import journal
from graph.core.db import Database, Row
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.knowledge.models import ALL_REL_TYPES, MAX_BATCH, EdgeType, NewEdge
from graph.knowledge.views import edge_view


class EdgeService:
    """Create, list and remove the typed edges of a user's notes."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._gate = WriteGate(db)

    async def connect(
        self, principal: Principal, edges: Sequence[NewEdge], *, batch: bool
    ) -> list[tuple[dict[str, Any], bool]]:
        """Create edges in one transaction; both ends must be the caller's notes."""
        if len(edges) > MAX_BATCH:
            raise InvalidInput(f"at most {MAX_BATCH} edges per batch, got {len(edges)}", field="items")

        def field(i: int, name: str) -> str:
            return f"items.{i}.{name}" if batch else name

        for i, edge in enumerate(edges):
            if edge.source_id == edge.target_id:
                raise InvalidInput("a note cannot be connected to itself", field=field(i, "targetId"))
        rows = [
            {
                "index": i,
                "sourceId": e.source_id,
                "targetId": e.target_id,
                "relType": e.type.rel_type,
                "source": e.source.value,
                "confidence": e.confidence,
                "note": e.note,
            }
            for i, e in enumerate(edges)
        ]
        wanted = sorted({e.source_id for e in edges} | {e.target_id for e in edges})
        superseding = sorted({e.source_id for e in edges if e.type == EdgeType.SUPERSEDES})

        async def work(gated: Gated) -> list[Row]:
            [found] = await gated.run("queries/knowledge/notes_existing_ids", ids=wanted)
            present = set(found["ids"])
            for i, e in enumerate(edges):
                for name, node_id in (("sourceId", e.source_id), ("targetId", e.target_id)):
                    if node_id not in present:
                        raise NotFound(f"no note {node_id!r}", field=field(i, name))
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
            await journal.record_many(gated, principal, [
                journal.Change("edge.connect", "Edge", edge_target(r["edge"]), None, edge_state(r["edge"]))
                for r in sorted(created, key=lambda r: r["index"])
                if r["created"]
            ])  # fmt: skip
            return created

        created = await self._gate.write(principal.user_id, work)
        ordered = sorted(created, key=lambda r: r["index"])
        return [(edge_view(r["edge"]), bool(r["created"])) for r in ordered]

    async def connections(self, principal: Principal, node_id: str) -> list[dict[str, Any]]:
        """A note's edges in both directions."""
        [found] = await self._db.read(
            "queries/knowledge/notes_existing_ids", userId=principal.user_id, ids=[node_id]
        )
        if not found["ids"]:
            raise NotFound(f"no note {node_id!r}", field="id")
        rows = await self._db.read(
            "queries/knowledge/edges_of_note", userId=principal.user_id, id=node_id, relTypes=ALL_REL_TYPES
        )
        return [edge_view(r["edge"]) for r in rows]

    async def disconnect(
        self, principal: Principal, node_id: str, edge_type: EdgeType, target_id: str
    ) -> None:
        """Remove one edge (404 if there is none)."""

        async def work(gated: Gated) -> None:
            rows = await gated.run(
                "queries/knowledge/edge_delete", sourceId=node_id, targetId=target_id,
                relType=edge_type.rel_type,
            )  # fmt: skip
            if not rows or rows[0]["deleted"] == 0:
                missing = f"no {edge_type.value} edge from {node_id!r} to {target_id!r}"
                raise NotFound(missing, field="targetId")
            await journal.record_many(gated, principal, [
                journal.Change("edge.disconnect", "Edge", edge_target(edge), edge_state(edge), None)
                for edge in rows[0]["edges"]
            ])  # fmt: skip

        await self._gate.write(principal.user_id, work)


def edge_target(edge: dict[str, Any]) -> str:
    """An edge's id in the journal: ``"<sourceId> <type> <targetId>"`` (ids hold no spaces)."""
    kind = edge.get("relType") or edge["type"]
    return f"{edge['sourceId']} {EdgeType.from_rel_type(kind).value} {edge['targetId']}"


def edge_state(edge: dict[str, Any]) -> dict[str, Any]:
    """An edge as the journal keeps it (API type name; what an undo needs to bring it back)."""
    state = {k: v for k, v in edge.items() if v is not None and k not in ("relType", "type")}
    return state | {"type": EdgeType.from_rel_type(edge.get("relType") or edge["type"]).value}
