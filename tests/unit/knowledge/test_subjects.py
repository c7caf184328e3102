"""Updates told from siblings by rule (graph/knowledge/subjects.py), on generated shapes: every
pair of a family of siblings stays side by side, whatever the numbers; an update in other
words is one; a long text or a question is not for the rule."""

from __future__ import annotations

import itertools

import pytest

from graph.knowledge.dedupe import undecided
from graph.knowledge.subjects import Relation, relate

ORDINALS = ["first", "second", "third", "fourth", "fifth"]
PEOPLE = ["Dana", "Marco", "Zoë", "Øystein", "José", "Łukasz"]
FAMILIES = {
    "replicas": [f"Replica {n} of the orders database lives in rack {10 + n}." for n in range(1, 6)],
    "replicas in words": [f"Replica {w} of the payments database is in zone eu-west-{n}." for n, w in
                          enumerate(["one", "two", "three"], start=1)],
    "invoices": [f"Invoice {2210 + n} was paid on March {3 + n}." for n in range(4)],
    "hosts": [f"The host web-0{n} runs nginx {n}.{n + 20}." for n in range(1, 5)],
    "ordinals": [f"The {w} step of the release is {s}." for w, s in
                 zip(ORDINALS, ["tagging", "the notes", "the build", "the deploy", "the news"], strict=True)],
    "people": [f"{p}'s standup is at {9 + i}:{15 * (i % 4):02d}." for i, p in enumerate(PEOPLE)],
    "quarters": [f"The Q{q} budget for the launch is {q * 20},000 euros." for q in range(1, 5)],
    "nodes": [f"Node {c} of the backup cluster stores {k} snapshots." for c, k in
              zip("ABC", ["weekly", "monthly", "yearly"], strict=True)],
    "components": ["The API runs Python 3.11.", "The worker runs Python 3.12.", "The cron runs Python 3.10."],
    "places": [f"The {c} office opens at {h} am." for c, h in (("Berlin", 8), ("Munich", 9), ("Lisbon", 10))],
    "periods": [f"In {y} the team shipped {n} releases." for y, n in ((2022, 3), (2023, 4), (2024, 7))],
}  # fmt: skip


@pytest.mark.parametrize("family", FAMILIES)
def test_siblings_never_supersede_each_other(family: str) -> None:
    """Every ordered pair of a family, at any similarity: never an update or a conflict."""
    for old, new in itertools.permutations(FAMILIES[family], 2):
        for twin in (False, True):
            relation, _ = relate("", old, "", new, twin=twin)
            assert not relation.changes, (old, new, twin, relation)


UPDATES = [
    ("Dana's standup is at 9:30 every weekday.", "Dana moved her daily standup to 10:15."),
    ("Priya's phone number is 555-0142.", "Priya has a new number: 555-0199."),
    ("The user drives a 2015 Honda Civic.", "The user sold the Civic and now drives a Tesla Model 3."),
    ("The staging database listens on port 5432.", "The staging database now listens on port 6432."),
    ("The user's bank account ends in 2210.", "The user's bank account now ends in 8875."),
    ("The public API supports pagination.", "The public API no longer supports pagination."),
]


@pytest.mark.parametrize(("old", "new"), UPDATES)
def test_an_update_in_other_words_is_one(old: str, new: str) -> None:
    relation, _ = relate("", old, "", new)
    assert relation is Relation.UPDATE, relation


NEAR_MISSES = [
    ("The staging database listens on port 5432.", "The staging database holds 40 GB."),
    ("Priya's phone number is 555-0142.", "Priya's email is priya@acme.io."),
    ("Dana's standup is at 9:30.", "Dana's standup lasts 15 minutes."),
    ("The user's laptop has 16 GB of RAM.", "The user's laptop has 512 GB of storage."),
]


@pytest.mark.parametrize(("old", "new"), NEAR_MISSES)
def test_another_property_of_the_subject_is_no_change(old: str, new: str) -> None:
    for twin in (False, True):
        relation, _ = relate("", old, "", new, twin=twin)
        assert not relation.changes, (relation, twin)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "The user keeps old sneakers under the bed.",
            "The user keeps old sneakers in a shoe rack in the closet.",
        ),
        ("Release 2.3 is planned for 14 March.", "Release 2.3 is scheduled for March 14."),
    ],
)
def test_a_restatement_folds_and_a_plain_words_value_is_left_to_a_model(old: str, new: str) -> None:
    """Same values: a near twin folds; below the threshold the pair is left undecided."""
    assert relate("", old, "", new, twin=True)[0] is Relation.RESTATEMENT
    relation, _ = relate("", old, "", new)
    assert relation is Relation.RESTATEMENT and undecided(relation, near_twin=False)


def test_long_texts_and_questions_are_not_for_the_rule() -> None:
    turn = (
        "Sure! Here is how staging works. The staging database listens on port 5432. "
        "The cache sits beside it. Backups run every night."
    )
    later = turn.replace("5432", "6432")
    for old, new in ((turn, later), ("Is the standup at 9:30?", "The standup is at 10:15.")):
        relation, _ = relate("", old, "", new, twin=True)
        assert relation is Relation.UNCLEAR and undecided(relation, near_twin=True)
