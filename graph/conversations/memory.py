"""Conversation memory as one domain: threads and messages, insights, and the jobs that
extract them, built together from the settings (the API and the CLI alike)."""

from __future__ import annotations

from dataclasses import dataclass

from graph.conversations.extractors import Extractor
from graph.conversations.gists import ThreadGists
from graph.conversations.insights import InsightService, Thresholds
from graph.conversations.threads import ThreadService
from graph.core.db import Database
from graph.core.embeddings import Embedder
from graph.core.jobs import Jobs
from graph.core.settings import Settings
from graph.core.vectors import VectorPlanConfig
from graph.knowledge.notes import NoteService


@dataclass(frozen=True)
class ConversationMemory:
    """Threads, insights and their jobs."""

    threads: ThreadService
    insights: InsightService
    jobs: Jobs
    #: Refreshes threads' gists after appends; the API starts it (``gists.start()``).
    gists: ThreadGists

    @classmethod
    def from_settings(
        cls,
        db: Database,
        embedder: Embedder,
        extractor: Extractor,
        notes: NoteService,
        jobs: Jobs,
        settings: Settings,
        second: Embedder | None = None,
    ) -> ConversationMemory:
        """The domain as the settings configure it; insights become knowledge through ``notes``.
        ``second``: the second model that embeds threads' gists for decisions (or ``None``)."""
        insights = InsightService(
            db,
            embedder,
            extractor,
            notes,
            jobs,
            thresholds=Thresholds(settings.insight_valid_above, settings.insight_consolidate_above),
            plan=VectorPlanConfig.from_settings(settings),
            term_limit=settings.search_term_limit,
        )
        gists = ThreadGists(db, embedder, settings.thread_gist_delay_seconds, second)
        threads = ThreadService(db, embedder, gists, second)
        return cls(threads=threads, insights=insights, jobs=jobs, gists=gists)
