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

from graph.core.db import Database, Row, run_listed
from graph.core.embeddings import Embedder
from graph.core.errors import NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.principals import Principal, Scope
from graph.core.values import decode_cursor, encode_cursor, iso_millis
from graph.core.vectors import VectorPlanConfig
from graph.knowledge.clocks import held_view, known_at, valid_at
from graph.knowledge.dedupe import Thresholds
from graph.knowledge.models import CreateResult, NewNote, NotePatch, Proposed
from graph.knowledge.note_create import NoteCreation
from graph.knowledge.note_edits import NoteEdits
from graph.knowledge.search import TenantSizes
from graph.knowledge.valid_time import millis_now
from graph.knowledge.views import note_view


class NoteService:
    """Create, read, change and delete a user's notes."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        *,
        dedupe_threshold: float = 0.95,
        update_floor: float = 0.75,
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
            limits=Thresholds(dedupe=dedupe_threshold, floor=min(update_floor, dedupe_threshold)),
            plan=plan or VectorPlanConfig(),
            sizes=sizes,
        )
        self._edits = NoteEdits(
            db, gate, embedder, dedupe_threshold=dedupe_threshold, sizes=sizes, read=self.get
        )
        self._created: list[Callable[[str], None]] = []

    def on_created(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(user_id)`` after each create that made notes, once it committed (off
        the write path: a listener only takes note, as the judge's mark does)."""
        self._created.append(listener)

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
        results = await self._creation.create(
            principal, notes, batch=batch, then=then, keep_existing=keep_existing, approving=approving
        )
        if any(r.created for r in results):
            for listener in self._created:
                listener(principal.user_id)
        return results

    async def get(
        self,
        principal: Principal,
        node_id: str,
        *,
        with_embedding: bool = False,
        follow_merges: bool = False,
        as_of: int | None = None,
        as_known_at: int | None = None,
    ) -> dict[str, Any]:
        """One note, with the record of what was merged into it; with ``follow_merges``, the
        twin a create of ``node_id`` was folded into (its ``merges`` name that id).

        ``as_of`` (valid time): the version of the fact true then, the note itself or another
        of its supersedes chain. ``as_known_at`` (record time): the note as the memory held it
        then (from the journal; a note deleted since too). Both: as held then, if true at
        ``as_of`` by what was held. Not found when there is no such version."""
        if as_known_at is not None:
            return await self._held(principal, node_id, as_known_at, as_of)
        if as_of is not None:
            rows = await self._db.read(
                "queries/knowledge/note_version_at", userId=principal.user_id, id=node_id, asOf=as_of
            )
            if not rows:
                raise NotFound(
                    f"no version of note {node_id!r} was true at {iso_millis(as_of)}", field="asOf"
                )
            version = await self.get(principal, str(rows[0]["id"]), with_embedding=with_embedding)
            if not principal.sees(node_id, version["tags"]):
                raise NotFound(f"no note {node_id!r}", field="id")
            return version
        rows = await self._db.read_listed(
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

    async def get_many(self, principal: Principal, node_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The notes of ``node_ids`` that stand and that ``principal`` sees, by id, in one read
        (an id with no such note is left out, as :meth:`get` would answer it not found)."""
        rows = await self._db.read_listed(
            "queries/knowledge/notes_by_ids",
            userId=principal.user_id,
            ids=sorted(set(node_ids)),
            withEmbedding=False,
        )
        seen = (row["node"] for row in rows if principal.sees(row["node"]["id"], row["node"]["tags"]))
        return {node["id"]: note_view(node) for node in seen}

    async def _held(
        self, principal: Principal, node_id: str, moment: int, as_of: int | None
    ) -> dict[str, Any]:
        """A note as the memory held it at ``moment`` (and true at ``as_of``, if given)."""
        rows = await self._db.read_listed(
            "queries/knowledge/notes_by_ids", userId=principal.user_id, ids=[node_id], withEmbedding=False
        )
        now = note_view(rows[0]["node"]) if rows else None
        known = await known_at(self._db, principal.user_id, [node_id], moment)
        view = held_view(now, node_id, known.get(node_id), moment)
        if view is None or not principal.sees(node_id, view.get("tags") or []):
            raise NotFound(f"no note {node_id!r} was held at {iso_millis(moment)}", field="asKnownAt")
        if as_of is not None and not valid_at(view, as_of):
            raise NotFound(
                f"note {node_id!r} as held at {iso_millis(moment)} was not true at {iso_millis(as_of)}",
                field="asOf",
            )
        return view

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
        current: bool = False,
        as_of: int | None = None,
        as_known_at: int | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of notes, newest first (with their vectors, if asked), and the next page's
        cursor. ``current``: only what is still true now; ``as_of``: only what was true then;
        ``as_known_at``: the notes recorded by then, as the memory held them then (from the
        journal; those deleted since are not listed), ``status`` and ``as_of`` read from what
        was held (a page may then hold fewer than ``limit``)."""
        after_created, after_id = decode_cursor(cursor) if cursor else (None, None)
        user = principal.user_id
        valid_now = as_of if as_of is not None else (millis_now() if current else None)
        held = as_known_at is not None

        async def work(tx: AsyncManagedTransaction) -> tuple[list[Row], list[Row]]:
            page = await run_listed(
                tx,
                "queries/knowledge/notes_list",
                userId=user,
                type=note_type,
                source=source,
                status=None if held else status,
                tag=tag,
                createdBy=as_known_at,
                validAt=None if held else valid_now,
                asOf=None if held else as_of,
                afterCreatedAt=after_created,
                afterId=after_id,
                limit=limit + 1,
                scope=Scope.of(principal.scope),
            )
            ids = [r["id"] for r in page[:limit]]
            nodes = await run_listed(
                tx, "queries/knowledge/notes_by_ids", userId=user, ids=ids, withEmbedding=with_embedding
            )
            return page, nodes

        page, nodes = await self._db.read_tx(work)
        by_id = {row["node"]["id"]: note_view(row["node"]) for row in nodes}
        items = [by_id[r["id"]] for r in page[:limit] if r["id"] in by_id]
        if as_known_at is not None:
            known = await known_at(self._db, user, [n["id"] for n in items], as_known_at)
            views = [held_view(n, n["id"], known.get(n["id"]), as_known_at) for n in items]
            items = [
                v for v in views
                if v is not None and (status is None or v["status"] == status)
                and (valid_now is None or valid_at(v, valid_now))
            ]  # fmt: skip
        next_cursor = (
            encode_cursor(page[limit - 1]["createdAt"], page[limit - 1]["id"]) if len(page) > limit else None
        )
        return items, next_cursor

    # --- update, invalidate and delete ------------------------------------------------------
    async def invalidate(
        self, principal: Principal, node_id: str, *, reason: str, at: int | None = None
    ) -> dict[str, Any] | Proposed:
        """State that a fact stopped being true at ``at`` (now by default), and why: a change
        of its ``validUntil`` (journaled, undoable; an agent's invalidation of what a person
        wrote or corrected waits as a proposal). A fact that had ended by then already is a
        :class:`Conflict` (two invalidations at once: the first one stands)."""
        return await self._edits.update(
            principal, node_id, NotePatch(valid_until=at, invalid_reason=reason), ending=True
        )

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
