"""Background jobs whose status lives in Neo4j, so any replica can report on them.

A job is queued (202 + ``jobId``), runs in this process as an asyncio task, and ends
``done`` with counts or ``failed`` with the reason; it never ends unseen. The work must be
idempotent: a job that meets a database fault (a deadlock on a hot note, a short outage
the driver's own retries did not outlast) runs it again, up to :data:`JOB_ATTEMPTS` times.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from tenacity import (
    AsyncRetrying,
    before_sleep_log,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from graph.core.db import Database
from graph.core.errors import ContextNetworkError, DatabaseUnavailable, NotFound
from graph.core.principals import Principal
from graph.core.values import plain, sortable_id

log = logging.getLogger(__name__)

JOB_ATTEMPTS = 4

#: A job's work: returns the counts the finished job reports.
JobWork = Callable[[], Awaitable[dict[str, int]]]


class Jobs:
    """Start, run and report the background jobs of this process."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self, principal: Principal, kind: str, work: JobWork, *, thread_id: str | None) -> str:
        """Queue ``work`` as a job of the principal's user; returns the job id."""
        job_id = sortable_id()
        await self._db.write(
            "queries/core/job_create", id=job_id, userId=principal.user_id, kind=kind, threadId=thread_id
        )
        task = asyncio.create_task(self._run(job_id, work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job_id

    async def _run(self, job_id: str, work: JobWork) -> None:
        await self._set(job_id, "running")
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
                    counts = await work()
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
            "queries/core/job_update",
            id=job_id,
            status=status,
            counts=json.dumps(counts) if counts is not None else None,
            error=error,
        )

    async def get(self, principal: Principal, job_id: str) -> dict[str, Any]:
        """A job's status, counts when done, reason when failed."""
        rows = await self._db.read("queries/core/job_get", userId=principal.user_id, id=job_id)
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

    async def fail_stale(self, stale_seconds: float = 3600) -> int:
        """Jobs left queued/running by a process that died are marked failed."""
        rows = await self._db.write("queries/core/job_requeue_stale", staleSeconds=int(stale_seconds))
        return int(rows[0]["failed"]) if rows else 0
