"""Examples of the date re-ranking prototype (``bench/date_ranking.py``):
``.venv/bin/pytest bench/test_date_ranking.py`` (outside ``make test``, like the bench)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from bench.date_ranking import Candidate, as_of, fuse, recency, with_parts
from graph.knowledge.time_words import Span, window

THURSDAY = datetime(2023, 3, 9, 18, 0, tzinfo=UTC)


def test_re_ranking_steps() -> None:
    day = datetime(2023, 3, 4, 12, tzinfo=UTC)
    a, b, c = (Candidate("a", 0.9, day), Candidate("b", 0.8, datetime(2023, 3, 20, tzinfo=UTC)),
               Candidate("c", 0.7, datetime(2023, 1, 2, tzinfo=UTC)))  # fmt: skip
    assert [x.session for x in as_of([a, b, c], THURSDAY)] == ["a", "c"]
    saturday = Span(date(2023, 3, 4), date(2023, 3, 5), "day", "last Saturday")
    # an event is told of from the day before it until the day asked; a mention near its day
    assert window(saturday, THURSDAY, told=False) == (date(2023, 3, 3), date(2023, 3, 10))
    assert window(saturday, THURSDAY, told=True) == (date(2023, 3, 3), date(2023, 3, 8))
    assert [x.session for x in fuse([[a, b], [c, b]])] == ["b", "a", "c"]
    # recency: a session a day old loses ln(2) / 10 of its score, one a week old ln(8) / 10
    fresh, old = (
        Candidate("fresh", 0.85, THURSDAY),
        Candidate("old", 0.9, datetime(2023, 3, 2, 18, tzinfo=UTC)),
    )
    assert [x.session for x in recency([old, fresh], THURSDAY)] == ["fresh", "old"]
    # parts: the top session, then each part's best not chosen yet, then the rest
    assert [x.session for x in with_parts([a, b, c], [[a, c], [c, b]])] == ["a", "c", "b"]
