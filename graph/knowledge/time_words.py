"""Time in a question, read offline against the time it is asked about (what search with
``readDates`` reads; ``graph.knowledge.dated_search`` ranks with it).

:func:`read_question` is a pure function. It reads the time expressions of a question
("last Saturday", "two weeks ago", "in March", "yesterday", "last month", "a few days ago",
"the past weekend", "in the past three months", "on Valentine's day", "March 15th") as the
span of time they name, given when the question was asked, and the events a question
compares ("how many days between X and Y", "which did I do first, X or Y", "the order of
'A', 'B' and 'C'", "how long had I been X when Y") as separate parts. "How many days ago
did I ...", "the first time" and "most recently" ask for a time or an order and name no
span: they are read as nothing. :func:`window` widens a span into the days a note telling of
it may have begun. ``tests/unit/knowledge/test_time_words.py`` holds the examples.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")  # fmt: skip
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a couple": 2,
    "couple of": 2, "a few": 3, "few": 3, "several": 4,
}  # fmt: skip
_NUMBER = r"(\d{1,3}|a couple of|a couple|couple of|a few|few|several|an|a|one|two|three|four|five|six" \
          r"|seven|eight|nine|ten|eleven|twelve)"  # fmt: skip
_UNIT = r"(day|week|month|year)s?"
_AGO = re.compile(rf"\b{_NUMBER} {_UNIT} ago\b", re.IGNORECASE)
_PAST = re.compile(rf"\b(?:the |these )?(?:past|last) (?:{_NUMBER} )?{_UNIT}\b", re.IGNORECASE)
#: "last Saturday", "on Monday"; not a habit ("on Saturday mornings", "on Saturdays").
_LAST_WEEKDAY = re.compile(
    rf"\b(?:last|this past|past|on) ({'|'.join(WEEKDAYS)})\b(?! (?:morning|afternoon|evening|night)s)",
    re.IGNORECASE,
)
_WEEKEND = re.compile(r"\b(?:last|this past|past) weekend\b", re.IGNORECASE)
_MONTH = "|".join(m.capitalize() for m in MONTHS)
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_MONTH_DAY = re.compile(rf"\b({_MONTH}) {_DAY}\b|\bthe {_DAY} of ({_MONTH})\b")
_IN_MONTH = re.compile(rf"\b(?:in|during|of|since|early|late|mid|mid-|and) ({_MONTH})\b")
_HOLIDAYS = {
    "valentine": (2, 14), "christmas eve": (12, 24), "christmas": (12, 25), "new year's eve": (12, 31),
    "new year's day": (1, 1), "halloween": (10, 31), "fourth of july": (7, 4), "independence day": (7, 4),
}  # fmt: skip
_HOLIDAY = re.compile("|".join(re.escape(h) for h in _HOLIDAYS), re.IGNORECASE)
_TOLD = re.compile(
    r"\b(?:I|we) (?:mentioned|told you|talked about|said|asked you|brought up)\b", re.IGNORECASE
)
_ASKS_HOW_LONG = re.compile(r"\bhow (?:many|much|long)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Span:
    """A span of time a question names: from ``start`` (inclusive) until ``end`` (exclusive), in
    whole days; ``unit`` says how exactly it was stated (``day``, ``week``, ``month``, ``year``, or
    ``since`` for "in the past N ...", which runs up to the day asked)."""

    start: date
    end: date
    unit: str
    said: str


@dataclass(frozen=True)
class Reading:
    """What a question says about time: the spans it names, the events it compares, and
    whether a span is when the user ``told`` of something ("I mentioned ... two weeks ago")
    rather than when it happened."""

    spans: tuple[Span, ...] = ()
    parts: tuple[str, ...] = ()
    told: bool = False


def _count(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[word.lower()]


def _months_back(day: date, months: int) -> date:
    """The same day of the month ``months`` earlier (the month's last day when it is shorter)."""
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    for d in (day.day, 30, 29, 28):
        try:
            return date(year, month + 1, d)
        except ValueError:
            continue
    raise AssertionError("unreachable")


def _back(day: date, n: int, unit: str) -> date:
    if unit == "day":
        return day - timedelta(days=n)
    if unit == "week":
        return day - timedelta(weeks=n)
    if unit == "month":
        return _months_back(day, n)
    return _months_back(day, 12 * n)


def _month_span(month: int, today: date) -> tuple[date, date]:
    """The latest such month that began on or before ``today``."""
    year = today.year if month <= today.month else today.year - 1
    end = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return date(year, month, 1), end


def _last_date(month: int, day: int, today: date) -> date | None:
    """The latest ``month``/``day`` on or before ``today``; None when no such date exists."""
    for year in (today.year, today.year - 1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            return None
        if candidate <= today:
            return candidate
    return None


def _spans(question: str, today: date) -> list[Span]:
    spans: list[Span] = []
    one_day = timedelta(days=1)
    for m in _AGO.finditer(question):
        n, unit = _count(m[1]), m[2].lower()
        if _ASKS_HOW_LONG.search(question[max(0, m.start() - 20) : m.start()]):
            continue  # "how many days ago": the question asks for the time
        at = _back(today, n, unit)
        if re.search(r"\bsince\b", question[: m.start()], re.IGNORECASE):
            spans.append(Span(at, today + one_day, "since", m[0]))  # "since I started ... 3 weeks ago"
        else:
            spans.append(Span(at, at + one_day, unit, m[0]))
    for m in _PAST.finditer(question):
        unit = m[2].lower()
        if m[1] is None and not m[0].lower().startswith(("the", "these")):
            # "last week", "last month", "last year": the calendar unit before this one
            if unit == "week":
                monday = today - timedelta(days=today.weekday())
                spans.append(Span(monday - timedelta(weeks=1), monday, unit, m[0]))
            elif unit == "month":
                first = today.replace(day=1)
                spans.append(Span(_months_back(first, 1), first, unit, m[0]))
            elif unit == "year":
                spans.append(Span(date(today.year - 1, 1, 1), date(today.year, 1, 1), unit, m[0]))
            continue
        n = _count(m[1]) if m[1] else 1
        spans.append(Span(_back(today, n, unit), today + one_day, "since", m[0]))
    for m in _LAST_WEEKDAY.finditer(question):
        back = (today.weekday() - WEEKDAYS.index(m[1].lower())) % 7 or 7
        spans.append(Span(today - timedelta(days=back), today - timedelta(days=back - 1), "day", m[0]))
    for m in _WEEKEND.finditer(question):
        saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
        spans.append(Span(saturday, saturday + 2 * one_day, "day", m[0]))
    if re.search(r"\byesterday\b", question, re.IGNORECASE):
        spans.append(Span(today - one_day, today, "day", "yesterday"))
    dated: set[int] = set()
    for m in _MONTH_DAY.finditer(question):
        month, day = (m[1], m[2]) if m[1] else (m[4], m[3])
        index = MONTHS.index(month.lower()) + 1
        dated.add(index)
        named = _last_date(index, int(day), today)
        if named is not None:
            spans.append(Span(named, named + one_day, "day", m[0]))
    for m in _IN_MONTH.finditer(question):
        index = MONTHS.index(m[1].lower()) + 1
        if index not in dated:
            start, end = _month_span(index, today)
            spans.append(Span(start, end, "month", m[0]))
    for m in _HOLIDAY.finditer(question):
        holiday = _last_date(*_HOLIDAYS[m[0].lower()], today)
        if holiday is not None:
            spans.append(Span(holiday, holiday + one_day, "day", m[0]))
    return spans


_QUOTED = re.compile(r"(?:^|(?<=[\s:(]))['‘\"“](.{3,}?)['’\"”](?=[\s,.;:?)]|$)")
_ORDER = re.compile(r"\border\b.*?:\s*(.+)$", re.IGNORECASE)
_THE_DAY = re.compile(r",? (?:and )?(?=the (?:day|time) )", re.IGNORECASE)
_BETWEEN = re.compile(r"\bbetween (.+?) and (.+)$", re.IGNORECASE)
_EITHER = re.compile(r",\s*([^,]+?)\s+or\s+([^,]+)$", re.IGNORECASE)
_HOW = re.compile(r"^how (?:many|much|long|old)\b", re.IGNORECASE)
#: "how long had I been X when Y", "how many days before X did I Y"
_X_THEN_Y = re.compile(r"\b(?:since|been|before|after) (.+?) (?:when|did) (.+)$", re.IGNORECASE)
_CONNECTOR = re.compile(r" (?:when|before|after|since) ", re.IGNORECASE)
_PART_LEAD = re.compile(r"^(?:the (?:day|time|date) (?:when )?|when |that )", re.IGNORECASE)
#: Words that tell no event apart: a part needs another word to be searched on its own.
_FILLER = frozenset(re.findall(r"\w+", """
    a an the i me my to of in on at for and or did do does was were is am have has had been be how many
    much long old days weeks months years day week month year which what who first passed ago it
"""))  # fmt: skip


def _clean(part: str) -> str:
    return _PART_LEAD.sub("", part.strip(" ,.?:;'\"")).strip()


def _split(text: str) -> list[str]:
    quoted = [q for q in _QUOTED.findall(text) if len(q.split()) >= 2]
    if len(quoted) >= 2 and re.search(r"\border\b", text, re.IGNORECASE):
        return quoted
    if m := _ORDER.search(text):
        return _THE_DAY.split(m[1])
    if m := _BETWEEN.search(text):
        return [m[1], m[2]]
    if m := _EITHER.search(text):
        return [m[1], m[2]]
    if _HOW.search(text):
        if m := _X_THEN_Y.search(text):
            return [m[1], m[2]]
        return _CONNECTOR.split(text, maxsplit=1)
    return []


def _parts(question: str) -> list[str]:
    """The events a question compares, each to be searched on its own (none when it names one)."""
    parts = [_clean(p) for p in _split(question.strip().rstrip("?. "))]
    telling = [p for p in parts if any(w not in _FILLER for w in re.findall(r"\w+", p.lower()))]
    return telling if len(telling) >= 2 and len(telling) == len(parts) else []


def read_question(question: str, asked: datetime) -> Reading:
    """The spans of time ``question`` names, asked at ``asked``, and the events it compares."""
    spans = tuple(_spans(question, asked.date()))
    return Reading(spans, tuple(_parts(question)), bool(spans) and bool(_TOLD.search(question)))


#: Days a span is widened by before its start and after its end, by how it was stated: "last
#: Saturday" is a day, "two weeks ago" about a week either side, "a month ago" ten days.
SLACK: dict[str, tuple[int, int]] = {
    "day": (1, 3),
    "week": (4, 4),
    "month": (10, 10),
    "year": (30, 30),
    "since": (1, 0),
}


def window(span: Span, asked: datetime, told: bool) -> tuple[date, date]:
    """The days a note telling of ``span`` may have begun, from the first until the second
    (exclusive): an event is told of on its day or any day after, up to the day asked; when
    the question says the user told of it then ("I mentioned ... two weeks ago"), and for a
    calendar span ("in the past month"), the span itself, widened by :data:`SLACK`."""
    before, after = SLACK[span.unit]
    last = asked.date() + timedelta(days=1)
    end = span.end + timedelta(days=after) if told or span.unit == "since" else last
    return span.start - timedelta(days=before), min(end, last)
