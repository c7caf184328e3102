"""A new note's candidates (the stored notes it is compared with) are the same whether found
through the shared vector index or by an exact scan of the user's notes, for a user whose
nearest notes are crowded by another user's and for one whose are alone."""

from __future__ import annotations

import numpy as np

from graph.core.db import Database
from graph.core.gate import Gated, WriteGate
from graph.core.vectors import VectorPlanConfig
from graph.knowledge.dedupe import Twin, stored_candidates
from tests.integration.conftest import MakeCaller
from tests.integration.knowledge.test_search_plans import DIM, clustered, load

FLOOR = 0.8
#: The index plan for a user of any size, its minimum of candidates lowered so that the
#: oversampling for the user's share is what finds her notes among the crowd's.
INDEX = VectorPlanConfig(exact_max_notes=0, min_candidates=10, ann_max_candidates=20_000)
EXACT = VectorPlanConfig(exact_max_notes=1_000_000)


class New:
    """A note about to be created, as dedupe reads it."""

    def __init__(self, index: int, vector: np.ndarray) -> None:
        self.index = index
        self.node_id = f"new-{index}"
        self.embedding = vector.tolist()
        self.text = (f"new {index}", "synthetic")


async def candidates(
    db: Database, user: str, notes: list[New], plan: VectorPlanConfig
) -> dict[int, list[Twin]]:
    async def work(gated: Gated) -> dict[int, list[Twin]]:
        return await stored_candidates(gated, notes, floor=FLOOR, plan=plan)

    return await WriteGate(db).write(user, work)


async def test_index_and_exact_scan_give_a_note_the_same_candidates(
    make_caller: MakeCaller, db: Database
) -> None:
    rng = np.random.default_rng(47)
    centers = rng.standard_normal((40, DIM))
    crowd, alice = await make_caller(), await make_caller()
    # the crowd fills the first 20 areas (40 notes each); alice holds 6 notes in each of all 40
    await load(crowd, clustered(rng, 800, centers[:20]), "crowd-")
    mine = np.concatenate([clustered(rng, 6, centers[c : c + 1]) for c in range(40)])
    await load(alice, mine, "alice-")
    far = rng.standard_normal((5, DIM))
    queries = np.concatenate([clustered(rng, 40, centers), far / np.linalg.norm(far, axis=1, keepdims=True)])
    notes = [New(i, q) for i, q in enumerate(queries)]

    exact = await candidates(db, alice.user_id, notes, EXACT)
    through_index = await candidates(db, alice.user_id, notes, INDEX)
    assert through_index == exact
    assert all(len(found) == 4 for i, found in exact.items() if i < 40)  # each area holds 6 of hers
    assert not any(i >= 40 for i in exact)  # far from every note: none
