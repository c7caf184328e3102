"""Insights from conversations: extraction jobs, the feedback loop, consolidation, recall.

* **extract**: a thread's messages → insights (each linked to its message, with the
  extractor's name and an embedding), idempotent: re-extracting stores nothing twice.
* **feedback loop**: extract → keep confidence > 0.7 → for each, update the user's
  knowledge: an active note with cosine ≥ 0.95 is updated, otherwise a note is created
  (source ``conversation``); every note records the insights that fed it (DERIVED_FROM).
* **consolidate**: insights > 0.8 of a thread become permanent knowledge the same way;
  running it twice changes nothing the second time.
* **recall**: the user's insights closest to a query, and their recent thread topics.

Long work runs as a job whose status lives in Neo4j (any replica can report it).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction
from tenacity import (
    AsyncRetrying,
    before_sleep_log,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from graph.conversations import require_thread
from graph.db import Database, run_rows
from graph.embeddings import Embedder
from graph.errors import ContextNetworkError, DatabaseUnavailable, InvalidInput, NotFound
from graph.extractors import ExtractedInsight, Extractor, InsightType, ThreadMessage
from graph.knowledge import KnowledgeService, plain
from graph.models import CreateResult, KnowledgeSource, KnowledgeType, NewNote
from graph.principals import Principal
from graph.search import VectorPlanConfig, cosine_from_score
from graph.settings import Settings

log = logging.getLogger(__name__)

JOB_KINDS = ("extract", "feedback-loop")
JOB_ATTEMPTS = 4
_KNOWLEDGE_TYPE = {
    InsightType.PREFERENCE: KnowledgeType.FACT,
    InsightType.FACT: KnowledgeType.FACT,
    InsightType.DECISION: KnowledgeType.DECISION,
    InsightType.QUESTION: KnowledgeType.CONCEPT,
}


def sortable_id() -> str:
    """Ids that sort by creation time (newest-first listings page by id)."""
    return f"{int(time.time() * 1000):013d}{secrets.token_hex(6)}"


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
        knowledge: KnowledgeService,
        *,
        thresholds: Thresholds | None = None,
        plan: VectorPlanConfig | None = None,
    ) -> None:
        self._db = db
        self._embedder = embedder
        self._extractor = extractor
        self._knowledge = knowledge
        self._thresholds = thresholds or Thresholds()
        self._plan = plan or VectorPlanConfig()
        self._tasks: set[asyncio.Task[None]] = set()

    @classmethod
    def from_settings(
        cls,
        db: Database,
        embedder: Embedder,
        extractor: Extractor,
        knowledge: KnowledgeService,
        settings: Settings,
    ) -> InsightService:
        """The service as the settings configure it (API and CLI alike)."""
        return cls(
            db,
            embedder,
            extractor,
            knowledge,
            thresholds=Thresholds(settings.insight_valid_above, settings.insight_consolidate_above),
            plan=VectorPlanConfig.from_settings(settings),
        )

    @property
    def extractor_name(self) -> str:
        """The extractor in use."""
        return self._extractor.name

    # --- jobs ------------------------------------------------------------------------------------
    async def start_job(self, principal: Principal, thread_id: str, kind: str) -> str:
        """Queue extraction or the feedback loop for a thread; returns the job id."""
        if kind not in JOB_KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(JOB_KINDS)}", field="kind")
        await require_thread(self._db, principal.user_id, thread_id)  # 404 now, not a failed job later
        job_id = sortable_id()
        await self._db.write(
            "queries/job_create", id=job_id, userId=principal.user_id, kind=kind, threadId=thread_id
        )
        task = asyncio.create_task(self._run(principal, job_id, kind, thread_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job_id

    async def _run(self, principal: Principal, job_id: str, kind: str, thread_id: str) -> None:
        await self._set(job_id, "running")
        step = self.extract if kind == "extract" else self.feedback_loop
        # Both steps are idempotent, so a job outlasts deadlocks on hot notes (many insights
        # folding into one note at once) and short outages that the driver's own retries don't.
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(DatabaseUnavailable),
            stop=stop_after_attempt(JOB_ATTEMPTS),
            wait=wait_random_exponential(multiplier=1, max=10),
            before_sleep=before_sleep_log(log, logging.WARNING),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    counts = await step(principal, thread_id)
        except ContextNetworkError as exc:
            await self._set(job_id, "failed", error=exc.message)
            return
        except Exception as exc:  # a job must end in a state the client can see
            log.exception("job %s failed", job_id)
            await self._set(job_id, "failed", error=f"internal error: {type(exc).__name__}")
            return
        await self._set(job_id, "done", counts=counts)

    async def _set(
        self, job_id: str, status: str, *, counts: dict[str, int] | None = None, error: str | None = None
    ) -> None:
        await self._db.write(
            "queries/job_update",
            id=job_id,
            status=status,
            counts=json.dumps(counts) if counts is not None else None,
            error=error,
        )

    async def job(self, principal: Principal, job_id: str) -> dict[str, Any]:
        """A job's status, counts when done, reason when failed."""
        rows = await self._db.read("queries/job_get", userId=principal.user_id, id=job_id)
        if not rows:
            raise NotFound(f"no job {job_id!r}", field="id")
        job: dict[str, Any] = plain({k: v for k, v in rows[0]["job"].items() if v is not None})
        if "counts" in job:
            job["counts"] = json.loads(job["counts"])
        return job

    async def wait_idle(self) -> None:
        """Wait for this process's running jobs (shutdown, tests)."""
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def fail_stale_jobs(self, stale_seconds: float = 3600) -> int:
        """Jobs left queued/running by a process that died are marked failed."""
        rows = await self._db.write("queries/job_requeue_stale", staleSeconds=int(stale_seconds))
        return int(rows[0]["failed"]) if rows else 0

    # --- the pipeline ------------------------------------------------------------------------------
    async def _messages(self, principal: Principal, thread_id: str) -> list[ThreadMessage]:
        await require_thread(self._db, principal.user_id, thread_id)
        messages = await self._db.read(
            "queries/thread_messages_all", userId=principal.user_id, threadId=thread_id
        )
        return [ThreadMessage(r["id"], r["role"], r["content"]) for r in messages]

    async def extract(self, principal: Principal, thread_id: str) -> dict[str, int]:
        """Extract and store a thread's insights; counts of messages, extracted and new insights."""
        messages = await self._messages(principal, thread_id)
        found = await self._extractor.extract(messages) if messages else []
        stored = await self._store(principal, thread_id, found)
        return {"messages": len(messages), "extracted": len(found), "stored": stored}

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
        result = await self._db.write(
            "queries/insights_store",
            rows=rows,
            userId=principal.user_id,
            threadId=thread_id,
            extractor=self._extractor.name,
            embeddingModel=self._embedder.model_id,
        )
        return sum(1 for r in result if r["created"])

    async def feedback_loop(self, principal: Principal, thread_id: str) -> dict[str, int]:
        """Extract → keep confidence > 0.7 → update-or-create knowledge for each."""
        extracted = await self.extract(principal, thread_id)
        valid = await self._db.read(
            "queries/insights_of_thread",
            userId=principal.user_id,
            threadId=thread_id,
            minConfidence=self._thresholds.valid_above,
        )
        created, updated = await self._to_knowledge(principal, valid)
        return {
            "extracted": extracted["extracted"],
            "valid": len(valid),
            "created": created,
            "updated": updated,
        }

    async def consolidate(self, principal: Principal, thread_id: str) -> dict[str, int]:
        """Insights > 0.8 not yet in knowledge become knowledge; a second run does nothing."""
        await require_thread(self._db, principal.user_id, thread_id)
        rows = await self._db.read(
            "queries/insights_of_thread",
            userId=principal.user_id,
            threadId=thread_id,
            minConfidence=self._thresholds.consolidate_above,
        )
        pending = [r for r in rows if not r["consolidated"]]
        created, updated = await self._to_knowledge(principal, pending)
        return {"consolidated": len(pending), "created": created, "updated": updated}

    async def _to_knowledge(self, principal: Principal, insights: list[dict[str, Any]]) -> tuple[int, int]:
        """Each insight updates its twin note (cosine ≥ threshold) or makes a new one, with provenance."""
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
            )
            for r in insights
        ]
        user = principal.user_id

        async def link(tx: AsyncManagedTransaction, results: list[CreateResult]) -> None:
            rows = [
                {"knowledgeId": res.node["id"], "insightId": r["id"], "updated": res.merged_into is not None}
                for r, res in zip(insights, results, strict=True)
            ]
            await run_rows(tx, "queries/knowledge_derive", rows=rows, userId=user)

        results = await self._knowledge.create(principal, notes, batch=True, then=link)
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
            "queries/insights_list",
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

    async def recall(
        self, principal: Principal, query: str, *, limit: int = 10, topics: int = 5
    ) -> dict[str, Any]:
        """The insights most relevant to ``query`` (any thread) and the most recent thread topics."""
        [vector] = await self._embedder.embed([query])
        user = principal.user_id

        async def work(tx: AsyncManagedTransaction) -> dict[str, Any]:
            [counts] = await run_rows(tx, "queries/insights_counts", userId=user)
            mine, total = int(counts["mine"]), int(counts["total"])
            hits: list[dict[str, Any]] = []
            if mine:
                candidates = self._plan.index_candidates(limit, mine, total)
                done = False
                if candidates is not None:
                    [row] = await run_rows(
                        tx,
                        "queries/insights_recall_index",
                        userId=user,
                        vector=vector,
                        candidates=candidates,
                        limit=limit,
                    )
                    if row["matched"] >= limit:
                        hits, done = row["hits"], True
                if not done:
                    hits = await run_rows(
                        tx, "queries/insights_recall_exact", userId=user, vector=vector, limit=limit
                    )
            recent = await run_rows(tx, "queries/threads_recent_topics", userId=user, limit=topics)
            return {
                "insights": [{**h["insight"], "score": cosine_from_score(h["score"])} for h in hits],
                "recentTopics": [plain(r) for r in recent],
            }

        return await self._db.read_tx(work)


def _title(content: str, words: int = 10) -> str:
    parts = content.split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")
