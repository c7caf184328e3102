"""Insights from conversations: extraction jobs, the feedback loop, consolidation, recall.

* **extract**: a thread's messages → insights (each linked to its message, with the
  extractor's name and an embedding), idempotent: re-extracting stores nothing twice.
* **feedback loop**: extract → keep confidence > 0.7 → for each, update the user's
  knowledge: an active note at or above the dedupe threshold is updated, otherwise a note is created
  (source ``conversation``); every note records the insights that fed it (DERIVED_FROM).
* **consolidate**: insights > 0.8 of a thread become permanent knowledge the same way;
  running it twice changes nothing the second time.
* **recall**: the user's insights closest to a query, and their recent thread topics.

Long work runs as a job (:mod:`graph.core.jobs`) whose status lives in Neo4j.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.conversations.extractors import ExtractedInsight, Extractor, ThreadMessage
from graph.conversations.models import InsightType, RecordedInsight
from graph.conversations.threads import require_thread
from graph.core import journal
from graph.core.db import Database, run_rows
from graph.core.embeddings import Embedder
from graph.core.errors import Conflict, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.jobs import Jobs
from graph.core.principals import Principal
from graph.core.tenancy import tenant_key
from graph.core.values import check_id, plain, sortable_id
from graph.core.vectors import VectorPlanConfig, check_vectors, cosine_from_score
from graph.knowledge.models import CreateResult, KnowledgeSource, KnowledgeType, NewNote
from graph.knowledge.notes import NoteService
from graph.knowledge.search import RRF_K, TERM_LIMIT, keyword_terms

JOB_KINDS = ("extract", "feedback-loop")
_KNOWLEDGE_TYPE = {
    InsightType.PREFERENCE: KnowledgeType.FACT,
    InsightType.FACT: KnowledgeType.FACT,
    InsightType.DECISION: KnowledgeType.DECISION,
    InsightType.QUESTION: KnowledgeType.CONCEPT,
}


def thread_source_ref(thread_id: str) -> str:
    """The ``sourceRef`` of a note made from a thread's insights."""
    return f"thread:{thread_id}"


def insight_key(message_id: str, insight_type: str, content: str) -> str:
    """What makes an insight the same insight: its message, type and (normalised) content."""
    normal = " ".join(content.lower().split())
    return hashlib.sha256(f"{message_id}\x1f{insight_type}\x1f{normal}".encode()).hexdigest()


@dataclass(frozen=True)
class Thresholds:
    """The seed's values by default."""

    valid_above: float = 0.7
    consolidate_above: float = 0.8


class InsightService:
    """Extraction, validation, consolidation and recall of a user's insights."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        extractor: Extractor,
        notes: NoteService,
        jobs: Jobs,
        *,
        thresholds: Thresholds | None = None,
        plan: VectorPlanConfig | None = None,
        term_limit: int = TERM_LIMIT,
    ) -> None:
        self._db = db
        self._embedder = embedder
        self._extractor = extractor
        self._notes = notes
        self._jobs = jobs
        self._gate = WriteGate(db)
        self._thresholds = thresholds or Thresholds()
        self._plan = plan or VectorPlanConfig()
        self._term_limit = term_limit

    # --- jobs ------------------------------------------------------------------------------------
    async def start_job(self, principal: Principal, thread_id: str, kind: str) -> str:
        """Queue extraction or the feedback loop for a thread; returns the job id."""
        if kind not in JOB_KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(JOB_KINDS)}", field="kind")
        await require_thread(self._db, principal.user_id, thread_id)  # 404 now, not a failed job later
        step: Callable[[Principal, str, dict[str, Any]], Awaitable[dict[str, int]]] = (
            self.extract if kind == "extract" else self.feedback_loop
        )
        return await self._jobs.start(
            principal, kind, lambda memo: step(principal, thread_id, memo), thread_id=thread_id
        )

    # --- the pipeline ------------------------------------------------------------------------------
    async def _messages(self, principal: Principal, thread_id: str) -> list[ThreadMessage]:
        await require_thread(self._db, principal.user_id, thread_id)
        messages = await self._db.read(
            "queries/conversations/thread_messages_all", userId=principal.user_id, threadId=thread_id
        )
        return [ThreadMessage(r["id"], r["role"], r["content"]) for r in messages]

    async def extract(
        self, principal: Principal, thread_id: str, memo: dict[str, Any] | None = None
    ) -> dict[str, int]:
        """Extract and store a thread's insights; counts of messages, extracted and new insights.

        ``memo`` (a job's, kept across its retries) holds the extractor's answer once given:
        a retry after a database fault stores that answer, and does not ask an LLM again
        (a second answer would paraphrase, and paraphrases are new insights).
        """
        messages = await self._messages(principal, thread_id)
        memo = {} if memo is None else memo
        if "extracted" not in memo:
            memo["extracted"] = (len(messages), await self._extractor.extract(messages) if messages else [])
        count, found = memo["extracted"]
        stored = await self._store(principal, thread_id, found)
        return {"messages": count, "extracted": len(found), "stored": stored}

    async def _store(self, principal: Principal, thread_id: str, found: list[ExtractedInsight]) -> int:
        if not found:
            return 0
        vectors = await self._embedder.embed([i.content for i in found])
        rows = [
            {
                "id": sortable_id(),
                "key": insight_key(i.message_id, i.type.value, i.content),
                "messageId": i.message_id,
                "type": i.type.value,
                "content": i.content,
                "confidence": i.confidence,
                "embedding": vector,
            }
            for i, vector in zip(found, vectors, strict=True)
        ]
        pipeline = principal.pipeline(f"extractor:{self._extractor.name}")

        async def work(gated: Gated) -> int:
            result = await gated.run(
                "queries/conversations/insights_store",
                rows=rows,
                threadId=thread_id,
                extractor=self._extractor.name,
                embeddingModel=self._embedder.model_id,
                tenantKey=tenant_key(principal.user_id),
            )
            new = {r["id"] for r in result if r["created"]}
            await journal.record_many(gated, pipeline, [
                journal.Change("insight.create", "Insight", str(row["id"]), None, {
                    "threadId": thread_id, "messageId": row["messageId"], "type": row["type"],
                    "content": row["content"], "confidence": row["confidence"],
                })
                for row in rows
                if row["id"] in new
            ])  # fmt: skip
            return len(new)

        return await self._gate.write(principal.user_id, work)

    async def record(
        self, principal: Principal, thread_id: str, insights: list[RecordedInsight]
    ) -> list[tuple[dict[str, Any], bool]]:
        """Record insights found outside the service into a thread, in one transaction: each
        keyed, linked and embedded as extraction stores them, keeping the id, extractor and
        time it was given (an export read back is the same insight again). An insight already
        there (same message, type and content) is returned unchanged; each with whether it is
        new. Journaled as ``insight.create`` (and ``insight.consolidate`` for each note linked).
        """
        thread_id = check_id(thread_id)
        if not insights:
            raise InvalidInput("send at least one insight", field="items")
        rows: list[dict[str, Any]] = []
        for n, item in enumerate(insights):
            check_id(item.message_id, f"items.{n}.messageId")
            for k, kid in enumerate(item.knowledge_ids):
                check_id(kid, f"items.{n}.knowledgeIds.{k}")
            if item.id is not None:
                check_id(item.id, f"items.{n}.id")
            rows.append({
                "id": item.id or sortable_id(),
                "key": insight_key(item.message_id, item.type.value, item.content),
                "messageId": item.message_id, "type": item.type.value, "content": item.content,
                "confidence": item.confidence, "extractor": item.extractor,
                "extractedAt": item.extracted_at.isoformat() if item.extracted_at else None,
                "knowledgeIds": list(dict.fromkeys(item.knowledge_ids)),
            })  # fmt: skip
        for field_name, what in (("id", "id"), ("key", "message, type and content")):
            first: dict[str, int] = {}
            for n, row in enumerate(rows):
                if row[field_name] in first:
                    raise InvalidInput(
                        f"items {first[row[field_name]]} and {n} have the same {what}",
                        field=f"items.{n}.{'id' if field_name == 'id' else 'content'}",
                    )
                first[row[field_name]] = n
        vectors = [i.embedding for i in insights]
        check_vectors(vectors, self._embedder.dimension, lambda n: f"items.{n}.embedding")
        for n, item in enumerate(insights):
            rows[n]["embedding"] = item.embedding
        asked = {
            "threadId": thread_id,
            "messageIds": [r["messageId"] for r in rows],
            "knowledgeIds": [k for r in rows for k in r["knowledgeIds"]],
            "ids": [r["id"] for r in rows],
            "keys": [r["key"] for r in rows],
        }
        # Slow work before the gate, not under it: the insights not stored yet are embedded
        # (one sent again is not embedded again); one deleted meanwhile is embedded under it.
        before = await self._db.read(
            "queries/conversations/insights_record_state", userId=principal.user_id, **asked
        )
        await self._embed(rows, {e["key"] for e in before[0]["byKey"]} if before else set())

        async def work(gated: Gated) -> list[tuple[dict[str, Any], bool]]:
            state = await gated.run("queries/conversations/insights_record_state", **asked)
            if not state:
                raise NotFound(f"no thread {thread_id!r}", field="id")
            found = state[0]
            await self._embed(rows, {e["key"] for e in found["byKey"]})
            messages, notes = set(found["messages"]), set(found["notes"])
            by_id = {e["id"]: e["key"] for e in found["byId"]}
            by_key = {e["key"]: e["id"] for e in found["byKey"]}
            for n, row in enumerate(rows):
                if row["messageId"] not in messages:
                    raise NotFound(f"no message {row['messageId']!r} in thread {thread_id!r}",
                                   field=f"items.{n}.messageId")  # fmt: skip
                for k, kid in enumerate(row["knowledgeIds"]):
                    if kid not in notes:
                        raise NotFound(f"no note {kid!r}", field=f"items.{n}.knowledgeIds.{k}")
                if row["id"] in by_id and by_id[row["id"]] != row["key"]:
                    raise Conflict(
                        f"insight {row['id']!r} already exists with another message, type or content",
                        field=f"items.{n}.id",
                    )
                if row["key"] in by_key and insights[n].id is not None and by_key[row["key"]] != row["id"]:
                    raise Conflict(
                        f"this insight already exists as {by_key[row['key']]!r}", field=f"items.{n}.id"
                    )
            result = await gated.run(
                "queries/conversations/insights_record",
                threadId=thread_id,
                rows=rows,
                embeddingModel=self._embedder.model_id,
                tenantKey=tenant_key(principal.user_id),
            )
            changes = []
            for row, stored in zip(rows, result, strict=True):
                if stored["created"]:
                    changes.append(journal.Change("insight.create", "Insight", str(stored["id"]), None, {
                        "threadId": thread_id, "messageId": row["messageId"], "type": row["type"],
                        "content": row["content"], "confidence": row["confidence"],
                        "extractor": row["extractor"],
                    }))  # fmt: skip
                changes += [
                    journal.Change(
                        "insight.consolidate",
                        "Insight",
                        str(stored["id"]),
                        None,
                        {"knowledgeId": kid, "updated": False},
                    )  # fmt: skip
                    for kid in stored["linked"]
                ]
            await journal.record_many(gated, principal, changes)
            ids = [str(r["id"]) for r in result]
            listed = await gated.run("queries/conversations/insights_by_ids", ids=ids)
            by = {r["insight"]["id"]: plain(r["insight"]) for r in listed}
            return [(by[i], bool(r["created"])) for i, r in zip(ids, result, strict=True)]

        return await self._gate.write(principal.user_id, work)

    async def _embed(self, rows: list[dict[str, Any]], stored: set[str]) -> None:
        """Vectors for the rows without one whose insight is not ``stored`` yet."""
        missing = [r for r in rows if r["embedding"] is None and r["key"] not in stored]
        if missing:
            vectors = await self._embedder.embed([r["content"] for r in missing])
            for row, vector in zip(missing, vectors, strict=True):
                row["embedding"] = vector

    async def feedback_loop(
        self, principal: Principal, thread_id: str, memo: dict[str, Any] | None = None
    ) -> dict[str, int]:
        """Extract → keep confidence > 0.7 → update-or-create knowledge for each.

        An insight becomes knowledge once: a re-run leaves alone the notes it made before,
        so it neither overwrites a person's edit of one nor brings back one a person deleted.
        """
        extracted = await self.extract(principal, thread_id, memo)
        valid = await self._db.read(
            "queries/conversations/insights_of_thread",
            userId=principal.user_id,
            threadId=thread_id,
            minConfidence=self._thresholds.valid_above,
        )
        pending = [r for r in valid if not r["consolidated"]]
        created, updated = await self._to_knowledge(principal, pending, thread_id)
        return {
            "extracted": extracted["extracted"],
            "valid": len(valid),
            "created": created,
            "updated": updated,
            "unchanged": len(valid) - len(pending),
        }

    async def consolidate(self, principal: Principal, thread_id: str) -> dict[str, int]:
        """Insights > 0.8 not yet in knowledge become knowledge; a second run does nothing."""
        await require_thread(self._db, principal.user_id, thread_id)
        rows = await self._db.read(
            "queries/conversations/insights_of_thread",
            userId=principal.user_id,
            threadId=thread_id,
            minConfidence=self._thresholds.consolidate_above,
        )
        pending = [r for r in rows if not r["consolidated"]]
        created, updated = await self._to_knowledge(principal, pending, thread_id)
        return {"consolidated": len(pending), "created": created, "updated": updated}

    async def _to_knowledge(
        self, principal: Principal, insights: list[dict[str, Any]], thread_id: str
    ) -> tuple[int, int]:
        """Each insight updates its twin note (cosine ≥ threshold) or makes a new one, with
        provenance: ``DERIVED_FROM`` the insight, and the thread as the note's ``sourceRef``."""
        if not insights:
            return 0, 0
        # Embedded as notes are (title + content), so twins are compared like for like.
        notes = [
            NewNote(
                id=f"ins-{r['id']}",
                title=_title(r["content"]),
                content=r["content"],
                type=_KNOWLEDGE_TYPE[InsightType(r["type"])],
                source=KnowledgeSource.CONVERSATION,
                confidence=float(r["confidence"]),
                tags=(r["type"],),
                source_ref=thread_source_ref(thread_id),
            )
            for r in insights
        ]

        async def link(gated: Gated, results: list[CreateResult]) -> None:
            rows = [  # an insight held back by a person's correction stays unconsolidated
                {"knowledgeId": res.node["id"], "insightId": r["id"], "updated": res.merged_into is not None}
                for r, res in zip(insights, results, strict=True)
                if res.node is not None
            ]
            await gated.run("queries/conversations/insights_derive_knowledge", rows=rows)
            await journal.record_many(gated, pipeline, [
                journal.Change("insight.consolidate", "Insight", row["insightId"], None, {
                    "knowledgeId": row["knowledgeId"], "updated": row["updated"],
                })
                for row in rows
            ])  # fmt: skip

        pipeline = principal.pipeline(f"extractor:{self._extractor.name}")
        results = await self._notes.create(
            pipeline,
            notes,
            batch=True,
            then=link,
            keep_existing=True,
        )
        created = sum(1 for r in results if r.created)
        updated = sum(1 for r in results if r.merged_into is not None)
        return created, updated

    # --- reading -------------------------------------------------------------------------------------
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
        rows = await self._db.read(
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
                    )
                    if row["matched"] >= limit:
                        hits, done = row["hits"], True
                if not done:
                    hits = await run_rows(
                        tx,
                        "queries/conversations/insights_recall_exact",
                        userId=user,
                        vector=vector,
                        limit=limit,
                    )
            terms = keyword_terms(query, user, fields=("content",)) if mine else []
            worded = (
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
                )
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


def _title(content: str, words: int = 10) -> str:
    parts = content.split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")
