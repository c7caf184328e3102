"""No duplicate notes: the twin of a note being created, among the user's active notes or
earlier in the same batch (cosine >= the dedupe threshold, 0.95 by default).

A twin among stored notes is found through the tenant-safe vector plan
(:class:`graph.core.vectors.VectorPlanConfig`): the shared index oversampled for a user
with a large share, an exact scan of their own notes otherwise. Inside one batch, a later
note folds into the nearest earlier one that is itself being created.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from graph.core.gate import Gated
from graph.core.principals import Scope
from graph.core.vectors import VectorPlanConfig, cosine_from_score, score_from_cosine


class Candidate(Protocol):
    """A note about to be created, as dedupe sees it."""

    @property
    def index(self) -> int:
        """Its position in the request."""
        ...

    @property
    def node_id(self) -> str:
        """The id it would be created with."""
        ...

    @property
    def embedding(self) -> list[float]:
        """Its vector."""
        ...


@dataclass(frozen=True)
class Twin:
    """The note a candidate folds into, and how alike the two are."""

    node_id: str
    similarity: float


async def find_twins(
    gated: Gated,
    candidates: Sequence[Candidate],
    *,
    threshold: float,
    plan: VectorPlanConfig,
    scope: Scope | None = None,
) -> dict[int, Twin]:
    """For each candidate (by index), an active note, stored (inside ``scope``, the key's
    entity scope, if any) or earlier in this batch, with cosine >= ``threshold``.

    Runs under the user's write gate, so no twin can be committed between this look and the
    create, and the plan is chosen from the user's exact note count, never a cached one.
    """
    if not candidates:
        return {}
    twins: dict[int, Twin] = {}
    if gated.notes > 0:
        rows = [{"index": c.index, "embedding": c.embedding} for c in candidates]
        params = {"rows": rows, "minScore": score_from_cosine(threshold) - 1e-9, "scope": Scope.of(scope)}
        sample = None
        if gated.notes > plan.exact_max_notes:
            [counts] = await gated.run("queries/knowledge/note_counts")
            # The nearest twin is wanted; asking as for ten keeps the index plan well oversampled.
            sample = plan.index_candidates(10, gated.notes, int(counts["total"]))
        if sample is not None:
            found = await gated.run("queries/knowledge/twins_index", candidates=sample, **params)
        else:
            found = await gated.run("queries/knowledge/twins_exact", **params)
        for row in found:
            if row["matchId"] is not None:
                twins[row["index"]] = Twin(row["matchId"], cosine_from_score(row["score"]))
    # Twins inside the batch: a later note folds into an earlier one that is being created.
    unmatched = [c for c in candidates if c.index not in twins]
    if len(unmatched) > 1:
        matrix = np.array([c.embedding for c in unmatched], dtype=np.float32)
        matrix /= np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
        sims = matrix @ matrix.T
        kept: list[int] = []
        for j, c in enumerate(unmatched):
            best = max(kept, key=lambda k: sims[j, k], default=None)
            if best is not None and sims[j, best] >= threshold:
                twins[c.index] = Twin(unmatched[best].node_id, float(sims[j, best]))
            else:
                kept.append(j)
    return twins
