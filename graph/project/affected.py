"""The threads a new decision may affect, read from the graph: the inputs of
:mod:`graph.project.notify` (the arithmetic) for :mod:`graph.project.context` (which writes the
notices), and the settings that say which are told."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.core.db import Database, run_listed, run_rows
from graph.core.embeddings import Embedder, Vector, embed_each, notify_floor, notify_model, relevance_floor
from graph.core.settings import Settings
from graph.project import notify as notifying

#: Most recently active threads of a user a new decision reads (exactly), the newest insights
#: of each (a cosine costs ~15 us in Cypher), and the closest whose texts are read for terms.
SCAN_THREADS, SCAN_INSIGHTS, TEXT_THREADS = 500, 5, 50


@dataclass(frozen=True)
class NotifyConfig:
    """Which conversations hear of a new decision (settings; :mod:`graph.project.notify`).
    ``prior_mean``: what an unrelated thread's cosine is on average (the embedder's);
    ``second_prior_mean``: the second model's (``None``: no second model compares)."""

    min_similarity: float = 0.76
    standing: float = 2.3
    prior_mean: float = 0.54
    max_threads: int = 50
    window_days: float = 30.0
    second_prior_mean: float | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> NotifyConfig:
        """What the settings ask for; unrelated threads sit a little below each model's
        relevance floor."""
        second = notify_model(settings)
        return cls(
            min_similarity=notify_floor(settings),
            standing=settings.decision_notify_standing,
            prior_mean=round(relevance_floor(settings) - notifying.PRIOR_BELOW_FLOOR, 3),
            max_threads=settings.decision_notify_max_threads,
            window_days=settings.decision_notify_days,
            second_prior_mean=(
                round(second.relevance_floor - notifying.PRIOR_BELOW_FLOOR, 3) if second is not None else None
            ),
        )

    @property
    def rule(self) -> notifying.Rule:
        """The rule at the configured standing."""
        return notifying.Rule(self.min_similarity, self.standing, self.prior_mean, self.second_prior_mean)


@dataclass(frozen=True)
class DecisionVectors:
    """A decision's vectors (:func:`notifying.decision_texts`, in its order) by the embedder,
    and by the second model (``second_model``: its id; ``None``: no second model)."""

    first: list[Vector]
    second: list[Vector] | None = None
    second_model: str | None = None

    @classmethod
    async def of(cls, first: list[Vector], texts: Sequence[str], second: Embedder | None) -> DecisionVectors:
        """``first`` (the embedder's vectors of ``texts``), with the second model's of the same
        texts, each alone (:func:`embed_each`), when there is one."""
        if second is None:
            return cls(first)
        return cls(first, await embed_each(second, texts), second.model_id)

    def params(self) -> dict[str, Any]:
        """The parameters of ``decision_threads.cypher``."""
        note, about, why, *consequences = self.first
        params: dict[str, Any] = {"about": about, "why": why, "parts": [note, *consequences]}
        if self.second is None or self.second_model is None:
            return params | {"notifyModel": None, "second": []}
        note2, about2, why2, *consequences2 = self.second
        return params | {"notifyModel": self.second_model, "second": [about2, why2, note2, *consequences2]}


async def affected_threads(
    db: Database,
    user_id: str,
    vectors: DecisionVectors,
    terms: notifying.Terms,
    agents: list[str],
    config: NotifyConfig,
) -> list[dict[str, Any]]:
    """The threads a decision may affect, sessions first, then those that stand out most
    (read before the write; a thread started meanwhile is not told), as ``notifiedThreads``
    shows them. ``terms``: the decision's words (:func:`notifying.decision_words`)."""
    rule = config.rule

    async def work(tx: AsyncManagedTransaction) -> list[notifying.Told]:
        rows = await run_listed(
            tx, "queries/project/decision_threads", userId=user_id,
            windowSeconds=int(config.window_days * 86_400), scan=SCAN_THREADS, insights=SCAN_INSIGHTS,
            agents=agents, **vectors.params(),
        )  # fmt: skip
        candidates = [notifying.candidate(r) for r in rows]
        base = notifying.standings(candidates, rule)
        closest = notifying.closest(base, TEXT_THREADS)
        read = await run_rows(tx, "queries/project/decision_thread_texts", userId=user_id, ids=closest)
        texts = {r["id"]: r["text"] for r in read}
        # The words of up to 50 threads' texts (about 1 MB at most): a worker thread's work.
        return await asyncio.to_thread(
            notifying.tell, candidates, rule, terms, texts, config.max_threads, base
        )

    return [t.view() for t in await db.read_tx(work)]
