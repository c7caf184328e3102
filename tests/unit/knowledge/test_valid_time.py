"""The valid time a note states in its own words (graph/knowledge/valid_time.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graph.knowledge.valid_time import stated_validity

#: When the notes below were written.
WRITTEN = datetime(2026, 12, 2, 15, 30, tzinfo=UTC)


def day(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "valid_from", "valid_until"),
    [
        ("The contract runs until 31 March 2027.", None, "2027-04-01"),  # the whole last day
        ("The trial expires on March 31st, 2027.", None, "2027-04-01"),
        ("Prices are valid until 2026-12-31.", None, "2027-01-01"),
        ("Offer valid through the 15th of January.", None, "2027-01-16"),  # next January
        ("Tom is on vacation until March 3.", None, "2027-03-04"),
        ("The office was closed until 20 November.", None, "2026-11-21"),  # a recent past day
        ("We have used Postgres since 2024.", "2024-01-01", None),
        ("Since 2024 we use Postgres.", "2024-01-01", None),
        ("Since June 2025 the team works remotely.", "2025-06-01", None),
        ("As of 1 May 2026, deploys need two approvals.", "2026-05-01", None),
        ("Effective January 2027 the rate limit is 200.", "2027-01-01", None),
        ("The freeze lasts from 20 December 2026 to 4 January 2027.", "2026-12-20", "2027-01-05"),
        ("Between 2010 and 2020 the office was in Berlin.", "2010-01-01", "2021-01-01"),
        ("Valid until 2027", None, "2028-01-01"),
        # No date: nothing stated.
        ("Since I started, things changed.", None, None),
        ("The API serves requests from the team.", None, None),
        # A number that only looks like a year is no date.
        ("The service takes requests from 2000 clients.", None, None),
        ("It runs through 2000 iterations.", None, None),
        # Dates that cannot be read are not guessed.
        ("Until 31 February 2027 nothing changes.", None, None),
        ("Valid until 03/04/2027.", None, None),
    ],
)
def test_stated_validity(text: str, valid_from: str | None, valid_until: str | None) -> None:
    stated = stated_validity(text, WRITTEN)
    assert (stated.valid_from, stated.valid_until) == (day(valid_from), day(valid_until))


def test_a_closing_date_before_the_opening_one_keeps_the_opening() -> None:
    stated = stated_validity("Since 2026 and until 2024, oddly.", WRITTEN)
    assert (stated.valid_from, stated.valid_until) == (day("2026-01-01"), None)
