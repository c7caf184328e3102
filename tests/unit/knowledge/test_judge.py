"""Which pairs the judge asks about: those a create's walk meets undecided, with older notes
only, and none past where the create decided (no database: the walk alone)."""

from __future__ import annotations

from typing import Any

from graph.knowledge.dedupe import Thresholds, Twin
from graph.knowledge.judge import _Looking, _walk

LIMITS = Thresholds(dedupe=0.92, floor=0.72)
DOORMAT = ("Spare key", "The spare key is under the doormat.")
LOCKBOX = ("Spare key", "We keep the spare key in the lockbox by the garage.")
PORT_OLD = ("Fact", "The staging database listens on port 5432.")
PORT_NEW = ("Fact", "The staging database listens on port 6432.")


def known(**notes: tuple[tuple[str, str], int]) -> dict[str, Any]:
    """Notes by id: their text and the write that created them."""
    return {i: {"title": t[0], "content": t[1], "seq": seq, "part": 0} for i, (t, seq) in notes.items()}


def test_an_undecided_pair_is_older_then_newer() -> None:
    notes = known(doormat=(DOORMAT, 1), lockbox=(LOCKBOX, 2))
    near = {
        0: [Twin("lockbox", 1.0), Twin("doormat", 0.79)],
        1: [Twin("doormat", 1.0), Twin("lockbox", 0.79)],
    }
    looking = [_Looking(0, "lockbox", [], LOCKBOX), _Looking(1, "doormat", [], DOORMAT)]
    found = _walk(looking, near, notes, LIMITS)
    assert list(found) == ["lockbox"]  # the doormat note is older than anything it resembles
    [pair] = found["lockbox"]
    assert (pair.older, pair.newer, pair.relation, pair.key) == (
        "doormat",
        "lockbox",
        "restatement",
        "doormat>lockbox",
    )


def test_the_walk_stops_where_the_create_decided() -> None:
    notes = known(port=(PORT_OLD, 1), doormat=(DOORMAT, 2), newport=(PORT_NEW, 3))
    # The nearest is an update the rule decides: nothing after it is asked.
    near = {0: [Twin("port", 0.96), Twin("doormat", 0.8)]}
    assert _walk([_Looking(0, "newport", [], PORT_NEW)], near, notes, LIMITS) == {}
    # A near twin the rule calls a restatement would have been folded: decided too.
    again = ("Spare key", "The spare key is under the doormat!")
    notes = known(a=(DOORMAT, 1), b=(again, 2))
    assert _walk([_Looking(0, "b", [], again)], {0: [Twin("a", 0.99)]}, notes, LIMITS) == {}
