"""Which conversations hear of a decision: the arithmetic of graph/project/notify.py."""

from __future__ import annotations

import math
import statistics

import pytest

from graph.project.notify import (
    MAX_TERMS,
    PRIOR_SD,
    PRIOR_WEIGHT,
    TERM_BONUS,
    Candidate,
    Rule,
    Spread,
    Told,
    candidate,
    choose,
    decision_terms,
    named_terms,
    shared_terms,
    standings,
)

RULE = Rule(min_similarity=0.76, standing=2.1, prior_mean=0.54)


def test_named_terms_are_names_not_sentence_starts() -> None:
    text = (
        "Use PostgreSQL for all services. All services store data in PostgreSQL 16 with Kafka.\nRedis later"
    )
    assert named_terms(text) == {"postgresql", "kafka"}
    assert named_terms("Migrate billing off MySQL; set Cache-Control and Api-Version: 2026-11-01.") == {
        "mysql", "cache-control", "api-version",
    }  # fmt: skip
    assert named_terms("Java21 and v2 URLs, JSONB columns") == {"java21", "v2", "urls", "jsonb"}
    assert named_terms("") == set()


def test_decision_terms_include_its_tags() -> None:
    terms = decision_terms(
        "Kafka is the event backbone", "Events go to Kafka.", ["No RabbitMQ."], ["events", "x y"]
    )
    assert terms == {"kafka", "rabbitmq", "events"}


def test_shared_terms_count_only_the_rare_ones() -> None:
    terms = {"mysql", "api", "cache-control"}
    texts = {
        "a": "Move billing off MySQL",
        "b": "The API broke",
        "c": "Our api clients",
        "d": "the API gateway",
        "e": "Set cache control headers",  # the parts of a hyphenated term count
    }
    shared = shared_terms(terms, texts)
    assert shared == {"a": ["mysql"], "b": [], "c": [], "d": [], "e": ["cache-control"]}


def test_standing_leaves_the_thread_out_and_pools_the_prior() -> None:
    values = [0.50, 0.55, 0.60, 0.80]
    spread = Spread.of([*values, None])
    assert spread.n == 4
    others = [0.50, 0.55, 0.60] + [0.54] * PRIOR_WEIGHT
    mean = statistics.fmean(others)
    # the prior's imaginary threads carry their own spread around their mean
    variance = (sum(v * v for v in others) + PRIOR_WEIGHT * PRIOR_SD**2) / len(others) - mean**2
    assert spread.standing(0.80, 0.54) == pytest.approx((0.80 - mean) / math.sqrt(variance))
    # a user with a single thread is judged against unrelated texts alone
    alone = Spread.of([0.74])
    assert alone.standing(0.74, 0.54) == pytest.approx((0.74 - 0.54) / PRIOR_SD)


def test_a_thread_that_stands_out_is_told_and_one_that_does_not_is_not() -> None:
    crowd = [Candidate(f"t{i}", 0.50 + 0.01 * (i % 5), 0.45 + 0.01 * (i % 5)) for i in range(20)]
    related = Candidate("related", 0.70, 0.60, gist=0.70)
    near = Candidate("near", 0.60, 0.52, gist=0.60)
    told = choose([*crowd, related, near], RULE, {}, limit=50)
    assert [t.thread_id for t in told] == ["related"]
    assert told[0].reason == "standsOut" and told[0].standing is not None and told[0].standing >= 2.0


def test_shared_rare_terms_lift_a_thread_over_the_line() -> None:
    crowd = [Candidate(f"t{i}", 0.50 + 0.01 * (i % 5), 0.50) for i in range(20)]
    close = Candidate("close", 0.585, 0.50)
    base = standings([*crowd, close], RULE)
    assert RULE.standing - TERM_BONUS * MAX_TERMS <= base["close"] < RULE.standing
    assert choose([*crowd, close], RULE, {}, limit=50) == []
    [told] = choose([*crowd, close], RULE, {"close": ["mysql", "postgresql", "jsonb"]}, limit=50)
    assert told.standing == pytest.approx(round(base["close"] + TERM_BONUS * MAX_TERMS, 3))
    assert told.terms == ["mysql", "postgresql", "jsonb"]


def test_similar_sessions_and_the_limit() -> None:
    crowd = [Candidate(f"t{i}", 0.78 + 0.001 * i, 0.5) for i in range(10)]  # all clearly similar
    session = Candidate("s", by_session=True)  # no vector yet: told for its session
    told = choose([*crowd, session], RULE, {}, limit=4)
    assert [t.thread_id for t in told] == ["s", "t9", "t8", "t7"]
    assert [t.reason for t in told] == ["session", "similar", "similar", "similar"]
    assert told[0].standing is None
    assert choose([*crowd, session], RULE, {}, limit=0) == []


def test_other_threads_of_the_user_decide_not_the_number_of_them() -> None:
    """The same thread against the same kind of threads stands the same, however many."""
    few = [Candidate(f"t{i}", 0.50 + 0.02 * (i % 5), 0.5) for i in range(10)]
    many = [Candidate(f"t{i}", 0.50 + 0.02 * (i % 5), 0.5) for i in range(1000)]
    target = Candidate("x", 0.72, 0.5)
    a = standings([*few, target], RULE)["x"]
    b = standings([*many, target], RULE)["x"]
    assert a >= RULE.standing and b >= RULE.standing


def test_a_row_becomes_a_candidate_and_a_told_thread_its_why() -> None:
    row = {"id": "t", "gistAbout": 0.62, "gistWhy": 0.55, "insightAbout": 0.71, "bySession": False}
    assert candidate(row) == Candidate("t", 0.71, 0.55, gist=0.62, insight=0.71)
    bare = {"id": "s", "gistAbout": None, "gistWhy": None, "insightAbout": None, "bySession": True}
    assert candidate(bare) == Candidate("s", by_session=True)
    [told] = choose([candidate(row)], Rule(0.7, 2.1, 0.54), {"t": ["kafka"]}, limit=5)
    assert told.view() == {
        "threadId": "t", "bySession": False, "reason": "similar", "threadSimilarity": 0.62,
        "insightSimilarity": 0.71, "standing": told.standing, "sharedTerms": ["kafka"],
    }  # fmt: skip
    assert Told("s", "session", None, None, None, True).view() == {
        "threadId": "s", "bySession": True, "reason": "session",
    }  # fmt: skip
