"""Which conversations hear of a decision: the arithmetic of graph/project/notify.py."""

from __future__ import annotations

import math
import statistics

import pytest

from graph.project.notify import (
    EVENT_PENALTY,
    MAX_TERMS,
    PRIOR_SD,
    PRIOR_WEIGHT,
    REPLACED_BONUS,
    TERM_BONUS,
    Candidate,
    Rule,
    Spread,
    Told,
    candidate,
    choose,
    decision_terms,
    decision_texts,
    decision_words,
    event_threads,
    named_terms,
    replaced_terms,
    shared_terms,
    standings,
    tell,
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
    row = {
        "id": "t",
        "gistAbout": 0.62,
        "gistWhy": 0.55,
        "insightAbout": 0.71,
        "gistPart": 0.6,
        "bySession": False,
    }
    assert candidate(row) == Candidate("t", 0.71, 0.55, gist=0.62, insight=0.71, part=0.6)
    bare = {
        "id": "s",
        "gistAbout": None,
        "gistWhy": None,
        "insightAbout": None,
        "gistPart": None,
        "bySession": True,
    }
    assert candidate(bare) == Candidate("s", by_session=True)
    [told] = choose([candidate(row)], Rule(0.7, 2.1, 0.54), {"t": ["kafka"]}, limit=5)
    assert told.view() == {
        "threadId": "t", "bySession": False, "reason": "similar", "threadSimilarity": 0.62,
        "insightSimilarity": 0.71, "standing": told.standing, "sharedTerms": ["kafka"],
    }  # fmt: skip
    assert Told("s", "session", None, None, None, True).view() == {
        "threadId": "s", "bySession": True, "reason": "session",
    }  # fmt: skip


def test_what_a_decision_replaces() -> None:
    assert replaced_terms(
        "Use PostgreSQL for all services", "All services store their data in PostgreSQL 16.",
        ["Migrate billing off MySQL.", "No new MongoDB or Redis databases."],
    ) == {"mysql", "mongodb", "redis"}  # fmt: skip
    assert replaced_terms("Dagster replaces Airflow", "New pipelines are Dagster assets.", []) == {"airflow"}
    assert replaced_terms("Kafka", "Jobs move from RabbitMQ to Kafka and Pulumi is not used.", []) == {
        "rabbitmq", "pulumi",
    }  # fmt: skip
    # what it adopts, or reads from, is not what it replaces
    assert (
        replaced_terms("Secrets", "Services read secrets from AWS Secrets Manager.", ["Use Kafka."]) == set()
    )
    assert decision_words("Events go to Kafka", "Move off RabbitMQ.", [], ["events"]) == (
        {"kafka", "rabbitmq", "events"},
        {"rabbitmq"},
    )


def test_a_thread_about_an_event_is_one_whose_topic_is() -> None:
    texts = {
        "club": "Book club: Designing Data-Intensive Applications\nKafka's log abstraction",
        "kubecon": "KubeCon Paris: talks to see\nany talks on cluster upgrades?",
        "lag": "Reporting replica keeps lagging\nI'll talk to the DBA about MySQL 5.7",  # not its topic
    }
    assert event_threads(texts) == {"club", "kubecon"}


def test_a_replaced_technology_counts_however_many_threads_mention_it() -> None:
    texts = {t: f"thread {t}\nstill on MySQL 5.7" for t in "abcd"} | {"e": "thread e\nPostgreSQL"}
    shared = shared_terms({"mysql", "postgresql"}, texts, {"mysql"})
    assert shared == {"a": ["mysql"], "b": ["mysql"], "c": ["mysql"], "d": ["mysql"], "e": ["postgresql"]}
    assert shared_terms({"mysql", "postgresql"}, texts)["a"] == []  # without it, too common to count


def test_replaced_terms_lift_and_events_drop() -> None:
    crowd = [Candidate(f"t{i}", 0.50 + 0.01 * (i % 5), 0.50) for i in range(20)]
    lagging, club = Candidate("lagging", 0.58, 0.50), Candidate("club", 0.62, 0.50)
    base = standings([*crowd, lagging, club], RULE)
    assert base["lagging"] + TERM_BONUS < RULE.standing <= base["lagging"] + TERM_BONUS + REPLACED_BONUS
    assert base["club"] + TERM_BONUS >= RULE.standing
    texts = {"lagging": "Reporting replica lags\nMySQL 5.7 replica", "club": "Book club\nKafka's log"}
    told = tell([*crowd, lagging, club], RULE, ({"kafka", "mysql"}, {"mysql"}), texts, limit=50)
    assert [(t.thread_id, t.terms) for t in told] == [("lagging", ["mysql"])]
    assert told[0].standing == pytest.approx(round(base["lagging"] + TERM_BONUS + REPLACED_BONUS, 3))
    # the club shares Kafka, but as a book, not a system: no bonus, and the penalty
    told = choose([*crowd, club], Rule(0.76, -5.0, 0.54), {"club": ["kafka"]}, 50, events={"club"})
    at_club = next(t for t in told if t.thread_id == "club")
    assert at_club.standing == pytest.approx(
        round(standings([*crowd, club], RULE)["club"] - EVENT_PENALTY, 3)
    )


def test_a_decision_is_embedded_as_its_note_what_it_decides_why_and_its_parts() -> None:
    texts = decision_texts(
        "Use PostgreSQL", "All services use PostgreSQL.", ["Migrate billing.", "No MongoDB."], "Ctx"
    )
    assert texts == [
        "Use PostgreSQL\nAll services use PostgreSQL.",
        "Use PostgreSQL\nAll services use PostgreSQL.\nMigrate billing.\nNo MongoDB.\nCtx",
        "Use PostgreSQL\nCtx",
        "Use PostgreSQL\nMigrate billing.",
        "Use PostgreSQL\nNo MongoDB.",
    ]
    assert len(decision_texts("T", "B", [], "")) == 3


def test_a_thread_about_one_consequence_stands_out_by_its_part() -> None:
    """Its cosine to the whole decision is the crowd's, to one consequence it is not: it stands
    out on the parts' own spread; without the parts' cosines (``None``) it would not."""
    crowd = [Candidate(f"t{i}", 0.50 + 0.01 * (i % 5), 0.50, part=0.48 + 0.01 * (i % 5)) for i in range(20)]
    billing = Candidate("billing", 0.53, 0.50, part=0.66)
    base = standings([*crowd, billing], RULE)
    about_only = standings([*crowd, Candidate("billing", 0.53, 0.50)], RULE)
    assert about_only["billing"] < RULE.standing <= base["billing"]
    [told] = choose([*crowd, billing], RULE, {}, limit=50)
    assert (told.thread_id, told.reason) == ("billing", "standsOut")
