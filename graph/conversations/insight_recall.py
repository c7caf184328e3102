"""Reading a user's insights: a page of them, some by id, and recall (the insights closest to
a query, by vector and by words, fused as search fuses its halves), with the rule for an
insight close enough to a topic to show in the bridge or a brief (:func:`close_enough`).
"""

from __future__ import annotations

from typing import Any

from neo4j import AsyncManagedTransaction

from graph.core.db import Database, run_rows
from graph.core.embeddings import Embedder
from graph.core.principals import Principal
from graph.core.scopes import require_unscoped
from graph.core.values import plain
from graph.core.vectors import VectorPlanConfig, cosine_from_score
from graph.knowledge.search import RRF_K, keyword_terms
from graph.knowledge.valid_time import millis_now


class InsightReader:
    """List, fetch and recall a user's insights."""

    def __init__(self, db: Database, embedder: Embedder, *, plan: VectorPlanConfig, term_limit: int) -> None:
        self._db = db
        self._embedder = embedder
        self._plan = plan
        self._term_limit = term_limit

    async def list_insights(
        self,
        principal: Principal,
        *,
        thread_id: str | None = None,
        insight_type: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The user's insights, newest first."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        rows = await self._db.read_listed(
            "queries/conversations/insights_list",
            userId=principal.user_id,
            threadId=thread_id,
            type=insight_type,
            afterId=cursor,
            limit=limit + 1,
        )
        items = [plain(r["insight"]) for r in rows]
        more = len(items) > limit
        items = items[:limit]
        return items, items[-1]["id"] if more else None

    async def by_ids(self, principal: Principal, ids: list[str]) -> dict[str, dict[str, Any]]:
        """The user's insights among ``ids``, by id (others' and unknown ones are absent)."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        rows = await self._db.read("queries/conversations/insights_by_ids", userId=principal.user_id, ids=ids)
        return {row["insight"]["id"]: plain(row["insight"]) for row in rows}

    async def recall(
        self,
        principal: Principal,
        query: str,
        *,
        limit: int = 10,
        topics: int = 5,
        vector: list[float] | None = None,
    ) -> dict[str, Any]:
        """The insights most relevant to ``query`` (any thread; ``vector``, when given, is
        its embedding) and the ``topics`` most recent thread topics. A key with an entity
        scope recalls none: insights are not divided by notes, so none is inside a scope."""
        if principal.scope is not None:
            return {"insights": [], "recentTopics": []}
        if vector is None:
            [vector] = await self._embedder.embed([query])
        user = principal.user_id

        now = millis_now()

        async def work(tx: AsyncManagedTransaction) -> dict[str, Any]:
            [counts] = await run_rows(tx, "queries/conversations/insights_counts", userId=user)
            mine, total = int(counts["mine"]), int(counts["total"])
            hits: list[dict[str, Any]] = []
            if mine:
                candidates = self._plan.index_candidates(limit, mine, total)
                done = False
                if candidates is not None:
                    [row] = await run_rows(
                        tx,
                        "queries/conversations/insights_recall_index",
                        userId=user,
                        vector=vector,
                        candidates=candidates,
                        limit=limit,
                        validAt=now,
                    )
                    if row["matched"] >= limit:
                        hits, done = row["hits"], True
                if not done:
                    [row] = await run_rows(
                        tx,
                        "queries/conversations/insights_recall_exact",
                        userId=user,
                        vector=vector,
                        limit=limit,
                        validAt=now,
                    )
                    hits = row["hits"]
            terms = keyword_terms(query, user, fields=("content",)) if mine else []
            worded = (
                (
                    await run_rows(
                        tx,
                        "queries/conversations/insights_recall_text",
                        userId=user,
                        terms=terms,
                        termLimit=self._term_limit,
                        insights=mine,
                        vector=vector,
                        candidates=max(limit * 4, 50),
                        limit=limit,
                        validAt=now,
                    )
                )[0]["hits"]
                if terms
                else []
            )
            recent = (
                await run_rows(tx, "queries/conversations/threads_recent_topics", userId=user, limit=topics)
                if topics
                else []
            )
            return {"insights": fuse(hits, worded, limit), "recentTopics": [plain(r) for r in recent]}

        return await self._db.read_tx(work)


def close_enough(insight: dict[str, Any], min_similarity: float) -> bool:
    """Whether a recalled insight belongs in the bridge or a brief: its words matched the
    topic, or its cosine to it is at least ``min_similarity`` (the rule notes follow too)."""
    return "textScore" in insight or float(insight["score"]) >= min_similarity


def fuse(by_vector: list[dict[str, Any]], by_words: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The two halves of recall in one ranking, by reciprocal rank fusion as search fuses
    its halves: each insight with its cosine to the query (``score``) and, when its words
    matched, its keyword score (``textScore``)."""
    found: dict[str, dict[str, Any]] = {}
    fused: dict[str, float] = {}
    for ranking in (by_vector, by_words):
        for rank, hit in enumerate(ranking, 1):
            insight = plain(hit["insight"])
            entry = found.setdefault(insight["id"], {**insight, "score": cosine_from_score(hit["score"])})
            if "textScore" in hit:
                entry["textScore"] = float(hit["textScore"])
            fused[insight["id"]] = fused.get(insight["id"], 0.0) + 1 / (RRF_K + rank)
    order = sorted(found, key=lambda i: (-fused[i], i))
    return [found[i] for i in order[:limit]]
