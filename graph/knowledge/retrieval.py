"""Retrieval from the knowledge network: search (vector, fulltext, hybrid) with graph-aware
expansion, and a note's neighbourhood; both run one Cypher query (``graph.knowledge.search``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.errors import InvalidInput, NotFound
from graph.core.principals import Principal, Scope
from graph.core.values import iso_millis
from graph.core.vectors import VectorPlanConfig, check_vectors
from graph.knowledge.clocks import held_view, known_at, valid_at
from graph.knowledge.dated_search import dated_ranking, reading_of, reads_dates
from graph.knowledge.models import (
    ALL_REL_TYPES,
    Direction,
    KnowledgeStatus,
    SearchFilters,
    SearchMode,
    SearchQuery,
    rel_type_of,
)
from graph.knowledge.near_ties import asks_for_time, newer_first
from graph.knowledge.search import COLLAPSE, MAX_REACHED, SEARCH_QUERIES, TERM_LIMIT, TenantSizes, retrieve
from graph.knowledge.time_words import Reading
from graph.knowledge.valid_time import millis_now
from graph.knowledge.views import edge_view, note_view


class RetrievalService:
    """Search a user's notes and walk the edges around them."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        *,
        plan: VectorPlanConfig | None = None,
        sizes: TenantSizes | None = None,
        term_limit: int = TERM_LIMIT,
    ) -> None:
        self._db = db
        self._embedder = embedder
        self._plan = plan or VectorPlanConfig()
        self._sizes = sizes or TenantSizes()
        self._term_limit = term_limit

    @staticmethod
    def _subgraph(row: dict[str, Any]) -> dict[str, Any]:
        """Hit notes by id, the notes reached from them in the order the query kept them
        (nearest first, then those more edges reach, then by id: what a cut to the answer's
        size keeps first too), and the edges."""
        return {
            "hits": {node["id"]: note_view(node) for node in row["hits"]},
            "reached": [
                {"node": note_view(r["node"]), "depth": r["depth"], "via": [edge_view(v) for v in r["via"]]}
                for r in sorted(row["reached"], key=lambda r: (r["depth"], -len(r["via"]), r["node"]["id"]))
            ],
            "edges": [edge_view(e) for e in row["edges"]],
            "truncated": bool(row["truncated"]),
        }

    async def close_to(
        self, principal: Principal, text: str, vector: list[float], *, top_k: int, min_similarity: float
    ) -> list[dict[str, Any]]:
        """The notes of a hybrid top-``top_k`` for ``text`` (``vector`` its embedding, no
        expansion) that share a word with it or are semantically close (cosine >=
        ``min_similarity``), best first: what the bridge and brief_me show as memory."""
        found = await self.search(
            principal,
            SearchQuery(
                query=text, top_k=top_k, mode=SearchMode.HYBRID, expand_connections=False, embedding=vector
            ),
        )
        return [
            h["node"]
            for h in found["hits"]
            if "textScore" in h or h.get("vectorScore", 0.0) >= min_similarity
        ]

    async def nearest(self, principal: Principal, vector: list[float], top_k: int) -> list[str]:
        """The ids of the ``top_k`` notes (active, true now) nearest ``vector``, best first: the
        vector ranking of a plain search, without reading the notes (for a caller that reads
        and ranks them itself, as unified search does)."""
        query = SearchQuery(query="", top_k=top_k, mode=SearchMode.VECTOR, expand_connections=False)

        async def work(tx: AsyncManagedTransaction) -> list[str]:
            found = await retrieve(
                tx,
                user_id=principal.user_id,
                mode=query.mode.value,
                vector=vector,
                top_k=top_k,
                pool=_pool(query),
                depth=0,
                **self._narrowed(principal, query),
                collapse=COLLAPSE[query.collapse_by],
                bare=True,
            )
            return [ranked["id"] for ranked in found.row["ranked"]]

        return await self._db.read_tx(work)

    async def neighborhood(
        self,
        principal: Principal,
        node_id: str,
        depth: int,
        *,
        include_superseded: bool = True,
        limit: int = MAX_REACHED,
    ) -> dict[str, Any]:
        """The note, the notes within ``depth`` hops (any edge type, both ways; at most
        ``limit``, the nearest first), and their edges; ``truncated`` when some were left out."""
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
                filters={
                    "statuses": statuses,
                    **_filter_params(SearchFilters()),
                    "validAt": None,
                    "asOf": None,
                },
                depth=depth,
                rel_types=ALL_REL_TYPES,
                direction=Direction.BOTH.value,
                sizes=self._sizes,
                config=self._plan,
                scope=Scope.of(principal.scope),
                max_reached=limit,
            )
            return self._subgraph(found.row)

        result = await self._db.read_tx(work)
        if node_id not in result["hits"]:
            raise NotFound(f"no note {node_id!r}", field="id")
        answer = {"node": result["hits"][node_id], "nodes": result["reached"], "edges": result["edges"]}
        return answer | ({"truncated": True} if result["truncated"] else {})

    async def _vector(self, query: SearchQuery) -> list[float] | None:
        """The question's vector: the one sent, else its embedding; none for a keyword search."""
        check_vectors([query.embedding], self._embedder.dimension, lambda _: "embedding")
        if query.mode == SearchMode.FULLTEXT:
            return None
        if query.embedding is not None:
            return query.embedding
        [vector] = await self._embedder.embed([query.query])
        return vector

    def _narrowed(self, principal: Principal, query: SearchQuery) -> dict[str, Any]:
        """What narrows every query a search runs: its filters, statuses and valid time, the
        edges expansion follows and which way, the key's scope, and the vector plan."""
        return {
            "filters": {"statuses": _statuses(query), **_filter_params(query.filters), **valid_params(query)},
            "rel_types": [rel_type_of(t) for t in query.edge_types] if query.edge_types else ALL_REL_TYPES,
            "direction": query.direction.value,
            "sizes": self._sizes,
            "config": self._plan,
            "scope": Scope.of(principal.scope),
        }

    async def search(self, principal: Principal, query: SearchQuery) -> dict[str, Any]:
        """Top-k notes by vector, fulltext or both (scaled scores fused), expanded along the
        chosen edges: one query (see ``cypher/queries/knowledge/search_*.cypher``). When the
        search asks for time, its near ties go newer-first (``graph.knowledge.near_ties``)."""
        found = await self._search(principal, query)
        if asks_for_time(query):
            found["hits"] = newer_first(found["hits"])
        return found

    async def _search(self, principal: Principal, query: SearchQuery) -> dict[str, Any]:
        """A search as ranked, before its near ties are told (:meth:`search`)."""
        if reads_dates(query):
            at = query.as_of if query.as_of is not None else millis_now()
            reading = reading_of(query, at)
            if query.recency > 0 or reading.spans or reading.parts:
                return await self._search_dated(principal, query, reading, at)
            query = replace(query, read_dates=False)
        if query.as_known_at is not None:
            return await self._search_held(principal, query, query.as_known_at)
        user = principal.user_id
        vector = await self._vector(query)
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
                pool=_pool(query),
                depth=depth,
                **self._narrowed(principal, query),
                collapse=COLLAPSE[query.collapse_by],
                term_limit=self._term_limit,
                max_reached=query.max_expanded,
            )
            subgraph = self._subgraph(found.row)
            vector_score = dict(found.vector_hits)
            text_score = dict(found.text_hits)
            hits = []
            for ranked in found.row["ranked"]:
                node_id = ranked["id"]
                # A keyword or hybrid score is the ranking's: less a stuffed note's repeats
                score = vector_score[node_id] if query.mode == SearchMode.VECTOR else float(ranked["score"])
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
            } | ({"truncated": True} if subgraph["truncated"] else {})

        return await self._db.read_tx(work)

    async def _search_dated(
        self, principal: Principal, query: SearchQuery, reading: Reading, at: int
    ) -> dict[str, Any]:
        """A search ranked with the question's dates (``graph.knowledge.dated_search``), its
        hits expanded as a plain search's are."""
        vector = await self._vector(query)

        async def plain(asked: SearchQuery) -> dict[str, Any]:
            return await self._search(principal, asked)

        hits = await dated_ranking(plain, query, reading, at, vector)
        depth = query.max_depth if query.expand_connections else 0
        ids = [h["node"]["id"] for h in hits]

        async def work(tx: AsyncManagedTransaction) -> dict[str, Any]:
            found = await retrieve(
                tx,
                user_id=principal.user_id,
                mode="seeds",
                seed_ids=ids,
                top_k=len(ids),
                pool=len(ids),
                depth=depth,
                **self._narrowed(principal, query),
                max_reached=query.max_expanded,
            )
            return self._subgraph(found.row)

        around = await self._db.read_tx(work) if ids else {"reached": [], "edges": [], "truncated": False}
        answer = {"hits": hits, "expanded": around["reached"], "edges": around["edges"], "plan": "dated"}
        return answer | ({"truncated": True} if around["truncated"] else {})

    async def _search_held(self, principal: Principal, query: SearchQuery, moment: int) -> dict[str, Any]:
        """A search of what the memory held at ``moment`` (record time): the notes recorded by
        then, of any status and validity, ranked as they read now (three times the top k),
        then replayed from the journal and kept if, as held then, they had the status asked
        for and were true (at ``as_of``, or not yet ended then). Notes deleted since are not
        searched (``GET /v1/knowledge/{id}?asKnownAt=`` still shows them)."""
        before = datetime.fromtimestamp(moment / 1000 + 0.001, UTC)
        filters = query.filters
        wide = replace(
            query,
            as_known_at=None,
            include_ended=True,
            top_k=min(100, query.top_k * 3),
            filters=replace(
                filters,
                status=tuple(KnowledgeStatus),
                created_before=min(before, filters.created_before) if filters.created_before else before,
            ),
        )
        found = await self._search(principal, wide)
        ids = [h["node"]["id"] for h in found["hits"]] + [r["node"]["id"] for r in found["expanded"]]
        known = await known_at(self._db, principal.user_id, ids, moment)
        wanted = set(_statuses(query))

        def held(node: dict[str, Any]) -> dict[str, Any] | None:
            view = held_view(node, node["id"], known.get(node["id"]), moment)
            if view is None or view["status"] not in wanted:
                return None
            true = (
                valid_at(view, query.as_of)
                if query.as_of is not None
                else valid_at(view, moment, begun=False)
            )
            return view if true or query.include_ended else None

        hits = [h | {"node": v} for h in found["hits"] if (v := held(h["node"])) is not None][: query.top_k]
        expanded = [r | {"node": v} for r in found["expanded"] if (v := held(r["node"])) is not None]
        kept = {h["node"]["id"] for h in hits} | {r["node"]["id"] for r in expanded}
        edges = [
            e for e in found["edges"]
            if {e["sourceId"], e["targetId"]} <= kept and (e.get("createdAt") or "") <= iso_millis(moment)
        ]  # fmt: skip
        answer = {"hits": hits, "expanded": expanded, "edges": edges, "plan": found["plan"]}
        return answer | ({"truncated": True} if found.get("truncated") else {})


def _pool(query: SearchQuery) -> int:
    """How long each half's ranking is: the top k (twice, at least 20, for fusion); the
    search makes it four times that when hits collapse by source (``search.retrieve``)."""
    return query.top_k if query.mode != SearchMode.HYBRID else max(query.top_k * 2, 20)


def valid_params(query: SearchQuery) -> dict[str, int | None]:
    """Valid time as the search queries take it: what is true now (notes and edges whose
    validity ended are left out), what was true at ``as_of``, or everything."""
    if query.include_ended:
        return {"validAt": None, "asOf": None}
    if query.as_of is not None:
        return {"validAt": query.as_of, "asOf": query.as_of}
    return {"validAt": millis_now(), "asOf": None}


def _statuses(query: SearchQuery) -> list[str]:
    if query.filters.status:
        return [s.value for s in query.filters.status]
    if query.include_superseded or (query.as_of is not None and not query.include_ended):
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
        "begunAfter": filters.begun_after,
        "begunBefore": filters.begun_before,
    }
