"""Notes of the knowledge network: create (with dedupe), get, list, update and delete.

Every method takes the calling :class:`~graph.core.principals.Principal` and touches only
that user's notes: an id that belongs to someone else is simply not found. Each logical
write is one transaction (a batch of 1,000 notes commits whole or not at all).

:class:`NoteService` is the one door; reading is here, and the writes behind it live in
their own rooms: creating (ids, vectors, dedupe, proposals) in :mod:`graph.knowledge.note_create`,
updating and deleting in :mod:`graph.knowledge.note_edits`, and a note's states as the journal,
undo and proposals keep them in :mod:`graph.knowledge.note_states`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.core.db import Database, Row, run_rows
from graph.core.embeddings import Embedder
from graph.core.errors import NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Scope
from graph.core.values import decode_cursor, encode_cursor
from graph.core.vectors import VectorPlanConfig
from graph.knowledge.models import CreateResult, NewNote, NotePatch, Proposed
from graph.knowledge.note_create import NoteCreation
from graph.knowledge.note_edits import NoteEdits
from graph.knowledge.search import TenantSizes
from graph.knowledge.views import note_view


class NoteService:
    """Create, read, change and delete a user's notes."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        *,
        dedupe_threshold: float = 0.95,
        plan: VectorPlanConfig | None = None,
        sizes: TenantSizes | None = None,
    ) -> None:
        self._db = db
        gate = WriteGate(db)
        sizes = sizes or TenantSizes()
        self._creation = NoteCreation(
            db,
            gate,
            embedder,
            dedupe_threshold=dedupe_threshold,
            plan=plan or VectorPlanConfig(),
            sizes=sizes,
        )
        self._edits = NoteEdits(
            db, gate, embedder, dedupe_threshold=dedupe_threshold, sizes=sizes, read=self.get
        )

    # --- create -----------------------------------------------------------------------------
    async def create(
        self,
        principal: Principal,
        notes: Sequence[NewNote],
        *,
        batch: bool,
        then: Callable[[Gated, list[CreateResult]], Awaitable[None]] | None = None,
        keep_existing: bool = False,
        approving: str | None = None,
    ) -> list[CreateResult]:
        """Create notes in one gated transaction (:meth:`NoteCreation.create
        <graph.knowledge.note_create.NoteCreation.create>` says how)."""
        return await self._creation.create(
            principal, notes, batch=batch, then=then, keep_existing=keep_existing, approving=approving
        )

    async def get(
        self, principal: Principal, node_id: str, *, with_embedding: bool = False, follow_merges: bool = False
    ) -> dict[str, Any]:
        """One note, with the record of what was merged into it; with ``follow_merges``, the
        twin a create of ``node_id`` was folded into (its ``merges`` name that id)."""
        rows = await self._db.read(
            "queries/knowledge/notes_by_ids",
            userId=principal.user_id,
            ids=[node_id],
            withEmbedding=with_embedding,
        )
        if not rows and follow_merges:
            folded = await self._db.read(
                "queries/knowledge/merged_lookup", userId=principal.user_id, ids=[node_id]
            )
            if folded:
                try:
                    return await self.get(
                        principal, str(folded[0]["targetId"]), with_embedding=with_embedding
                    )
                except NotFound:  # folded into a note outside the scope: not named
                    raise NotFound(f"no note {node_id!r}", field="id") from None
        if not rows or not principal.sees(node_id, rows[0]["node"]["tags"]):
            raise NotFound(f"no note {node_id!r}", field="id")
        node: dict[str, Any] = note_view(rows[0]["node"])
        return node

    async def list_notes(
        self,
        principal: Principal,
        *,
        note_type: str | None = None,
        source: str | None = None,
        status: str | None = None,
        tag: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
        with_embedding: bool = False,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of notes, newest first (with their vectors, if asked), and the next page's cursor."""
        after_created, after_id = decode_cursor(cursor) if cursor else (None, None)
        user = principal.user_id

        async def work(tx: AsyncManagedTransaction) -> tuple[list[Row], list[Row]]:
            page = await run_rows(
                tx,
                "queries/knowledge/notes_list",
                userId=user,
                type=note_type,
                source=source,
                status=status,
                tag=tag,
                afterCreatedAt=after_created,
                afterId=after_id,
                limit=limit + 1,
                scope=Scope.of(principal.scope),
            )
            ids = [r["id"] for r in page[:limit]]
            nodes = await run_rows(
                tx, "queries/knowledge/notes_by_ids", userId=user, ids=ids, withEmbedding=with_embedding
            )
            return page, nodes

        page, nodes = await self._db.read_tx(work)
        by_id = {row["node"]["id"]: note_view(row["node"]) for row in nodes}
        items = [by_id[r["id"]] for r in page[:limit] if r["id"] in by_id]
        next_cursor = (
            encode_cursor(page[limit - 1]["createdAt"], page[limit - 1]["id"]) if len(page) > limit else None
        )
        return items, next_cursor

    # --- update and delete ------------------------------------------------------------------
    async def update(
        self,
        principal: Principal,
        node_id: str,
        patch: NotePatch,
        *,
        approving: str | None = None,
        then: Callable[[Gated, list[str]], Awaitable[None]] | None = None,
    ) -> dict[str, Any] | Proposed:
        """Change some fields (:meth:`NoteEdits.update
        <graph.knowledge.note_edits.NoteEdits.update>` says how)."""
        return await self._edits.update(principal, node_id, patch, approving=approving, then=then)

    async def delete(
        self,
        principal: Principal,
        node_id: str,
        *,
        approving: str | None = None,
        then: Callable[[Gated, list[str]], Awaitable[None]] | None = None,
    ) -> list[str] | Proposed:
        """Delete a note, its edges and merge records; returns notes restored from superseded
        (:meth:`NoteEdits.delete <graph.knowledge.note_edits.NoteEdits.delete>` says how)."""
        return await self._edits.delete(principal, node_id, approving=approving, then=then)
