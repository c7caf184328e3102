"""Maintenance of a user's memory: consolidate insights, validate connections, archive
superseded decisions; run as jobs (``POST /v1/maintenance/{task}``), directly (``ctxnet
maintenance``) or on a schedule (:class:`MaintenanceSchedule`, off by default).

Each task reports what it found and what it changed (counts, and a report of ids with at
most :data:`REPORT_LIMIT` items per list), changes only what it must (a second run changes
nothing), and has a dry run that reports without changing: a dry run reads in a read
transaction, where Neo4j refuses any write. Every change goes through the user's write gate
and is journaled in the same transaction, under the operation names of the services that
make such changes elsewhere (``edge.disconnect``, ``note.status``, ``note.update``), so the
journal, undo and catch-up see them like any other. A change by a non-human caller (an
agent, the schedule, the CLI) that a person's correction holds (a note's status) is left
alone and reported as held back. Everything is scoped to the caller's user.

* **consolidate**: every thread of the user with insights above the consolidation
  threshold not yet in knowledge goes through the thread's own consolidation
  (:meth:`~graph.conversations.insights.InsightService.consolidate`).
* **validate-connections**: removes typed edges whose other end is not a note of the user
  (``dangling``) or is another user's note (``acrossUsers``), breaks each loop of
  supersedes edges at its newest edge (statuses put right as removing the edge through the
  API would), and reports conflicts between two superseded notes and notes superseded only
  by archived ones (a person decides those). Its checks and repairs live in
  :mod:`graph.project.maintenance_connections`.
* **archive-superseded**: architecture decisions superseded more than N days ago become
  ``archived`` (journaled as ``note.update`` of the status, which an undo puts back).
* **judge**: with a chat model configured, what the offline rules left unsure since the
  user's judge watermark (note pairs the update rule left undecided, threads a new decision's
  notice nearly reached) is put to the model and its answers applied
  (:mod:`graph.project.judge_job`, which also runs it after creates); without one, only its
  dry run runs.

``docs/maintenance.md`` shows each with real output.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from neo4j import AsyncManagedTransaction

from ctxnet.wire.maintenance import MAX_OLDER_THAN_DAYS
from graph.conversations.insights import InsightService
from graph.core import journal
from graph.core.db import Database
from graph.core.errors import Conflict, ContextNetworkError, InvalidInput, NotFound
from graph.core.gate import Gated, WriteGate
from graph.core.jobs import JobResult, Jobs
from graph.core.principals import Principal, Role
from graph.core.scopes import require_unscoped
from graph.core.settings import Settings
from graph.core.values import iso_millis
from graph.knowledge import corrections
from graph.knowledge.models import KnowledgeStatus
from graph.project.judge_job import JUDGE, Judge
from graph.project.maintenance_connections import validate

log = logging.getLogger(__name__)
T = TypeVar("T")

CONSOLIDATE = "consolidate"
VALIDATE_CONNECTIONS = "validate-connections"
ARCHIVE_SUPERSEDED = "archive-superseded"
#: The maintenance tasks, by their names in the API and the CLI.
TASKS = (CONSOLIDATE, VALIDATE_CONNECTIONS, ARCHIVE_SUPERSEDED, JUDGE)
#: Most items each list of a report holds (its counts are the full numbers).
REPORT_LIMIT = 200
#: The Tenant property in which the schedule keeps each task's last run: the allow-list of
#: the ``$property`` the schedule's queries read and set.
LAST_RUN_PROPERTY = {
    CONSOLIDATE: "maintenanceConsolidatedAt",
    VALIDATE_CONNECTIONS: "maintenanceValidatedAt",
    ARCHIVE_SUPERSEDED: "maintenanceArchivedAt",
}
#: The pipeline scheduled runs act as (system role).
SCHEDULE_AGENT = "maintenance:schedule"


def job_kind(task: str) -> str:
    """The ``kind`` of a maintenance task's job."""
    return f"maintenance:{task}"


def scheduled_principal(user_id: str) -> Principal:
    """Whom a scheduled run acts as: a pipeline of the service for the user (system role,
    so a person's corrections hold its writes back)."""
    return Principal(user_id=user_id, role=Role.SYSTEM, agent_id=SCHEDULE_AGENT)


def check_task(task: str, older_than_days: int | None = None) -> None:
    """404 naming ``task`` for an unknown task; 422 naming ``olderThanDays`` when it is given
    to a task other than archive-superseded or is out of range."""
    if task not in TASKS:
        raise NotFound(f"no maintenance task {task!r}; the tasks are {', '.join(TASKS)}", field="task")
    if older_than_days is None:
        return
    if task != ARCHIVE_SUPERSEDED:
        raise InvalidInput(f"olderThanDays is for {ARCHIVE_SUPERSEDED} only", field="olderThanDays")
    if not 0 <= older_than_days <= MAX_OLDER_THAN_DAYS:
        raise InvalidInput(f"olderThanDays must be 0-{MAX_OLDER_THAN_DAYS}", field="olderThanDays")


def _result(
    task: str, dry_run: bool, counts: dict[str, int], lists: dict[str, list[Any]], **extra: Any
) -> JobResult:
    """Counts and the report: each list cut at :data:`REPORT_LIMIT` (``truncated`` says so)."""
    report: dict[str, Any] = {"task": task, "dryRun": dry_run, **extra}
    report |= {name: items[:REPORT_LIMIT] for name, items in lists.items()}
    if any(len(items) > REPORT_LIMIT for items in lists.values()):
        report["truncated"] = True
    return JobResult(counts, report)


class MaintenanceService:
    """The maintenance tasks of the calling user's memory."""

    def __init__(
        self,
        db: Database,
        insights: InsightService,
        jobs: Jobs,
        *,
        consolidate_above: float = 0.8,
        archive_older_than_days: int = 90,
        judge: Judge | None = None,
    ) -> None:
        self._db = db
        self._insights = insights
        self._jobs = jobs
        self._judge = judge
        self._gate = WriteGate(db)
        self._consolidate_above = consolidate_above
        self._older_than_days = archive_older_than_days

    @classmethod
    def from_settings(
        cls,
        db: Database,
        insights: InsightService,
        jobs: Jobs,
        settings: Settings,
        judge: Judge | None = None,
    ) -> MaintenanceService:
        """The service as the settings configure it (the API and the CLI alike; ``judge``: the
        process's judge, where one runs)."""
        return cls(
            db,
            insights,
            jobs,
            consolidate_above=settings.insight_consolidate_above,
            archive_older_than_days=settings.maintenance_archive_older_than_days,
            judge=judge,
        )

    async def start(
        self, principal: Principal, task: str, *, dry_run: bool = False, older_than_days: int | None = None
    ) -> str:
        """Queue a task as a job of the principal's user; returns the job id (of the job of
        this task already queued or running for the user, if there is one)."""
        require_unscoped(principal, "maintenance (it reaches every part of the memory)")
        check_task(task, older_than_days)
        if task == JUDGE:  # one live judge job per user, whoever starts it (a create, or a caller)
            return await self._judging().start(principal, dry_run=dry_run)

        async def work(memo: dict[str, Any]) -> JobResult:
            return await self.run(principal, task, dry_run=dry_run, older_than_days=older_than_days)

        # One live job per user and task: asked again, the same job (or 409 for other options).
        params = f"dryRun={str(dry_run).lower()},olderThanDays={older_than_days}"
        return await self._jobs.start(principal, job_kind(task), work, thread_id=None, params=params)

    async def run(
        self, principal: Principal, task: str, *, dry_run: bool = False, older_than_days: int | None = None
    ) -> JobResult:
        """Run a task now, in this process; its counts and report."""
        require_unscoped(principal, "maintenance (it reaches every part of the memory)")
        check_task(task, older_than_days)
        if task == CONSOLIDATE:
            return await self.consolidate(principal, dry_run=dry_run)
        if task == VALIDATE_CONNECTIONS:
            return await self.validate_connections(principal, dry_run=dry_run)
        if task == JUDGE:
            return await self._judging().run(principal, {}, dry_run=dry_run)
        return await self.archive_superseded(principal, dry_run=dry_run, older_than_days=older_than_days)

    def _judging(self) -> Judge:
        if self._judge is None:
            raise Conflict(f"the {JUDGE} task runs in the API (POST /v1/maintenance/{JUDGE})", field="task")
        return self._judge

    async def _under_gate(self, user_id: str, dry_run: bool, work: Callable[[Gated], Awaitable[T]]) -> T:
        """``work`` under the user's write gate; for a dry run, in a read transaction (as if
        under the gate: Neo4j refuses any write there, so a dry run cannot change a thing)."""
        if not dry_run:
            return await self._gate.write(user_id, work)

        async def looking(tx: AsyncManagedTransaction) -> T:
            return await work(Gated(tx, user_id, seq=0, notes=0))

        return await self._db.read_tx(looking)

    # --- consolidate ---------------------------------------------------------------------
    async def consolidate(self, principal: Principal, *, dry_run: bool = False) -> JobResult:
        """Each thread with insights above the threshold not yet in knowledge is consolidated
        as ``POST /v1/threads/{id}/consolidate`` would (a dry run counts them)."""
        require_unscoped(principal, "maintenance (it reaches every part of the memory)")
        rows = await self._db.read(
            "queries/project/maintenance_consolidate_threads",
            userId=principal.user_id,
            minConfidence=self._consolidate_above,
        )
        counts = {"threads": len(rows), "insights": sum(int(r["insights"]) for r in rows)}
        if not dry_run:
            counts |= {"consolidated": 0, "created": 0, "updated": 0}
        threads: list[dict[str, Any]] = []
        for row in rows:
            entry: dict[str, Any] = {"threadId": row["threadId"], "insights": int(row["insights"])}
            if not dry_run:
                try:
                    done = await self._insights.consolidate(principal, row["threadId"])
                except NotFound:
                    continue  # deleted since it was listed: nothing of it to consolidate
                entry |= done
                for key in ("consolidated", "created", "updated"):
                    counts[key] += int(done[key])
            threads.append(entry)
        return _result(CONSOLIDATE, dry_run, counts, {"threads": threads})

    # --- validate-connections ------------------------------------------------------------
    async def validate_connections(self, principal: Principal, *, dry_run: bool = False) -> JobResult:
        """Find and repair what must not be among the user's typed edges; report what a
        person must decide (module docstring)."""
        require_unscoped(principal, "maintenance (it reaches every part of the memory)")

        async def work(gated: Gated) -> JobResult:
            lists = await validate(gated, principal, dry_run)
            return _result(VALIDATE_CONNECTIONS, dry_run, {k: len(v) for k, v in lists.items()}, lists)

        return await self._under_gate(principal.user_id, dry_run, work)

    # --- archive-superseded ----------------------------------------------------------------
    async def archive_superseded(
        self, principal: Principal, *, dry_run: bool = False, older_than_days: int | None = None
    ) -> JobResult:
        """Superseded architecture decisions superseded more than ``older_than_days`` days ago
        (default: the setting) become archived."""
        require_unscoped(principal, "maintenance (it reaches every part of the memory)")
        days = self._older_than_days if older_than_days is None else older_than_days
        check_task(ARCHIVE_SUPERSEDED, days)

        async def work(gated: Gated) -> JobResult:
            rows = await gated.run("queries/project/maintenance_archive_candidates", olderThanDays=days)
            found = [{"id": r["id"], "supersededAt": iso_millis(int(r["supersededAt"]))} for r in rows]
            ids = [r["id"] for r in rows]
            held: dict[str, str] = {}
            if ids and corrections.is_agent(principal):
                corrected = await corrections.corrected(gated, ids)
                held = {note: fields["status"] for note, fields in corrected.items() if "status" in fields}
            archived = [i for i in ids if i not in held]
            if not dry_run and archived:
                done = await gated.run("queries/project/maintenance_archive_set", ids=archived)
                archived = [str(r["id"]) for r in done]
                # As a status update of a note is journaled: an undo puts `superseded` back.
                await journal.record_many(gated, principal, [
                    journal.Change(
                        "note.update", "Knowledge", note_id, {"status": KnowledgeStatus.SUPERSEDED.value},
                        {"status": KnowledgeStatus.ARCHIVED.value},
                    )
                    for note_id in archived
                ])  # fmt: skip
            lists: dict[str, list[Any]] = {
                "candidates": found,
                "archived": archived,
                "heldBack": [{"id": i, "correctionId": c} for i, c in sorted(held.items())],
            }
            counts = {k: len(v) for k, v in lists.items()}
            return _result(ARCHIVE_SUPERSEDED, dry_run, counts, lists, olderThanDays=days)

        return await self._under_gate(principal.user_id, dry_run, work)

    # --- the schedule ----------------------------------------------------------------------
    async def start_if_due(self, user_id: str, task: str, every_millis: int) -> str | None:
        """Claim the user's scheduled run of ``task`` if it is due (compare-and-set under the
        user's write gate, so of several processes only one claims it) and queue it as a job
        of the pipeline; its job id, or ``None`` when it was not due (any more)."""
        check_task(task)

        async def claim(gated: Gated) -> bool:
            rows = await gated.run(
                "queries/project/maintenance_claim",
                property=LAST_RUN_PROPERTY[task],
                everyMillis=every_millis,
            )
            return bool(rows)

        if not await self._gate.write(user_id, claim):
            return None
        return await self.start(scheduled_principal(user_id), task)


class MaintenanceSchedule:
    """Every ``tick_seconds``, finds the due tasks of every user holding data (a Tenant node,
    not forgotten) and runs each as a job of the pipeline principal. A run is claimed in
    Neo4j before it starts, so several API processes or replicas run a due task once; a
    process that dies between the claim and the job's start loses that one run."""

    def __init__(
        self,
        service: MaintenanceService,
        db: Database,
        every_hours: dict[str, float],
        *,
        tick_seconds: float = 60.0,
        users: Sequence[str] | None = None,
        batch: int = 500,
    ) -> None:
        for task in every_hours:
            check_task(task)
        self._service = service
        self._db = db
        self._every = {task: int(hours * 3_600_000) for task, hours in every_hours.items() if hours > 0}
        self._tick = tick_seconds
        self._users = list(users) if users else None
        self._batch = batch
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def from_settings(
        cls, service: MaintenanceService, db: Database, settings: Settings
    ) -> MaintenanceSchedule:
        """The schedule the settings ask for (:attr:`active` only when some interval is > 0)."""
        every = {
            CONSOLIDATE: settings.maintenance_consolidate_every_hours,
            VALIDATE_CONNECTIONS: settings.maintenance_validate_every_hours,
            ARCHIVE_SUPERSEDED: settings.maintenance_archive_every_hours,
        }
        return cls(
            service,
            db,
            every,
            tick_seconds=settings.maintenance_tick_seconds,
            users=settings.maintenance_users,
        )

    @property
    def active(self) -> bool:
        """Whether any task is scheduled."""
        return bool(self._every)

    def start(self) -> None:
        """Start the loop in the background (nothing when no task is scheduled)."""
        if self.active and self._task is None:
            self._task = asyncio.create_task(self._loop(), name="maintenance-schedule")

    async def stop(self) -> None:
        """Stop the loop (jobs it started end with the process's other jobs)."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None

    async def _loop(self) -> None:
        while True:
            try:
                started = await self.run_due()
                if started:
                    log.info("maintenance schedule started %d jobs", len(started))
            except ContextNetworkError as exc:  # Neo4j away for a moment: the next tick tries again
                log.warning("maintenance schedule: %s", exc.message)
            except Exception:  # the loop must outlive one bad tick; the next one tries again
                log.exception("maintenance schedule tick failed")
            await asyncio.sleep(self._tick)

    async def run_due(self) -> list[str]:
        """Start every due task of every user now; the ids of the jobs started."""
        started: list[str] = []
        for task, every in self._every.items():
            while True:
                rows = await self._db.read(
                    "queries/project/maintenance_due_users",
                    property=LAST_RUN_PROPERTY[task],
                    everyMillis=every,
                    users=self._users,
                    limit=self._batch,
                )
                claimed = 0  # claimed here or elsewhere: no longer due either way
                for row in rows:
                    try:
                        job_id = await self._service.start_if_due(row["userId"], task, every)
                    except ContextNetworkError as exc:  # e.g. forgotten meanwhile: the others go on
                        log.warning("maintenance %s for %s: %s", task, row["userId"], exc.message)
                        continue
                    claimed += 1
                    if job_id is not None:
                        started.append(job_id)
                if len(rows) < self._batch or not claimed:
                    break  # the rest (if any) at the next tick
        return started
