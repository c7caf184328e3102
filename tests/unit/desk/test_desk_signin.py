"""The sign-in throttle's arithmetic and its promise to read nothing for a refused attempt,
and the edit form's digests, without a database (a counter in a dict stands in for Neo4j)."""

from __future__ import annotations

from typing import Any, cast

import pytest

from api.desk.notes import as_sent, digest
from graph.core.db import Database
from graph.core.errors import RateLimited
from graph.core.ratelimit import Allowance, SignInThrottle, free_in


class Counts:
    """``signin_fail`` and ``api_key_owner`` as Neo4j answers them, and every call made."""

    def __init__(self, owner: str | None = None) -> None:
        self.windows: dict[tuple[str, int], int] = {}
        self.calls: list[str] = []
        self.owner = owner

    async def write(self, query: str, **params: Any) -> list[dict[str, Any]]:
        self.calls.append(query)
        key = (params["subject"], params["window"])
        self.windows[key] = self.windows.get(key, 0) + 1
        previous = self.windows.get((params["subject"], params["window"] - 1), 0)
        return [{"previous": previous, "current": self.windows[key]}]

    async def read(self, query: str, **params: Any) -> list[dict[str, Any]]:
        self.calls.append(query)
        return [{"userId": self.owner}] if self.owner else []


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_one_more_failure_fits_when_the_sliding_window_has_room() -> None:
    five = Allowance(5, 60)
    assert free_in(five, previous=0, current=4, elapsed=0.5) == 0
    # Full this minute: to the minute's end, then until its weight falls to 4 of 5.
    assert free_in(five, previous=0, current=5, elapsed=0.5) == pytest.approx(30 + 0.2 * 60)
    # Room in this minute once the last one's weight falls: 4 * (1 - e) + 2 + 1 <= 5 at e = 0.5.
    assert free_in(five, previous=4, current=2, elapsed=0.25) == pytest.approx(0.25 * 60)
    assert free_in(Allowance(1, 900), previous=0, current=1, elapsed=0.0) == pytest.approx(1800)


async def test_a_refused_client_is_answered_without_a_read() -> None:
    counts, clock = Counts(), Clock(6_000.0)  # the start of a minute
    throttle = SignInThrottle(cast(Database, counts), Allowance(3, 60), Allowance(0, 60), clock)
    for _ in range(3):
        throttle.check("10.0.0.1", "ctxn_wrong")
        await throttle.failed("10.0.0.1", "ctxn_wrong")
    calls = len(counts.calls)
    with pytest.raises(RateLimited) as refused:
        throttle.check("10.0.0.1", "ctxn_right")
    assert len(counts.calls) == calls and refused.value.retry_after == 60 + 20
    throttle.check("10.0.0.2", "ctxn_right")  # another client
    clock.now += 80
    throttle.check("10.0.0.1", "ctxn_right")  # and the first one again, once it fits


async def test_a_persons_key_prefix_is_refused_for_them_from_any_client() -> None:
    counts, clock = Counts(owner="alice"), Clock(9_000.0)
    throttle = SignInThrottle(cast(Database, counts), Allowance(0, 60), Allowance(2, 900), clock)
    key = "ctxn_abcdef" + "x" * 37
    for n in range(2):
        await throttle.failed(f"10.0.0.{n}", key[:-1] + "y")
    calls = len(counts.calls)
    with pytest.raises(RateLimited):
        throttle.check("10.9.9.9", key)  # the right key, from a new client
    assert len(counts.calls) == calls
    throttle.check("10.9.9.9", "ctxn_zzzzzz" + "x" * 37)  # a key of no one known


async def test_a_failure_past_the_allowance_is_answered_429() -> None:
    """Another process counted the failures: this one learns it from its own next failure."""
    counts, clock = Counts(), Clock(12_000.0)
    counts.windows[("signin:client:10.0.0.1", 200)] = 5
    throttle = SignInThrottle(cast(Database, counts), Allowance(5, 60), Allowance(0, 60), clock)
    throttle.check("10.0.0.1", "ctxn_wrong")
    with pytest.raises(RateLimited):
        await throttle.failed("10.0.0.1", "ctxn_wrong")


def test_the_edit_form_digest_takes_a_browsers_line_breaks_as_the_stored_ones() -> None:
    assert digest("a\r\nb") == digest("a\nb") != digest("a b")
    assert digest(None) == digest("")
    # A lone CR comes back from a textarea as a line break; a title's <input> drops CR and LF.
    assert digest("a\rb") == digest("a\r\nb") == digest("a\nb")
    assert digest("Line\nTwo", "title") == digest("LineTwo", "title") == digest("Line\r\nTwo", "title")
    assert digest("Line\nTwo", "title") != digest("Line Two", "title")
    assert as_sent("a\rb\r\nc", "content") == "a\nb\nc" and as_sent("a\r\nb", "title") == "ab"
