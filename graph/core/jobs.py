"""Background jobs whose status lives in Neo4j, so any replica can report on them.

A job is queued (202 + ``jobId``), runs in this process as an asyncio task, and ends
``done`` with counts or ``failed`` with the reason; it never ends unseen:

* **A lease.** While a process holds a job (queued behind others, or running) it renews
  the job's lease every ``lease / 3`` seconds. A job whose lease ran out belongs to a
  process that died or hung: anyone may fail it (reading it, starting another job on the
  same thread, or a process starting up), within one lease of the death, not an hour.
* **One at a time per thread, or per user.** Starting a job of a kind that already has a
  live job on the same thread (a job without a thread, such as maintenance: of the same
  user) returns that job instead of a second one, under the user's write gate, so two
  simultaneous starts agree; one started with other ``params`` is a 409 naming it. So a
  user queues at most one job of each maintenance task, however often they ask.
* **Bounded and fair.** At most ``max_in_flight`` jobs run at once in a process
  (:class:`FairSlots`); one user runs at most ``max_in_flight - 1`` of them, so another
  user's job always finds a slot, and a freed slot goes to the waiting user who runs
  fewest. The rest wait queued (their leases renewed).
* **Fenced.** A job's writes go through the write gate with the job's lease
  (:mod:`graph.core.lease`): once the lease ran out (the process stalled longer than it)
  or someone failed the job, no further write of that run commits, and renewing stops.
* **Retried, not repeated.** The work must be idempotent: a job that meets a database
  fault (a deadlock on a hot note, a short outage the driver's own retries did not
  outlast) runs it again, up to :data:`JOB_ATTEMPTS` times, with the same ``memo``, where
  a step keeps what it must not redo (an LLM's answer: asked again, it would paraphrase).
* **Shutdown** waits ``shutdown_grace`` seconds for running jobs, then cancels them and
  marks them failed with the reason, instead of waiting on an LLM for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tenacity import (
    AsyncRetrying,
    before_sleep_log,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from graph.core import lease
from graph.core.db import Database
from graph.core.errors import Conflict, ContextNetworkError, DatabaseUnavailable, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.lease import JobLease, JobLost
from graph.core.principals import Principal
from graph.core.scopes import require_unscoped
from graph.core.values import plain, sortable_id

log = logging.getLogger(__name__)

JOB_ATTEMPTS = 4


@dataclass(frozen=True)
class JobResult:
    """What a job's work may return instead of bare counts: the counts and a detailed report
    (JSON, kept bounded by the work; ``GET /v1/jobs/{id}`` shows it as ``report``)."""

    counts: dict[str, int]
    report: dict[str, Any] | None = None


#: A job's work: given its memo (kept across retries), returns the counts it reports (or a
#: :class:`JobResult` with a report beside them).
JobWork = Callable[[dict[str, Any]], Awaitable[dict[str, int] | JobResult]]


__all__ = ["JobLost", "JobResult", "Jobs", "FairSlots", "run_attempts"]


class FairSlots:
    """The slots jobs run in, shared fairly by users: at most ``size`` at once, at most
    ``size - 1`` of them one user's (so one user's pile of jobs never holds every slot), and
    a freed slot goes to the waiting user who holds fewest (first come among equals)."""

    def __init__(self, size: int) -> None:
        self._size = max(1, size)
        self._per_user = max(1, self._size - 1)
        self._running: Counter[str] = Counter()
        self._waiting: list[tuple[str, asyncio.Future[None]]] = []

    def running(self, user_id: str) -> int:
        """How many slots ``user_id`` holds now."""
        return self._running[user_id]

    @contextlib.asynccontextmanager
    async def slot(self, user_id: str) -> AsyncIterator[None]:
        """Hold one slot for ``user_id`` while the block runs (waiting for one first)."""
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((user_id, granted))
        self._grant()
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():
                self._release(user_id)  # granted as it was cancelled: give the slot back
            else:
                self._waiting = [w for w in self._waiting if w[1] is not granted]
            raise
        try:
            yield
        finally:
            self._release(user_id)

    def _release(self, user_id: str) -> None:
        self._running[user_id] -= 1
        if self._running[user_id] <= 0:
            del self._running[user_id]
        self._grant()

    def _grant(self) -> None:
        while self._waiting and sum(self._running.values()) < self._size:
            eligible = [
                (self._running[user], order, user, future)
                for order, (user, future) in enumerate(self._waiting)
                if self._running[user] < self._per_user
            ]
            if not eligible:
                return
            _, order, user, future = min(eligible, key=lambda e: (e[0], e[1]))
            del self._waiting[order]
            if future.cancelled():
                continue
            self._running[user] += 1
            future.set_result(None)


class Jobs:
    """Start, run, renew and report the background jobs of this process."""

    def __init__(
        self,
        db: Database,
        *,
        lease_seconds: float = 30.0,
        max_in_flight: int = 4,
        shutdown_grace_seconds: float = 10.0,
    ) -> None:
        self._db = db
        self._gate = WriteGate(db)
        self._lease = lease_seconds
        self._slots = FairSlots(max_in_flight)
        self._grace = shutdown_grace_seconds
        #: Marks this process's leases, so a renewal never revives a job someone else failed.
        self._owner = secrets.token_hex(8)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._lost: set[str] = set()

    async def start(
        self,
        principal: Principal,
        kind: str,
        work: JobWork,
        *,
        thread_id: str | None,
        params: str | None = None,
    ) -> str:
        """Queue ``work`` as a job of the principal's user; returns the job id, or the id of
        the live job of this kind already queued or running on the thread (without a thread:
        for the user). A live job of this kind started with other ``params`` (how the work
        was asked for, e.g. a dry run) is a :class:`Conflict` naming it."""
        require_unscoped(principal, "jobs (extraction and maintenance)")
        job_id = sortable_id()

        async def create(gated: Gated) -> dict[str, Any]:
            [row] = await gated.run(
                "queries/core/job_create",
                id=job_id,
                kind=kind,
                threadId=thread_id,
                params=params,
                owner=self._owner,
                leaseSeconds=self._lease,
            )
            return row

        row = await self._gate.write(principal.user_id, create)
        if row["id"] != job_id:  # one live job per kind and thread (or user): this is it
            if row["params"] != params:
                raise Conflict(
                    f"a {kind} job is already queued or running with other options "
                    f"(job {row['id']}); start this one once it has ended",
                    field="task",
                )
            return str(row["id"])
        task = asyncio.create_task(self._run(job_id, principal.user_id, work))
        self._tasks[job_id] = task
        task.add_done_callback(lambda _: self._forget(job_id))
        return job_id

    def _forget(self, job_id: str) -> None:
        self._tasks.pop(job_id, None)
        self._lost.discard(job_id)

    async def _run(self, job_id: str, user_id: str, work: JobWork) -> None:
        renewal = asyncio.create_task(self._renew(job_id))
        # Every gated write of the work (and of tasks it starts) checks this lease first.
        lease.HELD.set(JobLease(job_id, self._owner))
        try:
            async with self._slots.slot(user_id):
                await self._set(job_id, "running")
                result = await run_attempts(work)
        except JobLost:
            self._lost.add(job_id)
            log.warning(
                "job %s lost its lease (failed elsewhere, or it ran out); its work is dropped", job_id
            )
            await self._finish_quietly(
                job_id,
                "failed",
                error="this job's lease ran out while it ran (the process stalled); start it again",
            )
        except asyncio.CancelledError:
            if job_id in self._lost:
                log.warning("job %s was failed elsewhere (its lease ran out); its work is dropped", job_id)
                return
            await self._finish_quietly(
                job_id, "failed", error="the service stopped while this job ran; start it again"
            )
            raise
        except ContextNetworkError as exc:
            await self._finish_quietly(job_id, "failed", error=exc.message)
        except Exception as exc:  # a job must end in a state the client can see
            log.exception("job %s failed", job_id)
            await self._finish_quietly(job_id, "failed", error=f"internal error: {type(exc).__name__}")
        else:
            done = result if isinstance(result, JobResult) else JobResult(result)
            await self._finish_quietly(job_id, "done", counts=done.counts, report=done.report)
        finally:
            renewal.cancel()

    async def _renew(self, job_id: str) -> None:
        """Renew the lease until cancelled; if the job was taken from us, cancel its run."""
        while True:
            await asyncio.sleep(self._lease / 3)
            try:
                rows = await self._db.write(
                    "queries/core/job_renew", id=job_id, owner=self._owner, leaseSeconds=self._lease
                )
            except DatabaseUnavailable:
                continue  # the lease outlives a short outage; the next renewal tries again
            if not rows:
                self._lost.add(job_id)
                task = self._tasks.get(job_id)
                if task is not None:
                    task.cancel()
                return

    async def _update(
        self,
        job_id: str,
        status: str,
        counts: dict[str, int] | None = None,
        error: str | None = None,
        report: dict[str, Any] | None = None,
    ) -> bool:
        """Move the job on while this process holds it; False when it no longer does."""
        rows = await self._db.write(
            "queries/core/job_update",
            id=job_id,
            owner=self._owner,
            status=status,
            counts=json.dumps(counts) if counts is not None else None,
            error=error,
            report=json.dumps(report, sort_keys=True) if report is not None else None,
            leaseSeconds=self._lease,
        )
        return bool(rows)

    async def _set(self, job_id: str, status: str) -> None:
        if not await self._update(job_id, status):
            self._lost.add(job_id)
            raise JobLost(job_id)

    async def _finish_quietly(
        self,
        job_id: str,
        status: str,
        *,
        counts: dict[str, int] | None = None,
        error: str | None = None,
        report: dict[str, Any] | None = None,
    ) -> None:
        """Record the end; if Neo4j is away, the lease runs out and the job is failed later."""
        try:
            await self._update(job_id, status, counts, error, report)
        except DatabaseUnavailable as exc:
            log.warning("could not record the end of job %s: %s", job_id, exc.message)

    async def get(self, principal: Principal, job_id: str) -> dict[str, Any]:
        """A job's status, counts when done, reason when failed (a job whose lease ran out is
        failed first)."""
        require_unscoped(principal, "jobs (extraction and maintenance)")
        rows = await self._db.read("queries/core/job_get", userId=principal.user_id, id=job_id)
        if not rows:
            raise NotFound(f"no job {job_id!r}", field="id")
        if rows[0]["expired"]:
            await self.fail_expired()
            rows = await self._db.read("queries/core/job_get", userId=principal.user_id, id=job_id)
        job: dict[str, Any] = plain({k: v for k, v in rows[0]["job"].items() if v is not None})
        for key in ("counts", "report"):
            if key in job:
                job[key] = json.loads(job[key])
        return job

    async def wait_idle(self) -> None:
        """Wait for this process's jobs; after the grace period, cancel what still runs (shutdown)."""
        tasks = list(self._tasks.values())
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=self._grace)
        for task in pending:
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*pending, return_exceptions=True)

    async def states(self) -> dict[str, int]:
        """How many jobs of all users are in each state (``queued``, ``running``, ``done``,
        ``failed``, and ``expired``: queued or running with a lease that ran out)."""
        rows = await self._db.read("queries/core/job_states")
        counts = {row["state"]: int(row["jobs"]) for row in rows}
        counts["expired"] = sum(int(row["expired"]) for row in rows)
        return counts

    async def fail_expired(self) -> int:
        """Fail every job whose lease ran out (its process died or hung)."""
        rows = await self._db.write("queries/core/job_fail_expired")
        return int(rows[0]["failed"]) if rows else 0


async def run_attempts(
    work: JobWork, attempts: int = JOB_ATTEMPTS, max_wait: float = 10.0
) -> dict[str, int] | JobResult:
    """Run ``work`` until it succeeds, again after each database fault (up to ``attempts``
    times, jittered backoff), every time with the same memo."""
    memo: dict[str, Any] = {}
    retrying = AsyncRetrying(
        retry=retry_if_exception_type(DatabaseUnavailable),
        stop=stop_after_attempt(attempts),
        wait=wait_random_exponential(multiplier=1, max=max_wait),
        before_sleep=before_sleep_log(log, logging.WARNING),
        reraise=True,
    )
    async for attempt in retrying:
        with attempt:
            return await work(memo)
    raise AssertionError("unreachable: tenacity re-raises the last error")  # pragma: no cover
