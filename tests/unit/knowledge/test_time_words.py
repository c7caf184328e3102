"""Examples of :func:`graph.knowledge.time_words.read_question`: the spans of time a question
names and the events it compares, read against the day it is asked about."""

from __future__ import annotations

from datetime import UTC, date, datetime

from graph.knowledge.time_words import read_question

#: LongMemEval's question dates name the weekday: Thursday 9 March 2023, 18:00.
THURSDAY = datetime(2023, 3, 9, 18, 0, tzinfo=UTC)


def spans(question: str, asked: datetime = THURSDAY) -> list[tuple[date, date, str]]:
    return [(s.start, s.end, s.unit) for s in read_question(question, asked).spans]


def test_days_and_weeks_ago_name_one_day() -> None:
    assert spans("What kitchen appliance did I buy 10 days ago?") == [
        (date(2023, 2, 27), date(2023, 2, 28), "day")
    ]
    assert spans("I mentioned cooking something a couple of days ago.") == [
        (date(2023, 3, 7), date(2023, 3, 8), "day")
    ]
    assert spans("What did I do two weeks ago?") == [(date(2023, 2, 23), date(2023, 2, 24), "week")]
    assert spans("What charity event did I do a month ago?") == [
        (date(2023, 2, 9), date(2023, 2, 10), "month")
    ]
    assert spans("a few days ago") == [(date(2023, 3, 6), date(2023, 3, 7), "day")]


def test_a_question_that_asks_how_long_ago_names_no_span() -> None:
    assert spans("How many days ago did I buy a smoker?") == []
    assert spans("How many weeks ago did I meet up with my aunt?") == []
    assert spans("What was the first issue I had with my new car after its first service?") == []


def test_weekdays_weekends_and_yesterday_are_the_latest_before_the_day_asked() -> None:
    assert spans("I received a piece of jewelry last Saturday from whom?") == [
        (date(2023, 3, 4), date(2023, 3, 5), "day")
    ]
    # last Thursday, asked on a Thursday, is a week back
    assert spans("Who did I meet last Thursday?") == [(date(2023, 3, 2), date(2023, 3, 3), "day")]
    assert spans("Which bike did I service the past weekend?") == [
        (date(2023, 3, 4), date(2023, 3, 6), "day")
    ]
    assert spans("What did I cook yesterday?") == [(date(2023, 3, 8), date(2023, 3, 9), "day")]
    assert spans("What time do I wake up on Saturday mornings?") == []


def test_calendar_units_and_months() -> None:
    assert spans("Where did I go last week?") == [(date(2023, 2, 27), date(2023, 3, 6), "week")]
    assert spans("Which shoes did I clean last month?") == [(date(2023, 2, 1), date(2023, 3, 1), "month")]
    assert spans("What did I do last year?") == [(date(2022, 1, 1), date(2023, 1, 1), "year")]
    assert spans("How many trips in the past three months?") == [
        (date(2022, 12, 9), date(2023, 3, 10), "since")
    ]
    assert spans("What did I watch in the past month?") == [(date(2023, 2, 9), date(2023, 3, 10), "since")]
    # a month after the one asked in is last year's
    assert spans("Which airline did I fly with in March and April?") == [
        (date(2023, 3, 1), date(2023, 4, 1), "month"),
        (date(2022, 4, 1), date(2022, 5, 1), "month"),
    ]
    assert spans("How many days ago did I read the March 15th issue?") == [
        (date(2022, 3, 15), date(2022, 3, 16), "day")
    ]
    assert spans("What airline did I fly with on Valentine's day?") == [
        (date(2023, 2, 14), date(2023, 2, 15), "day")
    ]
    assert spans("How many pieces have I written since I started again three weeks ago?") == [
        (date(2023, 2, 16), date(2023, 3, 10), "since")
    ]


def test_compared_events_are_parts() -> None:
    def parts(question: str) -> tuple[str, ...]:
        return read_question(question, THURSDAY).parts

    assert parts(
        "How many days passed between the day I fixed my mountain bike and the day I upgraded my pedals?"
    ) == (
        "I fixed my mountain bike",
        "I upgraded my pedals",
    )
    assert parts("Which device did I set up first, the smart thermostat or the new router?") == (
        "the smart thermostat",
        "the new router",
    )
    assert parts("Who became a parent first, Rachel or Alex?") == ("Rachel", "Alex")
    assert parts("How long had I been taking guitar lessons when I bought the new guitar amp?") == (
        "taking guitar lessons",
        "I bought the new guitar amp",
    )
    assert parts("What is the order of the three events: 'I signed up at ShopRite', "
                 "'I used a coupon at Walmart', and 'I redeemed $12 cashback'?") == (
        "I signed up at ShopRite", "I used a coupon at Walmart", "I redeemed $12 cashback",
    )  # fmt: skip
    assert parts("How old was I when I moved to the United States?") == ()
    assert parts("Did I visit with a friend or not?") == ()
