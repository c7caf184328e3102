"""Notes of the knowledge network: create (with dedupe), get, list, update and delete.

Every method takes the calling :class:`~graph.core.principals.Principal` and touches only
that user's notes: an id that belongs to someone else is simply not found. Each logical
write is one transaction (a batch of 1,000 notes commits whole or not at all).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.core.db import Database, Row, run_rows
from graph.core.embeddings import Embedder
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal
from graph.core.values import check_id, decode_cursor, encode_cursor, iso_millis
from graph.core.vectors import VectorPlanConfig, check_vectors
from graph.knowledge.dedupe import find_twins
from graph.knowledge.models import MAX_BATCH, CreateResult, KnowledgeStatus, NewNote, NotePatch
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
        self._gate = WriteGate(db)
        self._embedder = embedder
        self._dedupe_threshold = dedupe_threshold
        self._plan = plan or VectorPlanConfig()
        self._sizes = sizes or TenantSizes()

    # --- create -----------------------------------------------------------------------------
    async def _embeddings(
        self, notes: Sequence[NewNote], field_prefix: Callable[[int], str]
    ) -> list[list[float]]:
        """Supplied vectors are checked; the rest are computed in one embedder call."""
        check_vectors(
            [n.embedding for n in notes], self._embedder.dimension, lambda i: f"{field_prefix(i)}embedding"
        )
        missing = [i for i, n in enumerate(notes) if n.embedding is None]
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
        then: Callable[[Gated, list[CreateResult]], Awaitable[None]] | None = None,
        keep_existing: bool = False,
    ) -> list[CreateResult]:
        """Create notes in one gated transaction; ids already present are returned unchanged.

        An id already present with other title, content or type is a :class:`Conflict`, unless
        ``keep_existing`` (pipelines that derive notes: what is stored, perhaps a person's
        edit, wins). ``then`` runs inside the same transaction with the results (e.g. to
        record provenance), so the notes and whatever it writes commit together.
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
        vectors = await self._embeddings(notes, field_prefix)  # slow: before the gate, not under it
        pending = [PendingNote(i, n, ids[i], vectors[i]) for i, n in enumerate(notes)]

        async def work(gated: Gated) -> list[CreateResult]:
            results = await self._create_tx(gated, principal, pending, field_prefix, keep_existing)
            if then is not None:
                await then(gated, results)
            return results

        results = await self._gate.write(principal.user_id, work)
        self._sizes.forget(principal.user_id)
        return results

    async def _create_tx(
        self,
        gated: Gated,
        principal: Principal,
        pending: list[PendingNote],
        field_prefix: Callable[[int], str],
        keep_existing: bool,
    ) -> list[CreateResult]:
        """Under the user's lock: what is already there is decided here, by what is committed."""
        supplied = [p.node_id for p in pending if p.note.id]
        existing: dict[str, dict[str, Any]] = {}
        merged_before: dict[str, Row] = {}
        if supplied:  # generated ids are new by construction: two statements saved
            for row in await gated.run("queries/knowledge/notes_by_ids", ids=supplied, withEmbedding=False):
                existing[row["node"]["id"]] = row["node"]
            for row in await gated.run("queries/knowledge/merged_lookup", ids=supplied):
                merged_before[row["requestedId"]] = row
        outcome: dict[int, tuple[str, bool, str | None]] = {}  # index -> (node id, created, merged into)
        fresh: list[PendingNote] = []
        for p in pending:
            known = existing.get(p.node_id) or merged_before.get(p.node_id)
            if known is None:
                fresh.append(p)
                continue
            if not keep_existing and (known["title"], known["content"], known["type"]) != (
                p.note.title,
                p.note.content,
                p.note.type.value,
            ):
                merged = p.node_id not in existing
                raise Conflict(
                    f"note {p.node_id!r} already exists with other title, content or type"
                    + (f" (it was folded into its twin {known['targetId']!r})" if merged else "")
                    + "; PATCH it to change it, or create the new note under another id",
                    field=f"{field_prefix(p.index)}id",
                )
            if p.node_id in existing:
                outcome[p.index] = (p.node_id, False, None)
            else:
                outcome[p.index] = (known["targetId"], False, known["targetId"])

        merges = await find_twins(
            gated,
            [p for p in fresh if p.note.dedupe],
            threshold=self._dedupe_threshold,
            plan=self._plan,
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
        actor = {"role": principal.role.value, "agentId": principal.agent_id}
        nodes: dict[str, dict[str, Any]] = {}
        if rows:
            created = await gated.run(
                "queries/knowledge/notes_create",
                rows=rows,
                tenantKey=tenant_key(gated.user_id),
                embeddingModel=self._embedder.model_id,
                **actor,
            )
            # The new notes are known here; only their time comes from the database.
            stamps = {r["id"]: iso_millis(r["createdAt"]) for r in created}
            for row in rows:
                nodes[row["id"]] = created_note_view(row, stamps[row["id"]])
        if merge_rows:
            await gated.run("queries/knowledge/notes_merge_into", merges=merge_rows, **actor)
        others = sorted({node_id for node_id, _, _ in outcome.values()} - set(nodes))
        if others:
            for row in await gated.run("queries/knowledge/notes_by_ids", ids=others, withEmbedding=False):
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
        """Change some fields; re-embeds only when title or content changed.

        The vector is computed before the gate (it is slow) from the text as read then; under
        the gate the note is read again, and if its text changed meanwhile the vector is
        computed anew, so a stored vector is always its own text's.
        """
        if patch.status == KnowledgeStatus.SUPERSEDED:
            raise InvalidInput(
                "a note becomes superseded through a supersedes edge: "
                "POST /v1/knowledge/{id}/connections from the note that replaces it",
                field="status",
            )
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
        read = await self.get(principal, node_id)
        for _ in range(_PATCH_ATTEMPTS):
            text = _patched_text(read, patch)
            embedding = None
            if text != (read["title"], read["content"]):
                [embedding] = await self._embedder.embed([f"{text[0]}\n{text[1]}"])
            work = functools.partial(self._update_tx, node_id, patch, props, text, embedding)
            result = await self._gate.write(principal.user_id, work)
            if "node" in result:
                node: dict[str, Any] = result["node"]
                return node
            read = note_view(result["stale"])
        raise Conflict(
            f"note {node_id!r} kept changing while this update was prepared; try again", field="id"
        )

    async def _update_tx(
        self,
        node_id: str,
        patch: NotePatch,
        props: dict[str, Any],
        text: tuple[str, str],
        embedding: list[float] | None,
        gated: Gated,
    ) -> dict[str, Any]:
        """Under the gate: ``{"node": ...}`` once written, or ``{"stale": ...}`` when the note's
        text changed since it was read so that ``embedding`` (of ``text``, or ``None`` for an
        unchanged text) is no longer the vector of the text this update leaves (the caller
        embeds again). An update of both title and content is never stale."""
        rows = await gated.run("queries/knowledge/notes_by_ids", ids=[node_id], withEmbedding=False)
        if not rows:
            raise NotFound(f"no note {node_id!r}", field="id")
        now = rows[0]["node"]
        leaves = _patched_text(now, patch)
        unchanged = leaves == (now["title"], now["content"])
        if leaves != text or (embedding is None and not unchanged):
            return {"stale": now}
        if patch.status == KnowledgeStatus.ACTIVE and now["status"] == KnowledgeStatus.SUPERSEDED.value:
            [by] = await gated.run("queries/knowledge/superseded_by", id=node_id)
            if by["ids"]:
                raise Conflict(
                    f"note {node_id!r} is superseded by {', '.join(map(repr, by['ids']))}; "
                    "delete that supersedes edge to make it active again",
                    field="status",
                )
        await gated.run(
            "queries/knowledge/note_update",
            id=node_id,
            props=props,
            label=patch.type.label if patch.type is not None else None,
            embedding=embedding,
            embeddingModel=self._embedder.model_id,
        )
        [row] = await gated.run("queries/knowledge/notes_by_ids", ids=[node_id], withEmbedding=False)
        return {"node": note_view(row["node"])}

    async def delete(self, principal: Principal, node_id: str) -> list[str]:
        """Delete a note, its edges and merge records; returns notes restored from superseded."""
        rows = await self._gate.run(principal.user_id, "queries/knowledge/note_delete", id=node_id)
        if not rows:
            raise NotFound(f"no note {node_id!r}", field="id")
        self._sizes.forget(principal.user_id)
        return list(rows[0]["restored"])


#: How often an update re-embeds because its note's text changed while it was embedding.
_PATCH_ATTEMPTS = 5


def _patched_text(note: dict[str, Any], patch: NotePatch) -> tuple[str, str]:
    """Title and content of ``note`` once ``patch`` is applied."""
    return (
        patch.title if patch.title is not None else note["title"],
        patch.content if patch.content is not None else note["content"],
    )
