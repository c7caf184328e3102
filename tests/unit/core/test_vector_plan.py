"""The one decision between the exact plan and the oversampled index (search, dedupe, recall)."""

from __future__ import annotations

from graph.core.vectors import VectorPlanConfig

PLAN = VectorPlanConfig(exact_max_notes=300, oversample=1.5, min_candidates=100, ann_max_candidates=5_000)


def test_few_notes_are_ranked_exactly() -> None:
    assert PLAN.index_candidates(10, mine=300, total=1_000_000) is None
    assert PLAN.index_candidates(10, mine=0, total=0) is None


def test_a_large_share_asks_for_at_least_the_minimum() -> None:
    assert PLAN.index_candidates(10, mine=100_000, total=100_000) == 100
    assert PLAN.index_candidates(500, mine=100_000, total=100_000) == 750


def test_a_smaller_share_is_oversampled_by_its_inverse() -> None:
    assert PLAN.index_candidates(20, mine=10_000, total=100_000) == 300  # 20 * 1.5 / 0.1


def test_a_share_too_small_to_oversample_falls_back_to_exact() -> None:
    assert PLAN.index_candidates(20, mine=1_000, total=10_000_000) is None  # would need 300,000
