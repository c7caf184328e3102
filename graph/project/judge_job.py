"""The judge: a background job per user that puts to a chat model what the offline rules left
unsure, and applies the answers; never on the write path (``docs/knowledge.md``, "When the
rule is unsure: a model decides").

With ``CTXNET_LLM_MODEL`` set (and ``CTXNET_LLM_JUDGE`` not ``off``), each create marks its user
(:meth:`Judge.mark`: in memory, nothing written). ``CTXNET_LLM_JUDGE_DELAY_SECONDS`` after a
user's first mark, the creates meanwhile together, the judge reads what was created after the
user's watermark (:func:`graph.knowledge.judge.scan`) and gathers the questions: the note pairs
the update rule left undecided (:func:`graph.knowledge.judge.undecided_pairs`) and the threads a
new decision's notice nearly reached (:class:`graph.project.notice_judge.NoticeJudge`), at most
``CTXNET_LLM_JUDGE_MAX_QUESTIONS``, whole notes and decisions in the journal's order. With none,
it only moves the watermark on (no job is made); else it runs the maintenance task ``judge`` as
a job (one live job per user: :class:`graph.core.jobs.Jobs`), which gathers again, asks the
model ``CTXNET_LLM_JUDGE_BATCH`` questions a call (answers kept in the job's memo, so a retried
job does not ask again), and applies every answer and moves the watermark in one gated write,
journaled as the pipeline ``judge:llm:<model>``. What is left (more than one job's questions,
or notes created while it ran) marks the user again. Offline (no model), nothing is marked and
the task refuses to run, but its dry run still lists what a model would be asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from graph.conversations.gists import ThreadGists
from graph.core.db import Database
from graph.core.embeddings import Embedder, dedupe_threshold, update_floor
from graph.core.errors import Conflict, ContextNetworkError
from graph.core.gate import Gated, WriteGate
from graph.core.jobs import JobResult, Jobs
from graph.core.llm import ChatJudge, build_chat_judge
from graph.core.principals import Principal, Role
from graph.core.scopes import require_unscoped
from graph.core.settings import Settings
from graph.core.vectors import VectorPlanConfig
from graph.knowledge import judge as pairs
from graph.knowledge.dedupe import Thresholds
from graph.project.affected import NotifyConfig
from graph.project.context import ProjectContextService
from graph.project.notice_judge import AFFECTED, LABELS, NOTICE_INSTRUCTIONS, NoticeJudge, ThreadQuestion

log = logging.getLogger(__name__)

#: The maintenance task's name, and the kind of its job (one live job per user).
JUDGE = "judge"
JOB_KIND = f"maintenance:{JUDGE}"
#: Most notes created since the watermark one gathering reads.
SCAN = 200
#: Most items each list of a job's report holds.
REPORT_LIMIT = 200


@dataclass
class Gathered:
    """What one gathering found: the questions, and the watermark that covers them."""

    pairs: list[pairs.Pair] = field(default_factory=list)
    threads: list[ThreadQuestion] = field(default_factory=list)
    notes: int = 0
    upto: tuple[int, int] | None = None
    more: bool = False

    @property
    def questions(self) -> int:
        """How many questions it holds."""
        return len(self.pairs) + len(self.threads)


class Judge:
    """The judge of one process: marks, the gathering, the job and its answers applied."""

    def __init__(
        self,
        db: Database,
        jobs: Jobs,
        chat: ChatJudge | None,
        notices: NoticeJudge,
        *,
        limits: Thresholds,
        plan: VectorPlanConfig,
        max_questions: int = 40,
        batch: int = 10,
        delay_seconds: float = 2.0,
    ) -> None:
        self._db = db
        self._gate = WriteGate(db)
        self._jobs = jobs
        self._chat = chat
        self._notices = notices
        self._limits = limits
        self._plan = plan
        self._max = max_questions
        self._batch = batch
        self._delay = delay_seconds
        self._due: dict[str, float] = {}  # user -> when their job is due (monotonic)
        self._active: set[str] = set()  # users whose job runs in this process
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def from_settings(
        cls,
        db: Database,
        jobs: Jobs,
        embedder: Embedder,
        project: ProjectContextService,
        settings: Settings,
        *,
        second: Embedder | None = None,
        gists: ThreadGists | None = None,
    ) -> Judge:
        """The judge as the settings configure it (no model: it marks nothing, and only its dry
        run runs); ``second``, ``gists``: as the project context service has them."""
        config = NotifyConfig.from_settings(settings)
        notices = NoticeJudge(
            db, embedder, project, config, second=second, gists=gists,
            margin=settings.llm_judge_notice_margin, per_decision=settings.llm_judge_notice_threads,
        )  # fmt: skip
        dedupe = dedupe_threshold(settings)
        return cls(
            db, jobs, build_chat_judge(settings), notices,
            limits=Thresholds(dedupe=dedupe, floor=min(update_floor(settings), dedupe)),
            plan=VectorPlanConfig.from_settings(settings), max_questions=settings.llm_judge_max_questions,
            batch=settings.llm_judge_batch, delay_seconds=settings.llm_judge_delay_seconds,
        )  # fmt: skip

    @property
    def enabled(self) -> bool:
        """Whether a model is configured to judge."""
        return self._chat is not None

    # --- marks and the loop -----------------------------------------------------------------
    def mark(self, user_id: str) -> None:
        """The user created notes: judge them soon (nothing when no model is configured)."""
        if self._chat is not None:
            self._due.setdefault(user_id, time.monotonic() + self._delay)

    def start_loop(self) -> None:
        """Run the loop that starts the due users' judging (nothing without a model)."""
        if self._chat is not None and self._task is None:
            self._task = asyncio.create_task(self._loop(), name="judge")

    async def stop_loop(self) -> None:
        """Stop the loop (users still marked are judged after their next create)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(min(0.25, self._delay) or 0.05)
            now = time.monotonic()
            for user_id in [u for u, at in self._due.items() if at <= now and u not in self._active]:
                del self._due[user_id]
                try:
                    await self.settle(user_id)
                except ContextNetworkError as exc:  # e.g. forgotten meanwhile: the others go on
                    log.warning("judge for %s: %s", user_id, exc.message)
                except Exception:  # the loop must outlive one user's failure
                    log.exception("judge for %s failed", user_id)

    async def settle(self, user_id: str) -> str | None:
        """Gather the user's questions: none, and only the watermark moves (no job); else start
        the job. Its id, or ``None``."""
        principal = self._pipeline(Principal(user_id=user_id, role=Role.SYSTEM))
        found = await self.gather(principal)
        if found.questions:
            return await self.start(principal)
        if found.upto is not None:
            upto = found.upto

            async def move(gated: Gated) -> None:
                await pairs.mark(gated, *upto)

            await self._gate.write(user_id, move)
        if found.more:
            self.mark(user_id)
        return None

    def _pipeline(self, principal: Principal) -> Principal:
        return principal.pipeline(f"judge:{self._chat.name if self._chat else 'offline'}")

    # --- the job ----------------------------------------------------------------------------
    async def start(self, principal: Principal, *, dry_run: bool = False) -> str:
        """Queue the judge as a job of the principal's user (the live one, if there is one)."""
        require_unscoped(principal, "the judge (it reaches every part of the memory)")
        self._check(dry_run)

        async def work(memo: dict[str, Any]) -> JobResult:
            return await self.run(principal, memo, dry_run=dry_run)

        params = f"dryRun={str(dry_run).lower()},olderThanDays=None"  # as every maintenance task's
        return await self._jobs.start(principal, JOB_KIND, work, thread_id=None, params=params)

    async def run(self, principal: Principal, memo: dict[str, Any], *, dry_run: bool = False) -> JobResult:
        """Gather, ask, apply (a dry run: gather and report); the counts and report."""
        require_unscoped(principal, "the judge (it reaches every part of the memory)")
        self._check(dry_run)
        user_id = principal.user_id
        self._active.add(user_id)
        try:
            found = await self.gather(principal)
            if dry_run or self._chat is None:
                return _result(found, dry_run=True)
            verdicts = await self._ask(found, memo.setdefault("verdicts", {}))
            pipeline = self._pipeline(principal)
            judged = [(p, v) for p in found.pairs if (v := verdicts.get(p.key)) is not None]
            affected = [q for q in found.threads if verdicts.get(q.key) == AFFECTED]
            name = self._chat.name

            async def apply(gated: Gated) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
                outcomes = await pairs.apply_verdicts(gated, pipeline, judged, name)
                told = await self._notices.tell(gated, pipeline, affected, name)
                if found.upto is not None:
                    await pairs.mark(gated, *found.upto)
                return outcomes, told

            outcomes, told = await self._gate.write(user_id, apply)
            self._notices.refresh(user_id, told)
            await self._again(user_id)
            keys = [p.key for p in found.pairs] + [q.key for q in found.threads]
            unanswered = [k for k in keys if verdicts.get(k) is None]
            return _result(found, dry_run=False, outcomes=outcomes, told=told, unanswered=unanswered)
        finally:
            self._active.discard(user_id)

    def _check(self, dry_run: bool) -> None:
        """Only a dry run runs without a model."""
        if not dry_run and self._chat is None:
            raise Conflict(
                "no model is configured to judge (CTXNET_LLM_MODEL, with CTXNET_LLM_JUDGE not off); "
                "a dry run lists what one would be asked",
                field="task",
            )

    async def _again(self, user_id: str) -> None:
        """After a job that applied its answers: mark the user again when notes wait after the
        watermark (more than a job's questions, or created while it ran). A failed job marks
        nobody: its questions wait for the next create, or a run of the task."""
        if self._chat is None:
            return

        with contextlib.suppress(ContextNetworkError):
            if await pairs.waiting(self._db, user_id):
                self.mark(user_id)

    async def gather(self, principal: Principal) -> Gathered:
        """The questions waiting after the user's watermark, at most the job's share, whole
        notes and decisions in the journal's order (read, nothing written)."""
        require_unscoped(principal, "the judge (it reaches every part of the memory)")
        notes, found = await pairs.read_new(self._db, principal.user_id, SCAN, self._limits, self._plan)
        gathered = Gathered(more=len(notes) == SCAN)
        for note in notes:
            asked: Sequence[Any] = found.get(note.id, [])
            if note.kind == "decision" and note.status == "active":
                asked = await self._notices.questions(principal, note.id)
            if gathered.questions and gathered.questions + len(asked) > self._max:
                gathered.more = True
                break
            if note.kind == "decision":
                gathered.threads += [q for q in asked if isinstance(q, ThreadQuestion)]
            else:
                gathered.pairs += [p for p in asked if isinstance(p, pairs.Pair)]
            gathered.notes += 1
            gathered.upto = (note.seq, note.part)
        return gathered

    async def _ask(self, found: Gathered, memo: dict[str, str | None]) -> dict[str, str | None]:
        """The model's answer to each question not answered yet, ``batch`` to a call (kept in
        ``memo``; a question left unanswered is ``None`` and not asked again)."""
        assert self._chat is not None  # noqa: S101 - run() asks only with a model
        kinds: list[tuple[str, Sequence[str], Sequence[Any]]] = [
            (pairs.PAIR_INSTRUCTIONS, pairs.VERDICTS, found.pairs),
            (NOTICE_INSTRUCTIONS, LABELS, found.threads),
        ]
        for instructions, labels, questions in kinds:
            waiting = [q for q in questions if q.key not in memo]
            for start in range(0, len(waiting), self._batch):
                chunk = waiting[start : start + self._batch]
                # Ids of our own, never the notes': nothing in a note can name another question.
                items = {f"q{i + 1}": q.item() for i, q in enumerate(chunk)}
                answers = await self._chat.label(instructions, labels, items)
                for i, q in enumerate(chunk):
                    memo[q.key] = answers.get(f"q{i + 1}")
        return memo

    async def close(self) -> None:
        """Stop the loop and close the model's client."""
        await self.stop_loop()
        if self._chat is not None:
            await self._chat.close()


def _result(
    found: Gathered,
    *,
    dry_run: bool,
    outcomes: Sequence[dict[str, Any]] = (),
    told: Sequence[dict[str, Any]] = (),
    unanswered: Sequence[str] = (),
) -> JobResult:
    """A judge job's counts and report (each list cut at :data:`REPORT_LIMIT`)."""
    counts = {"notes": found.notes, "pairs": len(found.pairs), "threads": len(found.threads)}
    report: dict[str, Any] = {"task": JUDGE, "dryRun": dry_run, "more": found.more}
    if dry_run:
        report |= {"pairs": [p.view() for p in found.pairs], "threads": [q.view() for q in found.threads]}
    else:
        for verdict in pairs.VERDICTS:
            counts[verdict] = sum(o["verdict"] == verdict for o in outcomes)
        for outcome in ("applied", "proposed"):
            counts[outcome] = sum(o.get("outcome") == outcome for o in outcomes)
        counts |= {"told": len(told), "unanswered": len(unanswered)}
        report |= {"pairs": list(outcomes), "told": list(told), "unanswered": list(unanswered)}
    for name in ("pairs", "threads", "told", "unanswered"):
        if len(report.get(name, [])) > REPORT_LIMIT:
            report[name] = report[name][:REPORT_LIMIT]
            report["truncated"] = True
    return JobResult(counts, report)
