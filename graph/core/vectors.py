"""The tenant-safe vector plan every vector query shares (search, dedupe, insight recall).

Neo4j 5.26's vector index cannot filter by user inside the index, and one index holds
every user's vectors. A plain top-k followed by ``WHERE userId = ...`` therefore returns
too few hits, or none, for a user who owns a small share of the index. So each vector
query picks one of two plans from the user's share (:meth:`VectorPlanConfig.index_candidates`):
the **exact** plan (cosine over the user's own nodes, filters first) for small users and
tiny shares, else the **oversampled index** (``want / share * oversample`` candidates, at
least ``min_candidates``), narrowed to the user. The domains run the plan against their
own index (``graph.knowledge.search``, ``graph.conversations.insights``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from graph.core.errors import InvalidInput
from graph.core.settings import Settings


#: Neo4j scores cosine as (1 + cos) / 2; these convert between that and plain cosine.
def cosine_from_score(score: float) -> float:
    """Plain cosine in [-1, 1] from Neo4j's normalised similarity."""
    return 2.0 * score - 1.0


def score_from_cosine(cosine: float) -> float:
    """Neo4j's normalised similarity for a plain cosine."""
    return (1.0 + cosine) / 2.0


@dataclass(frozen=True)
class VectorPlanConfig:
    """Thresholds of the vector plan (settings)."""

    exact_max_notes: int = 300
    oversample: float = 1.5
    #: HNSW recall drops at small k (measured at 100k notes: k=15 gave recall@10 0.85, k=64 0.97).
    min_candidates: int = 100
    ann_max_candidates: int = 5_000

    @classmethod
    def from_settings(cls, settings: Settings) -> VectorPlanConfig:
        """The thresholds the settings ask for."""
        return cls(
            exact_max_notes=settings.search_exact_max_notes,
            oversample=settings.search_oversample,
            min_candidates=settings.search_min_candidates,
            ann_max_candidates=settings.search_ann_max_candidates,
        )

    def index_candidates(self, want: int, mine: int, total: int) -> int | None:
        """How many candidates to ask of the shared index so that ``want`` of this user's nodes
        are among them, or ``None`` when the exact plan is the one to run: the user has few
        nodes, or a share so small that oversampling would pass ``ann_max_candidates``."""
        if mine <= self.exact_max_notes:
            return None
        share = mine / max(total, 1)
        candidates = max(self.min_candidates, want, math.ceil(want * self.oversample / share))
        return candidates if candidates <= self.ann_max_candidates else None


def check_vectors(
    vectors: Sequence[Sequence[float] | None], dimension: int, field: Callable[[int], str]
) -> None:
    """Supplied vectors (``None``: none supplied) must fit the index: ``dimension`` numbers,
    every one finite, and a length that is finite and not zero (cosine divides by it; Neo4j
    fails on a vector of 384 × 1e200, whose length overflows). A 422 on ``field(i)``."""
    given = [(i, v) for i, v in enumerate(vectors) if v is not None]
    for i, vector in given:
        if len(vector) != dimension:
            raise InvalidInput(
                f"embedding has {len(vector)} dimensions; the index needs {dimension}", field=field(i)
            )
    if not given:
        return
    with np.errstate(over="ignore", invalid="ignore"):
        lengths = np.linalg.norm(np.asarray([v for _, v in given], dtype=np.float64), axis=1)
    for (i, _), length in zip(given, lengths, strict=True):
        if not math.isfinite(length) or length == 0.0:
            raise InvalidInput(
                "embedding must be finite numbers with a finite, non-zero length", field=field(i)
            )
