"""The knowledge network as one domain: its notes, edges and retrieval, with the undo,
corrections and proposals that keep it true, built together.

The three services share the vector plan and the per-user note counts that choose it, so
a create and a search of the same user see the same figures. The API and the CLI build
it from the settings here, and the API hands it to routes as one dependency.
"""

from __future__ import annotations

from dataclasses import dataclass

from graph.core.db import Database
from graph.core.embeddings import Embedder, dedupe_threshold, update_floor
from graph.core.settings import Settings
from graph.core.vectors import VectorPlanConfig
from graph.knowledge.corrections import CorrectionService
from graph.knowledge.edges import EdgeService
from graph.knowledge.merges import MergeRecords
from graph.knowledge.notes import NoteService
from graph.knowledge.proposals import ProposalService
from graph.knowledge.retrieval import RetrievalService
from graph.knowledge.search import TenantSizes
from graph.knowledge.undo import UndoService


@dataclass(frozen=True)
class KnowledgeNetwork:
    """Notes, edges and retrieval of the knowledge network."""

    notes: NoteService
    edges: EdgeService
    retrieval: RetrievalService
    undo: UndoService
    corrections: CorrectionService
    proposals: ProposalService
    merges: MergeRecords
    #: How many notes each user has, cached briefly (dropped when many notes go at once).
    sizes: TenantSizes

    @classmethod
    def from_settings(cls, db: Database, embedder: Embedder, settings: Settings) -> KnowledgeNetwork:
        """The domain as the settings configure it (API and CLI alike)."""
        plan = VectorPlanConfig.from_settings(settings)
        sizes = TenantSizes(settings.tenant_size_cache_seconds)
        notes = NoteService(
            db, embedder, dedupe_threshold=dedupe_threshold(settings), update_floor=update_floor(settings),
            plan=plan, sizes=sizes,
        )  # fmt: skip
        undo = UndoService(db, embedder, sizes=sizes, dedupe_threshold=dedupe_threshold(settings))
        edges = EdgeService(db)
        return cls(
            notes=notes,
            edges=edges,
            retrieval=RetrievalService(
                db, embedder, plan=plan, sizes=sizes, term_limit=settings.search_term_limit
            ),
            undo=undo,
            corrections=CorrectionService(db, window_days=settings.correction_window_days),
            proposals=ProposalService(db, notes, edges, undo),
            merges=MergeRecords(db),
            sizes=sizes,
        )
