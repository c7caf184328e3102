"""The threads a new decision's notice nearly reached, put to a model: with an LLM configured,
the judge (:mod:`graph.project.judge_job`) asks whether the decision affects each of them, and
tells those it does, never on the write path.

The offline rule (:mod:`graph.project.notify`) tells a thread that stands out among the user's
threads by ``CTXNET_DECISION_NOTIFY_STANDING``; its misses are threads related by reasoning
rather than by words, which stand just below that line. So the threads that stand out by the
line less ``CTXNET_LLM_JUDGE_NOTICE_MARGIN`` and were not told (read again exactly as a record
reads them, :func:`graph.project.affected.affected_threads`, at the lower line) are the
questions, at most ``CTXNET_LLM_JUDGE_NOTICE_THREADS`` per decision, the highest first. A
thread the model calls affected gets the notice the rule would have given it (the same message
id, so a thread is told once), marked ``(judged affected by llm:<model>)``, in the voice the
rule would use. The judge only adds: a notice the rule gave stays.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from graph.conversations.gists import ThreadGists
from graph.conversations.models import NewMessage
from graph.conversations.models import Role as MessageRole
from graph.conversations.threads import append_messages
from graph.core.db import Database
from graph.core.embeddings import Embedder, embed_each
from graph.core.errors import NotFound
from graph.core.gate import Gated
from graph.core.principals import Principal, Role
from graph.core.scopes import require_unscoped
from graph.project import notify as notifying
from graph.project.affected import DecisionVectors, NotifyConfig, affected_threads
from graph.project.context import NOTICE, ProjectContextService, authorship, entry_view, notice_id
from graph.project.models import ProjectKind

#: The labels a model may give a thread.
AFFECTED, UNAFFECTED = "affected", "unaffected"
LABELS = (AFFECTED, UNAFFECTED)
#: How much of a decision's fields and of a thread's text a model reads.
CUT = 2_000

NOTICE_INSTRUCTIONS = (
    "Someone recorded a new architectural decision. Each item pairs it with one of their recent "
    "conversations (its topic, latest messages and insights). Say whether the decision affects the "
    "conversation: affected when the work or question discussed there must follow, change or be "
    "revisited because of the decision, or the conversation is about the problem the decision "
    "settles; unaffected when they merely share words or a topic. When unsure, answer unaffected."
)


@dataclass(frozen=True)
class ThreadQuestion:
    """One thread a decision's notice nearly reached, and what the model reads of both."""

    decision_id: str
    thread_id: str
    standing: float | None
    decision: dict[str, Any]
    text: str

    @property
    def key(self) -> str:
        """The question's id among the judge's memo."""
        return f"{self.decision_id}@{self.thread_id}"

    def item(self) -> dict[str, Any]:
        """The question as the model reads it."""
        return {"decision": self.decision, "conversation": self.text[:CUT]}

    def view(self) -> dict[str, Any]:
        """The question as a job's report shows it."""
        return {"decisionId": self.decision_id, "threadId": self.thread_id, "standing": self.standing}


class NoticeJudge:
    """Finds the threads near a decision's line, and tells those a model calls affected."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        project: ProjectContextService,
        config: NotifyConfig,
        *,
        second: Embedder | None = None,
        gists: ThreadGists | None = None,
        margin: float = 0.5,
        per_decision: int = 8,
    ) -> None:
        self._db = db
        self._embedder = embedder
        self._project = project
        self._config = config
        self._second = second if config.second_prior_mean is not None else None
        self._gists = gists
        self._margin = margin
        self._per_decision = per_decision

    async def questions(self, principal: Principal, decision_id: str) -> list[ThreadQuestion]:
        """The threads near the line of a decision that is still active (none for one gone)."""
        require_unscoped(principal, "the judge (it reaches every part of the memory)")
        if not self._per_decision or not self._config.max_threads or not self._margin:
            return []
        try:
            entry = await self._project.get(principal, ProjectKind.DECISION, decision_id)
        except NotFound:
            return []
        if entry["status"] != "active":
            return []
        title, body, then = entry["title"], entry["decision"], list(entry["consequences"])
        texts = notifying.decision_texts(title, body, then, entry.get("context") or "")
        sides = await DecisionVectors.of(await embed_each(self._embedder, texts), texts, self._second)
        terms = await asyncio.to_thread(notifying.decision_words, title, body, then, entry["tags"])
        lower = replace(self._config, standing=self._config.standing - self._margin)
        found = await affected_threads(self._db, principal.user_id, sides, terms, entry["agents"], lower)
        [told] = await self._db.read(
            "queries/project/decision_told", userId=principal.user_id, decisionId=decision_id
        )
        near = [
            t for t in found
            if t["reason"] == "standsOut" and t["threadId"] not in set(told["threadIds"])
            and t.get("standing", self._config.standing) < self._config.standing
        ][: self._per_decision]  # fmt: skip
        if not near:
            return []
        rows = await self._db.read(
            "queries/project/decision_thread_texts",
            userId=principal.user_id,
            ids=[t["threadId"] for t in near],
        )
        words = {r["id"]: r["text"] for r in rows}
        decision = {
            "title": title[:CUT], "decision": body[:CUT], "consequences": [c[:CUT] for c in then[:10]],
            "context": (entry.get("context") or "")[:CUT],
        }  # fmt: skip
        return [
            ThreadQuestion(decision_id, t["threadId"], t.get("standing"), decision, words[t["threadId"]])
            for t in near
            if t["threadId"] in words
        ]

    async def tell(
        self, gated: Gated, principal: Principal, affected: Sequence[ThreadQuestion], judge_name: str
    ) -> list[dict[str, Any]]:
        """Under the user's write gate: each affected thread gets the decision's notice (a thread
        deleted since is skipped); the notices, as ``{decisionId, threadId, messageId}``."""
        told: list[dict[str, Any]] = []
        by_decision: dict[str, list[ThreadQuestion]] = {}
        for q in affected:
            by_decision.setdefault(q.decision_id, []).append(q)
        for decision_id, questions in sorted(by_decision.items()):
            rows = await gated.run_listed(
                "queries/project/context_list", kind=ProjectKind.DECISION.value, ids=[decision_id],
                status=None, agentId=None, tag=None, after=None, limit=1,
            )  # fmt: skip
            if not rows or rows[0]["entry"]["status"] != "active":
                continue  # superseded or gone since: nobody is told of it now
            entry = entry_view(rows[0]["entry"])
            recorded = entry["recordedBy"]
            text = (
                NOTICE.format(title=entry["title"])
                + authorship(recorded)
                + f" (judged affected by {judge_name})"
            )
            # Only a person's word (recorded or approved) speaks with the system's voice.
            voice = MessageRole.SYSTEM if recorded["role"] == Role.HUMAN.value else MessageRole.ASSISTANT
            made = []
            for q in questions:
                message_id = notice_id(decision_id, q.thread_id)
                try:
                    await append_messages(
                        gated, principal, q.thread_id, [message_id], [NewMessage(voice, text)]
                    )
                except NotFound:
                    continue
                made.append({"decisionId": decision_id, "threadId": q.thread_id, "messageId": message_id})
            if made:
                await gated.run(
                    "queries/project/notices_link",
                    decisionId=decision_id,
                    messageIds=[m["messageId"] for m in made],
                )
            told += made
        return told

    def refresh(self, user_id: str, told: Sequence[dict[str, Any]]) -> None:
        """A notice is a message: the told threads' gists are made again."""
        if self._gists is not None:
            for t in told:
                self._gists.mark(user_id, t["threadId"])
