"""The knowledge network: atomic notes, typed edges, search and graph-aware retrieval.

Every method takes the calling :class:`~graph.principals.Principal` and touches only
that user's notes: an id that belongs to someone else is simply not found. Each
logical write is one transaction (a batch of 1,000 notes commits whole or not at all).
"""

from __future__ import annotations

import base64
import functools
import json
import re
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
from neo4j import AsyncManagedTransaction
from neo4j.time import Date, DateTime, Duration, Time

from graph.db import Database, Row, run_rows
from graph.embeddings import Embedder
from graph.errors import Conflict, InvalidInput, NotFound
from graph.models import (
    ALL_REL_TYPES,
    CreateResult,
    Direction,
    EdgeType,
    KnowledgeStatus,
    NewEdge,
    NewNote,
    NotePatch,
    SearchFilters,
    SearchMode,
    SearchQuery,
)
from graph.principals import Principal
from graph.search import (
    SEARCH_QUERIES,
    TenantSizes,
    VectorPlanConfig,
    cosine_from_score,
    retrieve,
    score_from_cosine,
    tenant_key,
)
from graph.settings import Settings

NOTE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$")
MAX_BATCH = 1_000


#: Keys whose values the queries return as epoch milliseconds (cheaper to decode than
#: the driver's DateTime objects); they leave the domain as ISO-8601 strings.
TIME_KEYS = frozenset({"createdAt", "updatedAt", "mergedAt", "startedAt", "finishedAt", "extractedAt"})


@functools.lru_cache(maxsize=65_536)
def iso_millis(epoch_millis: int) -> str:
    """``2026-11-29T15:05:27.646+00:00``. Cached: notes written together share their time
    (one transaction, one ``datetime()``), and a search converts a hundred of them."""
    return datetime.fromtimestamp(epoch_millis / 1000, UTC).isoformat(timespec="milliseconds")


def plain(value: Any) -> Any:
    """Neo4j values as JSON-friendly Python (times to ISO-8601 strings)."""
    if isinstance(value, DateTime | Date | Time):
        return value.to_native().isoformat()
    if isinstance(value, Duration):
        return str(value)
    if isinstance(value, dict):
        return {
            k: iso_millis(v) if k in TIME_KEYS and isinstance(v, int) else plain(v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _edge(row: dict[str, Any]) -> dict[str, Any]:
    """An edge as the API shows it: its API type name, ISO time, no empty optional fields."""
    edge = {
        "type": EdgeType.from_rel_type(row["type"]).value,
        "sourceId": row["sourceId"],
        "targetId": row["targetId"],
    }
    if row.get("createdAt") is not None:
        edge["createdAt"] = iso_millis(row["createdAt"])
    for key in ("source", "confidence", "note"):
        if row.get(key) is not None:
            edge[key] = row[key]
    return edge


def note_view(node: dict[str, Any]) -> dict[str, Any]:
    """A note as the Cypher note projections return it, made JSON-ready in place (times to
    ISO strings, empty optional fields dropped). Every note goes through here; :func:`plain`,
    which walks any value, cost a tenth of a search that returns dozens of notes.
    """
    node["createdAt"] = iso_millis(node["createdAt"])
    node["updatedAt"] = iso_millis(node["updatedAt"])
    if node.get("embedding", 0) is None:
        del node["embedding"]
    for merge in node.get("merges") or ():
        merge["mergedAt"] = iso_millis(merge["mergedAt"])
        if merge.get("requestedId", 0) is None:
            del merge["requestedId"]
    return node


def encode_cursor(created_at: str, node_id: str) -> str:
    """An opaque cursor for the next page."""
    return base64.urlsafe_b64encode(json.dumps([created_at, node_id]).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, str]:
    """Inverse of :func:`encode_cursor`; a bad cursor is a 422 on ``cursor``."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        created_at, node_id = json.loads(base64.urlsafe_b64decode(padded.encode()))
        return str(created_at), str(node_id)
    except (ValueError, TypeError) as exc:
        raise InvalidInput("cursor is not one this API issued", field="cursor") from exc


def check_note_id(node_id: str, field: str = "id") -> str:
    """Note ids: 1-128 characters of letters, digits and ``._:@/-``."""
    if not NOTE_ID.fullmatch(node_id):
        raise InvalidInput(f"{field} must be 1-128 characters of letters, digits and ._:@/-", field=field)
    return node_id


def _new_node(row: dict[str, Any], stamp: str) -> dict[str, Any]:
    """A freshly created note as the API shows it."""
    return {
        "id": row["id"],
        "title": row["title"],
        "content": row["content"],
        "type": row["type"],
        "source": row["source"],
        "confidence": row["confidence"],
        "status": KnowledgeStatus.ACTIVE.value,
        "tags": row["tags"],
        "createdAt": stamp,
        "updatedAt": stamp,
        "mergeCount": 0,
        "merges": [],
    }


@dataclass
class _Pending:
    index: int
    note: NewNote
    node_id: str
    embedding: list[float]


class KnowledgeService:
    """Create, read, change, connect, search and delete a user's notes."""

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

    @classmethod
    def from_settings(cls, db: Database, embedder: Embedder, settings: Settings) -> KnowledgeService:
        """The service as the settings configure it (API and CLI alike)."""
        return cls(
            db,
            embedder,
            dedupe_threshold=settings.dedupe_threshold,
            plan=VectorPlanConfig.from_settings(settings),
            sizes=TenantSizes(settings.tenant_size_cache_seconds),
        )

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
            node_id = check_note_id(note.id, f"{field_prefix(i)}id") if note.id else uuid.uuid4().hex
            ids.append(node_id)
        seen: dict[str, int] = {}
        for i, node_id in enumerate(ids):
            if node_id in seen:
                raise InvalidInput(f"id {node_id!r} appears twice in the batch", field=f"{field_prefix(i)}id")
            seen[node_id] = i
        vectors = await self._embeddings(notes, field_prefix)
        pending = [_Pending(i, n, ids[i], vectors[i]) for i, n in enumerate(notes)]

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
        pending: list[_Pending],
        field_prefix: Callable[[int], str],
    ) -> list[CreateResult]:
        user = principal.user_id
        supplied = [p.node_id for p in pending if p.note.id]
        existing = {
            row["node"]["id"]: row["node"]
            for row in await run_rows(
                tx, "queries/knowledge_by_ids", userId=user, ids=supplied, withEmbedding=False
            )
        }
        merged_before = {
            row["requestedId"]: row["targetId"]
            for row in await run_rows(tx, "queries/knowledge_merged_lookup", userId=user, ids=supplied)
        }
        outcome: dict[int, tuple[str, bool, str | None]] = {}  # index -> (node id, created, merged into)
        fresh: list[_Pending] = []
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

        merges = await self._find_twins(tx, user, [p for p in fresh if p.note.dedupe])
        rows, merge_rows = [], []
        for p in fresh:
            twin = merges.get(p.index)
            if twin is None:
                rows.append(self._create_row(p))
                outcome[p.index] = (p.node_id, True, None)
                continue
            target_id, similarity = twin
            merge_rows.append(
                {
                    "targetId": target_id,
                    "requestedId": p.node_id if p.note.id else None,
                    "title": p.note.title,
                    "content": p.note.content,
                    "type": p.note.type.value,
                    "source": p.note.source.value,
                    "confidence": p.note.confidence,
                    "tags": list(p.note.tags),
                    "similarity": similarity,
                }
            )
            outcome[p.index] = (target_id, False, target_id)
        common = {"userId": user, "role": principal.role.value, "agentId": principal.agent_id}
        nodes: dict[str, dict[str, Any]] = {}
        if rows:
            created = await run_rows(
                tx,
                "queries/knowledge_create_batch",
                rows=rows,
                tenantKey=tenant_key(user),
                embeddingModel=self._embedder.model_id,
                **common,
            )
            # The new notes are known here; only their time comes from the database.
            stamps = {r["id"]: iso_millis(r["createdAt"]) for r in created}
            for row in rows:
                nodes[row["id"]] = _new_node(row, stamps[row["id"]])
        if merge_rows:
            await run_rows(tx, "queries/knowledge_merge_into", merges=merge_rows, **common)
        others = sorted({node_id for node_id, _, _ in outcome.values()} - set(nodes))
        if others:
            for row in await run_rows(
                tx, "queries/knowledge_by_ids", userId=user, ids=others, withEmbedding=False
            ):
                nodes[row["node"]["id"]] = note_view(row["node"])
        return [
            CreateResult(node=nodes[outcome[i][0]], created=outcome[i][1], merged_into=outcome[i][2])
            for i in range(len(pending))
        ]

    @staticmethod
    def _create_row(p: _Pending) -> dict[str, Any]:
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

    async def _find_twins(
        self, tx: AsyncManagedTransaction, user: str, candidates: list[_Pending]
    ) -> dict[int, tuple[str, float]]:
        """For each candidate, an active note (stored, or earlier in this batch) with cosine >= threshold."""
        if not candidates:
            return {}
        threshold = self._dedupe_threshold
        twins: dict[int, tuple[str, float]] = {}
        mine, total = await self._sizes.get(tx, user)
        if mine > 0:
            rows = [{"index": p.index, "embedding": p.embedding} for p in candidates]
            params = {"userId": user, "rows": rows, "minScore": score_from_cosine(threshold) - 1e-9}
            # The nearest twin is wanted; asking as for ten keeps the index plan well oversampled.
            sample = self._plan.index_candidates(10, mine, total)
            if sample is not None:
                found = await run_rows(tx, "queries/knowledge_dedupe_ann", candidates=sample, **params)
            else:
                found = await run_rows(tx, "queries/knowledge_dedupe_exact", **params)
            for row in found:
                if row["matchId"] is not None:
                    twins[row["index"]] = (row["matchId"], cosine_from_score(row["score"]))
        # Twins inside the batch: a later note folds into an earlier one that is being created.
        unmatched = [p for p in candidates if p.index not in twins]
        if len(unmatched) > 1:
            matrix = np.array([p.embedding for p in unmatched], dtype=np.float32)
            matrix /= np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
            sims = matrix @ matrix.T
            kept: list[int] = []
            for j, p in enumerate(unmatched):
                best = max(kept, key=lambda k: sims[j, k], default=None)
                if best is not None and sims[j, best] >= threshold:
                    twins[p.index] = (unmatched[best].node_id, float(sims[j, best]))
                else:
                    kept.append(j)
        return twins

    # --- read ---------------------------------------------------------------------------------
    async def get(
        self, principal: Principal, node_id: str, *, with_embedding: bool = False
    ) -> dict[str, Any]:
        """One note, with the record of what was merged into it."""
        rows = await self._db.read(
            "queries/knowledge_by_ids", userId=principal.user_id, ids=[node_id], withEmbedding=with_embedding
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
                "queries/knowledge_list",
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
            nodes = await run_rows(tx, "queries/knowledge_by_ids", userId=user, ids=ids, withEmbedding=False)
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
            "queries/knowledge_update",
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
        rows = await self._db.write("queries/knowledge_delete", userId=principal.user_id, id=node_id)
        if not rows:
            raise NotFound(f"no note {node_id!r}", field="id")
        self._sizes.forget(principal.user_id)
        return list(rows[0]["restored"])

    # --- edges -------------------------------------------------------------------------------
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
        user = principal.user_id

        async def work(tx: AsyncManagedTransaction) -> list[Row]:
            [found] = await run_rows(tx, "queries/knowledge_existing_ids", userId=user, ids=wanted)
            present = set(found["ids"])
            for i, e in enumerate(edges):
                for name, node_id in (("sourceId", e.source_id), ("targetId", e.target_id)):
                    if node_id not in present:
                        raise NotFound(f"no note {node_id!r}", field=field(i, name))
            return await run_rows(
                tx,
                "queries/edges_create_batch",
                rows=rows,
                userId=user,
                role=principal.role.value,
                agentId=principal.agent_id,
            )

        created = await self._db.write_tx(work)
        ordered = sorted(created, key=lambda r: r["index"])
        return [(_edge(r["edge"]), bool(r["created"])) for r in ordered]

    async def connections(self, principal: Principal, node_id: str) -> list[dict[str, Any]]:
        """A note's edges in both directions."""
        await self.get(principal, node_id)
        rows = await self._db.read(
            "queries/edges_of_node", userId=principal.user_id, id=node_id, relTypes=ALL_REL_TYPES
        )
        return [_edge(r["edge"]) for r in rows]

    async def disconnect(
        self, principal: Principal, node_id: str, edge_type: EdgeType, target_id: str
    ) -> None:
        """Remove one edge (404 if there is none)."""
        rows = await self._db.write(
            "queries/edge_delete",
            userId=principal.user_id,
            sourceId=node_id,
            targetId=target_id,
            relType=edge_type.rel_type,
        )
        if not rows or rows[0]["deleted"] == 0:
            raise NotFound(f"no {edge_type.value} edge from {node_id!r} to {target_id!r}", field="targetId")

    # --- retrieval -----------------------------------------------------------------------------
    @staticmethod
    def _subgraph(row: dict[str, Any]) -> dict[str, Any]:
        """Hit notes by id, the notes reached from them (nearest first), and the edges."""
        return {
            "hits": {node["id"]: note_view(node) for node in row["hits"]},
            "reached": [
                {"node": note_view(r["node"]), "depth": r["depth"], "via": [_edge(v) for v in r["via"]]}
                for r in sorted(row["reached"], key=lambda r: (r["depth"], r["node"]["id"]))
            ],
            "edges": [_edge(e) for e in row["edges"]],
        }

    async def neighborhood(
        self, principal: Principal, node_id: str, depth: int, *, include_superseded: bool = True
    ) -> dict[str, Any]:
        """The note, the notes within ``depth`` hops (any edge type, both ways), and their edges."""
        if depth not in SEARCH_QUERIES:
            raise InvalidInput(f"depth must be 0-{max(SEARCH_QUERIES)}", field="depth")
        user = principal.user_id
        statuses = (
            [s.value for s in KnowledgeStatus] if include_superseded else [KnowledgeStatus.ACTIVE.value]
        )

        async def work(tx: AsyncManagedTransaction) -> dict[str, Any]:
            found = await retrieve(
                tx,
                user_id=user,
                mode="seeds",
                seed_ids=[node_id],
                top_k=1,
                pool=1,
                filters={"statuses": statuses, **_filter_params(SearchFilters())},
                depth=depth,
                rel_types=ALL_REL_TYPES,
                direction=Direction.BOTH.value,
                sizes=self._sizes,
                config=self._plan,
            )
            return self._subgraph(found.row)

        result = await self._db.read_tx(work)
        if node_id not in result["hits"]:
            raise NotFound(f"no note {node_id!r}", field="id")
        return {"node": result["hits"][node_id], "nodes": result["reached"], "edges": result["edges"]}

    async def search(self, principal: Principal, query: SearchQuery) -> dict[str, Any]:
        """Top-k notes by vector, fulltext or both (RRF), expanded along the chosen edges:
        one query (see ``cypher/queries/knowledge_search_*.cypher``)."""
        user = principal.user_id
        vector = query.embedding
        if query.mode != SearchMode.FULLTEXT and vector is None:
            [vector] = await self._embedder.embed([query.query])
        if query.mode == SearchMode.FULLTEXT:
            vector = None
        if vector is not None and len(vector) != self._embedder.dimension:
            raise InvalidInput(
                f"embedding has {len(vector)} dimensions; the index needs {self._embedder.dimension}",
                field="embedding",
            )
        depth = query.max_depth if query.expand_connections else 0
        if depth not in SEARCH_QUERIES:
            raise InvalidInput(f"depth must be 0-{max(SEARCH_QUERIES)}", field="maxDepth")

        async def work(tx: AsyncManagedTransaction) -> dict[str, Any]:
            found = await retrieve(
                tx,
                user_id=user,
                mode=query.mode.value,
                vector=vector,
                text=query.query if query.mode != SearchMode.VECTOR else None,
                top_k=query.top_k,
                pool=query.top_k if query.mode != SearchMode.HYBRID else max(query.top_k * 2, 20),
                filters={"statuses": _statuses(query), **_filter_params(query.filters)},
                depth=depth,
                rel_types=[t.rel_type for t in query.edge_types] if query.edge_types else ALL_REL_TYPES,
                direction=query.direction.value,
                sizes=self._sizes,
                config=self._plan,
            )
            subgraph = self._subgraph(found.row)
            vector_score = dict(found.vector_hits)
            text_score = dict(found.text_hits)
            hits = []
            for ranked in found.row["ranked"]:
                node_id = ranked["id"]
                if query.mode == SearchMode.VECTOR:
                    score = vector_score[node_id]
                elif query.mode == SearchMode.FULLTEXT:
                    score = text_score[node_id]
                else:
                    score = float(ranked["score"])
                hit: dict[str, Any] = {"node": subgraph["hits"][node_id], "score": score}
                if node_id in vector_score:
                    hit["vectorScore"] = vector_score[node_id]
                if node_id in text_score:
                    hit["textScore"] = text_score[node_id]
                hits.append(hit)
            return {
                "hits": hits,
                "expanded": subgraph["reached"],
                "edges": subgraph["edges"],
                "plan": found.plan,
            }

        return await self._db.read_tx(work)


def _statuses(query: SearchQuery) -> list[str]:
    if query.filters.status:
        return [s.value for s in query.filters.status]
    if query.include_superseded:
        return [KnowledgeStatus.ACTIVE.value, KnowledgeStatus.SUPERSEDED.value]
    return [KnowledgeStatus.ACTIVE.value]


def _filter_params(filters: SearchFilters) -> dict[str, Any]:
    return {
        "types": [t.value for t in filters.types] if filters.types else None,
        "sources": [s.value for s in filters.sources] if filters.sources else None,
        "minConfidence": filters.min_confidence,
        "tags": list(filters.tags) if filters.tags else None,
        "createdAfter": filters.created_after.isoformat() if filters.created_after else None,
        "createdBefore": filters.created_before.isoformat() if filters.created_before else None,
    }
