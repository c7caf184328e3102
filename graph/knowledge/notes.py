"""Notes of the knowledge network: create (with dedupe), get, list, update and delete.

Every method takes the calling :class:`~graph.core.principals.Principal` and touches only
that user's notes: an id that belongs to someone else is simply not found. Each logical
write is one transaction (a batch of 1,000 notes commits whole or not at all).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.core.db import Database, Row, run_rows
from graph.core.embeddings import Embedder
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.principals import Principal
from graph.core.values import check_id, decode_cursor, encode_cursor, iso_millis
from graph.core.vectors import VectorPlanConfig
from graph.knowledge.dedupe import find_twins
from graph.knowledge.models import MAX_BATCH, CreateResult, NewNote, NotePatch
from graph.knowledge.search import TenantSizes, tenant_key
from graph.knowledge.views import created_note_view, note_view


@dataclass
class PendingNote:
    """A note of a create request, with its final id and vector."""

    index: int
    note: NewNote
    node_id: str
    embedding: list[float]


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
        self._embedder = embedder
        self._dedupe_threshold = dedupe_threshold
        self._plan = plan or VectorPlanConfig()
        self._sizes = sizes or TenantSizes()

    # --- create -----------------------------------------------------------------------------
    async def _embeddings(
        self, notes: Sequence[NewNote], field_prefix: Callable[[int], str]
    ) -> list[list[float]]:
        """Supplied vectors are checked; the rest are computed in one embedder call."""
        dimension = self._embedder.dimension
        missing = [i for i, n in enumerate(notes) if n.embedding is None]
        for i, note in enumerate(notes):
            if note.embedding is not None and len(note.embedding) != dimension:
                raise InvalidInput(
                    f"embedding has {len(note.embedding)} dimensions; the index needs {dimension}",
                    field=f"{field_prefix(i)}embedding",
                )
        computed = await self._embedder.embed([f"{notes[i].title}\n{notes[i].content}" for i in missing])
        vectors: list[list[float] | None] = [n.embedding for n in notes]
        for i, vector in zip(missing, computed, strict=True):
            vectors[i] = vector
        return [v for v in vectors if v is not None]

    async def create(
        self,
        principal: Principal,
        notes: Sequence[NewNote],
        *,
        batch: bool,
        then: Callable[[AsyncManagedTransaction, list[CreateResult]], Awaitable[None]] | None = None,
    ) -> list[CreateResult]:
        """Create notes in one transaction; ids already present are returned unchanged.

        ``then`` runs inside the same transaction with the results (e.g. to record provenance),
        so the notes and whatever it writes commit together.
        """
        if len(notes) > MAX_BATCH:
            raise InvalidInput(f"at most {MAX_BATCH} notes per batch, got {len(notes)}", field="items")

        def field_prefix(i: int) -> str:
            return f"items.{i}." if batch else ""

        ids: list[str] = []
        for i, note in enumerate(notes):
            node_id = check_id(note.id, f"{field_prefix(i)}id") if note.id else uuid.uuid4().hex
            ids.append(node_id)
        seen: dict[str, int] = {}
        for i, node_id in enumerate(ids):
            if node_id in seen:
                raise InvalidInput(f"id {node_id!r} appears twice in the batch", field=f"{field_prefix(i)}id")
            seen[node_id] = i
        vectors = await self._embeddings(notes, field_prefix)
        pending = [PendingNote(i, n, ids[i], vectors[i]) for i, n in enumerate(notes)]

        async def work(tx: AsyncManagedTransaction) -> list[CreateResult]:
            results = await self._create_tx(tx, principal, pending, field_prefix)
            if then is not None:
                await then(tx, results)
            return results

        results = await self._db.write_tx(work)
        self._sizes.forget(principal.user_id)
        return results

    async def _create_tx(
        self,
        tx: AsyncManagedTransaction,
        principal: Principal,
        pending: list[PendingNote],
        field_prefix: Callable[[int], str],
    ) -> list[CreateResult]:
        user = principal.user_id
        supplied = [p.node_id for p in pending if p.note.id]
        existing = {
            row["node"]["id"]: row["node"]
            for row in await run_rows(
                tx, "queries/knowledge/notes_by_ids", userId=user, ids=supplied, withEmbedding=False
            )
        }
        merged_before = {
            row["requestedId"]: row["targetId"]
            for row in await run_rows(tx, "queries/knowledge/merged_lookup", userId=user, ids=supplied)
        }
        outcome: dict[int, tuple[str, bool, str | None]] = {}  # index -> (node id, created, merged into)
        fresh: list[PendingNote] = []
        for p in pending:
            if p.node_id in existing:
                node = existing[p.node_id]
                if (node["title"], node["content"], node["type"]) != (
                    p.note.title,
                    p.note.content,
                    p.note.type.value,
                ):
                    raise Conflict(
                        f"note {p.node_id!r} already exists with other title, content or type; "
                        "PATCH it to change it",
                        field=f"{field_prefix(p.index)}id",
                    )
                outcome[p.index] = (p.node_id, False, None)
            elif p.node_id in merged_before:
                target = merged_before[p.node_id]
                outcome[p.index] = (target, False, target)
            else:
                fresh.append(p)

        merges = await find_twins(
            tx,
            user,
            [p for p in fresh if p.note.dedupe],
            threshold=self._dedupe_threshold,
            plan=self._plan,
            sizes=self._sizes,
        )
        rows, merge_rows = [], []
        for p in fresh:
            twin = merges.get(p.index)
            if twin is None:
                rows.append(self._create_row(p))
                outcome[p.index] = (p.node_id, True, None)
                continue
            merge_rows.append(
                {
                    "targetId": twin.node_id,
                    "requestedId": p.node_id if p.note.id else None,
                    "title": p.note.title,
                    "content": p.note.content,
                    "type": p.note.type.value,
                    "source": p.note.source.value,
                    "confidence": p.note.confidence,
                    "tags": list(p.note.tags),
                    "similarity": twin.similarity,
                }
            )
            outcome[p.index] = (twin.node_id, False, twin.node_id)
        common = {"userId": user, "role": principal.role.value, "agentId": principal.agent_id}
        nodes: dict[str, dict[str, Any]] = {}
        if rows:
            created = await run_rows(
                tx,
                "queries/knowledge/notes_create",
                rows=rows,
                tenantKey=tenant_key(user),
                embeddingModel=self._embedder.model_id,
                **common,
            )
            # The new notes are known here; only their time comes from the database.
            stamps = {r["id"]: iso_millis(r["createdAt"]) for r in created}
            for row in rows:
                nodes[row["id"]] = created_note_view(row, stamps[row["id"]])
        if merge_rows:
            await run_rows(tx, "queries/knowledge/notes_merge_into", merges=merge_rows, **common)
        others = sorted({node_id for node_id, _, _ in outcome.values()} - set(nodes))
        if others:
            for row in await run_rows(
                tx, "queries/knowledge/notes_by_ids", userId=user, ids=others, withEmbedding=False
            ):
                nodes[row["node"]["id"]] = note_view(row["node"])
        return [
            CreateResult(node=nodes[outcome[i][0]], created=outcome[i][1], merged_into=outcome[i][2])
            for i in range(len(pending))
        ]

    @staticmethod
    def _create_row(p: PendingNote) -> dict[str, Any]:
        return {
            "id": p.node_id,
            "title": p.note.title,
            "content": p.note.content,
            "type": p.note.type.value,
            "label": p.note.type.label,
            "source": p.note.source.value,
            "confidence": p.note.confidence,
            "tags": list(p.note.tags),
            "embedding": p.embedding,
        }

    # --- read ---------------------------------------------------------------------------------
    async def get(
        self, principal: Principal, node_id: str, *, with_embedding: bool = False
    ) -> dict[str, Any]:
        """One note, with the record of what was merged into it."""
        rows = await self._db.read(
            "queries/knowledge/notes_by_ids",
            userId=principal.user_id,
            ids=[node_id],
            withEmbedding=with_embedding,
        )
        if not rows:
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
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of notes, newest first, and the cursor of the next page."""
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
            )
            ids = [r["id"] for r in page[:limit]]
            nodes = await run_rows(
                tx, "queries/knowledge/notes_by_ids", userId=user, ids=ids, withEmbedding=False
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
    async def update(self, principal: Principal, node_id: str, patch: NotePatch) -> dict[str, Any]:
        """Change some fields; re-embeds only when title or content changed."""
        current = await self.get(principal, node_id)
        props: dict[str, Any] = {}
        for name in ("title", "content", "confidence"):
            value = getattr(patch, name)
            if value is not None:
                props[name] = value
        for name in ("type", "source", "status"):
            value = getattr(patch, name)
            if value is not None:
                props[name] = value.value
        if patch.tags is not None:
            props["tags"] = list(patch.tags)
        embedding = None
        title = patch.title if patch.title is not None else current["title"]
        content = patch.content if patch.content is not None else current["content"]
        if (title, content) != (current["title"], current["content"]):
            [embedding] = await self._embedder.embed([f"{title}\n{content}"])
        rows = await self._db.write(
            "queries/knowledge/note_update",
            userId=principal.user_id,
            id=node_id,
            props=props,
            label=patch.type.label if patch.type is not None else None,
            embedding=embedding,
            embeddingModel=self._embedder.model_id,
        )
        if not rows:
            raise NotFound(f"no note {node_id!r}", field="id")
        return await self.get(principal, node_id)

    async def delete(self, principal: Principal, node_id: str) -> list[str]:
        """Delete a note, its edges and merge records; returns notes restored from superseded."""
        rows = await self._db.write("queries/knowledge/note_delete", userId=principal.user_id, id=node_id)
        if not rows:
            raise NotFound(f"no note {node_id!r}", field="id")
        self._sizes.forget(principal.user_id)
        return list(rows[0]["restored"])
