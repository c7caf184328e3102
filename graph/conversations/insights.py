"""Insights from conversations: extraction jobs, the feedback loop, consolidation, recall.

* **extract**: a thread's messages → insights (each linked to its message, with the
  extractor's name and an embedding), idempotent: re-extracting stores nothing twice.
* **feedback loop**: extract → keep confidence > 0.7 → for each, update the user's
  knowledge: an active note at or above the dedupe threshold is updated, otherwise a note is created
  (source ``conversation``); every note records the insights that fed it (DERIVED_FROM).
* **consolidate**: insights > 0.8 of a thread become permanent knowledge the same way;
  running it twice changes nothing the second time.
* **record**: insights found outside the service (an export read back) stored as
  extraction stores them (:mod:`graph.conversations.recorded_insights`).
* **recall**: the user's insights closest to a query, and their recent thread topics
  (:mod:`graph.conversations.insight_recall`, with listing and fetching by id).

Long work runs as a job (:mod:`graph.core.jobs`) whose status lives in Neo4j.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from graph.conversations.extractors import ExtractedInsight, Extractor, ThreadMessage
from graph.conversations.insight_recall import InsightReader
from graph.conversations.models import InsightType, RecordedInsight, insight_key
from graph.conversations.recorded_insights import InsightRecorder
from graph.conversations.threads import require_thread
from graph.core import journal
from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.errors import InvalidInput
from graph.core.gate import Gated, WriteGate
from graph.core.jobs import Jobs
from graph.core.principals import Principal
from graph.core.scopes import require_unscoped
from graph.core.tenancy import tenant_key
from graph.core.values import sortable_id
from graph.core.vectors import VectorPlanConfig
from graph.knowledge.models import CreateResult, KnowledgeSource, KnowledgeType, NewNote
from graph.knowledge.notes import NoteService
from graph.knowledge.search import FACTS_FROM_THREAD, TERM_LIMIT
from graph.knowledge.valid_time import said_validity

JOB_KINDS = ("extract", "feedback-loop")
_KNOWLEDGE_TYPE = {
    InsightType.PREFERENCE: KnowledgeType.FACT,
    InsightType.FACT: KnowledgeType.FACT,
    InsightType.DECISION: KnowledgeType.DECISION,
    InsightType.QUESTION: KnowledgeType.CONCEPT,
}


def thread_source_ref(thread_id: str) -> str:
    """The ``sourceRef`` of a note made from a thread's insights."""
    return f"{FACTS_FROM_THREAD}{thread_id}"


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
        self._recorder = InsightRecorder(db, self._gate, embedder)
        self._reader = InsightReader(db, embedder, plan=plan or VectorPlanConfig(), term_limit=term_limit)

    # --- jobs ------------------------------------------------------------------------------------
    async def start_job(self, principal: Principal, thread_id: str, kind: str) -> str:
        """Queue extraction or the feedback loop for a thread; returns the job id."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
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
        messages = await self._db.read_listed(
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
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
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
            result = await gated.run_listed(
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

    async def feedback_loop(
        self, principal: Principal, thread_id: str, memo: dict[str, Any] | None = None
    ) -> dict[str, int]:
        """Extract → keep confidence > 0.7 → update-or-create knowledge for each.

        An insight becomes knowledge once: a re-run leaves alone the notes it made before,
        so it neither overwrites a person's edit of one nor brings back one a person deleted.
        """
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
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
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
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
        # True from when it was said, unless the words say otherwise (read once per insight).
        validity = [said_validity(r["content"], r.get("saidAt")) for r in insights]
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
                valid_from=valid_from,
                valid_until=valid_until,
            )
            for r, (valid_from, valid_until) in zip(insights, validity, strict=True)
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

    # --- recording and reading ---------------------------------------------------------------------
    async def record(
        self, principal: Principal, thread_id: str, insights: list[RecordedInsight]
    ) -> list[tuple[dict[str, Any], bool]]:
        """Record insights found outside the service into a thread, each with whether it is new
        (:meth:`InsightRecorder.record <graph.conversations.recorded_insights.InsightRecorder.record>`)."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        return await self._recorder.record(principal, thread_id, insights)

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
        return await self._reader.list_insights(
            principal, thread_id=thread_id, insight_type=insight_type, limit=limit, cursor=cursor
        )

    async def by_ids(self, principal: Principal, ids: list[str]) -> dict[str, dict[str, Any]]:
        """The user's insights among ``ids``, by id (others' and unknown ones are absent)."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        return await self._reader.by_ids(principal, ids)

    async def recall(
        self,
        principal: Principal,
        query: str,
        *,
        limit: int = 10,
        topics: int = 5,
        vector: list[float] | None = None,
    ) -> dict[str, Any]:
        """The insights most relevant to ``query`` and the most recent thread topics
        (:meth:`InsightReader.recall <graph.conversations.insight_recall.InsightReader.recall>`);
        a scoped key asks for memory outside any scope (403)."""
        require_unscoped(principal, "conversation memory (threads, messages, insights)")
        return await self._reader.recall(principal, query, limit=limit, topics=topics, vector=vector)

    async def recall_within_scope(
        self, principal: Principal, query: str, *, limit: int, vector: list[float] | None = None
    ) -> dict[str, Any]:
        """Recall as one part of a larger answer (the bridge, a brief, unified search): for a
        scoped key, its part of conversation memory, which is none; for an unscoped key,
        :meth:`recall` without topics."""
        if principal.scope is not None:
            return {"insights": [], "recentTopics": []}
        return await self._reader.recall(principal, query, limit=limit, topics=0, vector=vector)


def _title(content: str, words: int = 10) -> str:
    parts = content.split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")
