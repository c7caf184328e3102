"""Telling an update from a restatement (graph/knowledge/updates.py), on the labelled pairs
bench/dedupe.py calibrates with and on the cases the rule must keep apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph.knowledge.updates import compare

DATA = Path(__file__).resolve().parents[3] / "bench" / "data"
LABELLED = json.loads((DATA / "updates.json").read_text())
TWINS = json.loads((DATA / "twins.json").read_text())

#: Changes of place in plain lowercase words carry no value the rule reads (a known limit,
#: docs/retrieval.md): neither reaches the default embedder's threshold.
PLACES = {
    "The user keeps their old sneakers in a shoe rack in the closet.",
    'The painting "Ethereal Dreams" by Emma Taylor hangs above the bed in the bedroom.',
}


@pytest.mark.parametrize(
    ("old", "new"),
    [pair for pairs in LABELLED["updates"].values() for pair in pairs if pair[1] not in PLACES],
)
def test_a_changed_value_is_an_update(old: str, new: str) -> None:
    assert compare(old, new) is not None


@pytest.mark.parametrize(
    ("old", "new"), LABELLED["restatements"] + [[old[1], new[1]] for old, new in TWINS["same"]]
)
def test_the_same_values_in_other_words_are_a_restatement(old: str, new: str) -> None:
    assert compare(old, new) is None


def test_only_the_two_known_place_changes_are_missed() -> None:
    missed = {
        new for pairs in LABELLED["updates"].values() for old, new in pairs if compare(old, new) is None
    }
    assert missed == PLACES


@pytest.mark.parametrize(
    ("old", "new", "kinds", "supersedes"),
    [
        ("The bank account ends in 2210.", "The bank account now ends in 8875.", {"number"}, True),
        ("Standup is at 9am.", "Standup is at 10:00.", {"time"}, True),
        ("Logs are kept for 14 days.", "Logs are kept for three weeks.", {"quantity"}, True),
        ("Deploys happen on Tuesdays.", "Deploys happen on Thursdays.", {"weekday"}, True),
        ("The release is on 14 March.", "The release is on 14 April.", {"month"}, True),
        ("The API supports pagination.", "The API does not support pagination.", {"negation"}, True),
        ("Alice owns the billing service.", "Bob owns the billing service.", {"name"}, True),
        ("Rachel moved to Chicago.", "Rachel moved back to the suburbs.", {"name"}, True),
        ("The job runs in eu-central-1.", "The job runs in eu-west-1.", {"name"}, True),
        # A name and a value changed: another subject, or a corrected value? They conflict.
        ("The Q3 budget is 50,000 euros.", "The Q4 budget is 80,000 euros.", {"name", "number"}, False),
    ],
)
def test_what_changed_and_whether_it_supersedes(
    old: str, new: str, kinds: set[str], supersedes: bool
) -> None:
    change = compare(old, new)
    assert change is not None and change.kinds == kinds and change.supersedes is supersedes


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The cache keeps entries for 30 minutes.", "Cache entries expire after half an hour."),
        ("Backups run at 2am.", "Backups run at two in the morning."),
        ("The budget is $12,000.", "The budget is 12,000 dollars."),
        ("The team works in Central European Time.", "Our team's timezone is CET."),
        ("The Q3 budget is 50,000 euros.", "Marketing may spend 50,000 EUR in the third quarter."),
        ("Tom is away until March 3.", "Tom is on holiday until the 3rd of March."),
        ("The user has 3 cats.", "The user has three cats, all of them black."),
        ("The server has 16GB of RAM.", "The server has 16 GB of RAM."),
    ],
)
def test_units_spellings_and_abbreviations_are_read_as_the_same_value(old: str, new: str) -> None:
    assert compare(old, new) is None
