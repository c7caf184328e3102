"""What a new note is to the notes it resembles: a restatement folded into its twin, an
update of one of them, or a fact of its own.

For each note being created, the user's active notes nearest to it (inside the key's scope)
at or above the model's update floor are its **candidates**, and so are the earlier notes of
the same batch that are created. :func:`decide` reads each pair with
:func:`graph.knowledge.subjects.relate`, in a worker thread, and walks the batch in order:

* the nearest candidate at or above the dedupe threshold (0.92 with bge-small), if the rule
  calls the new note a restatement of it, is its **twin**: the new note folds into it;
* else the nearest candidate the rule calls an update (or a conflict) is the note it
  **changes** (``supersedes``, or ``conflictsWith``);
* else it is created beside them: a sibling (another replica, invoice, person, period), a
  near miss (another property of the subject) or an unrelated note is no change.

Stored candidates are found through the tenant-safe vector plan
(:class:`graph.core.vectors.VectorPlanConfig`): the shared index oversampled for a user with
a large share, an exact scan of their own notes otherwise.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from graph.core.gate import Gated
from graph.core.principals import Scope
from graph.core.vectors import VectorPlanConfig, cosine_from_score, score_from_cosine
from graph.knowledge.subjects import Relation, relate
from graph.knowledge.updates import Change

#: How many stored notes a new note is compared with at most, the nearest first.
CANDIDATES = 4


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

    @property
    def text(self) -> tuple[str, str]:
        """Its title and content."""
        ...


@dataclass(frozen=True)
class Twin:
    """A note a candidate resembles, and how alike the two are."""

    node_id: str
    similarity: float


@dataclass(frozen=True)
class Decision:
    """What a new note does: fold into ``twin``, or change ``changes`` (by ``relation``)."""

    twin: Twin | None = None
    changes: Twin | None = None
    relation: Relation | None = None
    change: Change | None = None


def undecided(relation: Relation, near_twin: bool) -> bool:
    """Whether the rule left a pair of notes undecided, for a model to judge (never on the
    write path): a conflict (which value is current is unclear), a near miss or a restatement
    below the dedupe threshold (the rule read no new value of the same property; a value in
    plain words, "under the bed" then "in the hall closet", is one it cannot read). A sibling,
    an unrelated note, an update and a fold are decided."""
    return relation in (Relation.CONFLICT, Relation.NEAR_MISS, Relation.UNCLEAR) or (
        relation is Relation.RESTATEMENT and not near_twin
    )


@dataclass(frozen=True)
class Thresholds:
    """The cosines of a fold (``dedupe``) and of a comparison (``floor``)."""

    dedupe: float
    floor: float


async def stored_candidates(
    gated: Gated,
    candidates: Sequence[Candidate],
    *,
    floor: float,
    plan: VectorPlanConfig,
    scope: Scope | None = None,
    limit: int = CANDIDATES,
) -> dict[int, list[Twin]]:
    """For each candidate (by index), the user's active notes (inside ``scope``) at or above
    ``floor``, the nearest first, at most ``limit`` (a stored note looking for its own
    candidates asks for one more: it is its own nearest).

    Runs under the user's write gate, so no note can be committed between this look and the
    create, and the plan is chosen from the user's exact note count, never a cached one.
    """
    if not candidates or gated.notes == 0:
        return {}
    rows = [{"index": c.index, "embedding": c.embedding} for c in candidates]
    params = {
        "rows": rows,
        "minScore": score_from_cosine(floor) - 1e-9,
        "scope": Scope.of(scope),
        "limit": limit,
    }
    sample = None
    if gated.notes > plan.exact_max_notes:
        [counts] = await gated.run("queries/knowledge/note_counts")
        # The nearest are wanted; asking as for ten keeps the index plan well oversampled.
        sample = plan.index_candidates(10, gated.notes, int(counts["total"]))
    if sample is not None:
        found = await gated.run_listed("queries/knowledge/twins_index", candidates=sample, **params)
    else:
        found = await gated.run_listed("queries/knowledge/twins_exact", **params)
    near: dict[int, list[Twin]] = {}
    for row in found:
        near[row["index"]] = [Twin(m["id"], cosine_from_score(m["score"])) for m in row["matches"]]
    return near


def _batch_similarities(candidates: Sequence[Candidate]) -> np.ndarray:
    matrix = np.array([c.embedding for c in candidates], dtype=np.float32)
    matrix /= np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
    return matrix @ matrix.T


def _walk(
    candidates: Sequence[Candidate],
    stored: dict[int, list[Twin]],
    texts: dict[str, tuple[str, str]],
    limits: Thresholds,
) -> dict[int, Decision]:
    """The decisions, in the batch's order (run in a worker thread: it reads texts)."""
    sims = _batch_similarities(candidates) if len(candidates) > 1 else np.zeros((1, 1))
    created = np.zeros(len(candidates), dtype=bool)  # the earlier notes of the batch that are created
    decisions: dict[int, Decision] = {}
    for j, c in enumerate(candidates):
        near = list(stored.get(c.index, []))
        earlier = np.nonzero(created[:j] & (sims[j, :j] >= limits.floor))[0]
        near += [Twin(candidates[int(k)].node_id, float(sims[j, k])) for k in earlier]
        near.sort(key=lambda t: -t.similarity)
        decision = Decision()
        for rank, twin in enumerate(near[:CANDIDATES]):  # the nearest, stored or in the batch
            near_twin = rank == 0 and twin.similarity >= limits.dedupe
            relation, change = relate(*texts[twin.node_id], *c.text, twin=near_twin)
            if near_twin and relation is Relation.RESTATEMENT:
                decision = Decision(twin=twin)
                break
            if relation.changes:
                decision = Decision(changes=twin, relation=relation, change=change)
                break
        decisions[c.index] = decision
        created[j] = decision.twin is None
    return decisions


async def decide(
    gated: Gated,
    candidates: Sequence[Candidate],
    stored_texts: dict[str, tuple[str, str]],
    stored: dict[int, list[Twin]],
    limits: Thresholds,
) -> dict[int, Decision]:
    """Each candidate's :class:`Decision` (by index): ``stored`` are its stored candidates
    (:func:`stored_candidates`) and ``stored_texts`` their titles and contents."""
    if not candidates:
        return {}
    texts = dict(stored_texts) | {c.node_id: c.text for c in candidates}
    if not stored and len(candidates) == 1:
        return {candidates[0].index: Decision()}
    return await asyncio.to_thread(_walk, candidates, stored, texts, limits)
