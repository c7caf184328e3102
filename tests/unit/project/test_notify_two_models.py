"""A decision's standing among a user's threads by two models (graph/project/notify.py): each
comparison's standing within each model's own cosines, against its own prior, the best taken;
a thread without the second model's vector judged by the embedder's alone."""

from __future__ import annotations

import pytest

from graph.core.embeddings import MINILM, notify_model
from graph.core.settings import Settings
from graph.project.affected import DecisionVectors, NotifyConfig
from graph.project.notify import PRIOR_BELOW_FLOOR, Candidate, Rule, Spread, candidate, choose, standings

ONE = Rule(min_similarity=0.76, standing=2.3, prior_mean=0.54)
TWO = Rule(min_similarity=0.76, standing=2.3, prior_mean=0.54, second_prior_mean=0.24)


def crowd(n: int = 20) -> list[Candidate]:
    """Unrelated threads: bge-small around 0.50, MiniLM around 0.20."""
    return [
        Candidate(
            f"t{i}", 0.50 + 0.01 * (i % 5), 0.48, part=0.5, about2=0.20 + 0.01 * (i % 4), why2=0.2, part2=0.2
        )
        for i in range(n)
    ]


def test_the_standing_is_the_best_z_of_either_model_each_against_its_own_threads() -> None:
    # bge-small sees nothing special; MiniLM puts it far above the user's other threads.
    target = Candidate("x", 0.55, 0.48, part=0.5, about2=0.45, why2=0.2, part2=0.3)
    threads = [*crowd(), target]
    one, two = standings(threads, ONE)["x"], standings(threads, TWO)["x"]
    assert one < ONE.standing <= two
    # each comparison's standing among the same model's cosines of that comparison
    spreads = {k: Spread.of(getattr(c, k) for c in threads) for k in ("about2", "why2", "part2")}
    second = max(spreads[k].standing(getattr(target, k), 0.24) for k in spreads)
    assert two == pytest.approx(max(one, second))
    assert [t.thread_id for t in choose(threads, TWO, {}, limit=50)] == ["x"]
    assert choose(threads, ONE, {}, limit=50) == []


def test_a_thread_the_embedder_ranks_keeps_its_standing() -> None:
    # the max never lowers a standing: what bge-small alone tells, both models tell
    target = Candidate("x", 0.70, 0.60, part=0.6, about2=0.21, why2=0.2, part2=0.2)
    threads = [*crowd(), target]
    assert standings(threads, TWO)["x"] == pytest.approx(standings(threads, ONE)["x"])


def test_a_thread_without_the_second_models_vector_is_judged_by_the_embedders_alone() -> None:
    old = Candidate("old", 0.56, 0.48, part=0.5)  # gist embedded before the second model, or by another
    threads = [*crowd(), old]
    assert standings(threads, TWO)["old"] == standings(threads, ONE)["old"]
    # nor does it enter the second model's spread: a thread MiniLM ranks stands the same beside it
    target = Candidate("x", 0.55, 0.48, part=0.5, about2=0.45, why2=0.2, part2=0.3)
    assert standings([*crowd(), target, old], TWO)["x"] == standings([*crowd(), target], TWO)["x"]


def test_without_a_second_prior_its_cosines_are_not_used() -> None:
    threads = [*crowd(), Candidate("x", 0.55, 0.48, part=0.5, about2=0.9, why2=0.9, part2=0.9)]
    bare = [Candidate(c.thread_id, c.about, c.why, part=c.part) for c in threads]
    assert standings(threads, ONE) == standings(bare, ONE)


def test_a_row_with_the_second_models_cosines() -> None:
    row = {
        "id": "t", "gistAbout": 0.62, "gistWhy": 0.55, "insightAbout": None, "gistPart": 0.6,
        "gistAbout2": 0.31, "gistWhy2": 0.22, "gistPart2": 0.4, "bySession": False,
    }  # fmt: skip
    assert candidate(row) == Candidate(
        "t", 0.62, 0.55, gist=0.62, part=0.6, about2=0.31, why2=0.22, part2=0.4
    )


def test_the_decisions_vectors_as_the_statement_takes_them() -> None:
    first = [[1.0], [2.0], [3.0], [4.0]]  # note, what it decides, why, a consequence
    second = [[5.0], [6.0], [7.0], [8.0]]
    assert DecisionVectors(first).params() == {
        "about": [2.0], "why": [3.0], "parts": [[1.0], [4.0]], "notifyModel": None, "second": [],
    }  # fmt: skip
    both = DecisionVectors(first, second, MINILM.model_id).params()
    assert both["notifyModel"] == MINILM.model_id
    assert both["second"] == [[6.0], [7.0], [5.0], [8.0]]  # what it decides, why, then the parts


def test_the_second_model_from_the_settings() -> None:
    default = Settings(decision_notify_second_model="all-MiniLM-L6-v2", local_model="bge-small-en-v1.5")
    assert notify_model(default) is MINILM
    config = NotifyConfig.from_settings(default)
    assert config.second_prior_mean == round(MINILM.relevance_floor - PRIOR_BELOW_FLOOR, 3) == 0.24
    assert config.rule == TWO
    disabled = Settings(decision_notify_second_model="", local_model="bge-small-en-v1.5")
    assert notify_model(disabled) is None
    assert NotifyConfig.from_settings(disabled).second_prior_mean is None
    # the embedder's own model is no second opinion
    assert (
        notify_model(
            Settings(decision_notify_second_model="all-MiniLM-L6-v2", local_model="all-MiniLM-L6-v2")
        )
        is None
    )
