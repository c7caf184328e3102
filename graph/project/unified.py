"""One search across the three layers of context: knowledge (notes), memory (insights from
conversations) and docs (project context: decisions, patterns, constraints, and agents'
documentation).

Each layer brings its own candidates: knowledge its vector search (the notes nearest the
query: since the one ranking is by cosine, a keyword half's other candidates could only rank
below them, so it is not read), memory its hybrid recall, docs exactly (a project holds
thousands of entries, not millions). The candidates are then ranked **together by one
measure**, each one's exact cosine to the query from the same embedder, computed in one
statement, so a score means the same in every layer and the list is one ranking, not three
glued together. A note that is project context counts as docs, not knowledge. Tenant-safe
as search is: every candidate and every score comes from the caller's own data.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from ctxnet.wire.vocabulary import Layer as Layer
from graph.conversations.insights import InsightService
from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.principals import Principal
from graph.core.values import iso_millis
from graph.core.vectors import cosine_from_score
from graph.knowledge.retrieval import RetrievalService
from graph.knowledge.valid_time import millis_now

#: Candidates each layer brings, per result asked for: enough that the one ranking is not
#: decided by a layer's own cut.
CANDIDATES_PER_RESULT = 2


class UnifiedSearch:
    """Knowledge, memory and docs in one ranking."""

    def __init__(
        self, db: Database, embedder: Embedder, retrieval: RetrievalService, insights: InsightService
    ) -> None:
        self._db = db
        self._embedder = embedder
        self._retrieval = retrieval
        self._insights = insights

    async def search(
        self, principal: Principal, query: str, layers: Sequence[Layer], top_k: int
    ) -> dict[str, Any]:
        """The ``top_k`` items of the chosen layers most similar to ``query``, each with its
        layer and score (cosine), best first."""
        [vector] = await self._embedder.embed([query])
        want = top_k * CANDIDATES_PER_RESULT
        found = await asyncio.gather(  # each layer's candidates, read side by side
            self._notes(principal, vector, want) if Layer.KNOWLEDGE in layers else _nothing(),
            self._insights_found(principal, query, vector, want) if Layer.MEMORY in layers else _nothing(),
            self._docs(principal, vector, want) if Layer.DOCS in layers else _nothing(),
        )
        note_ids = [i for what, i in found[0] + found[2] if what == "note"]
        insight_ids = [i for _, i in found[1]]
        doc_ids = [i for what, i in found[2] if what == "agentDoc"]
        rows = await self._db.read_listed(
            "queries/project/unified_scores", userId=principal.user_id, vector=vector,
            noteIds=sorted(set(note_ids)), insightIds=insight_ids, docIds=doc_ids,
        )  # fmt: skip
        results = []
        for row in rows:
            layer = _layer(row)
            if layer not in layers:
                continue  # a project note knowledge search found, when docs were not asked for
            results.append(
                {"layer": layer.value, "kind": row["what"], "item": _item(row), "score": row["score"]}
            )
        results.sort(key=lambda r: (-r["score"], r["layer"], r["item"]["id"]))
        for r in results:
            r["score"] = round(cosine_from_score(r["score"]), 4)
        return {"query": query, "layers": [layer.value for layer in layers], "results": results[:top_k]}

    async def _notes(self, principal: Principal, vector: list[float], want: int) -> list[tuple[str, str]]:
        """Knowledge's candidates: the notes nearest the query, by its vector search (the
        notes the one ranking puts first: it ranks by cosine; the index's full-precision
        scores are exact, and its recall is checked against exact cosine in
        ``bench/knowledge.py``). Their ids alone: the one ranking reads the notes."""
        return [("note", note_id) for note_id in await self._retrieval.nearest(principal, vector, want)]

    async def _insights_found(
        self, principal: Principal, query: str, vector: list[float], want: int
    ) -> list[tuple[str, str]]:
        """Memory's candidates, by insight recall."""
        recalled = await self._insights.recall_within_scope(principal, query, limit=want, vector=vector)
        return [("insight", insight["id"]) for insight in recalled["insights"]]

    async def _docs(self, principal: Principal, vector: list[float], want: int) -> list[tuple[str, str]]:
        """Docs' candidates, exactly: agents' docs and notes that are project context (none
        for a scoped key, which sees its notes only)."""
        if principal.scope is not None:
            return []
        rows = await self._db.read_listed(
            "queries/project/unified_docs", userId=principal.user_id, vector=vector, limit=want,
            validAt=millis_now(),
        )  # fmt: skip
        return [("agentDoc" if row["what"] == "agentDoc" else "note", row["id"]) for row in rows]


async def _nothing() -> list[tuple[str, str]]:
    return []


def _layer(row: dict[str, Any]) -> Layer:
    if row["what"] == "insight":
        return Layer.MEMORY
    return Layer.DOCS if row["project"] else Layer.KNOWLEDGE


def _item(row: dict[str, Any]) -> dict[str, Any]:
    item = {k: v for k, v in row["item"].items() if v is not None}
    for key in ("createdAt", "updatedAt", "extractedAt"):
        if key in item:
            item[key] = iso_millis(item[key])
    return item
