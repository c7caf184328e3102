"""Valid time stated in a note's own words: "until 31 March 2027", "since 2024".

A fact is true from ``validFrom`` until ``validUntil`` (either may be open). A caller may
send both; when it sends neither, :func:`stated_validity` reads them from the text, offline
and deterministically: a date right after a word that opens validity (``since``, ``as of``,
``from``, ``starting``, ``effective``, ``beginning``) or closes it (``until``, ``till``,
``through``, ``expires``, ``ends``, ``valid to``), or both in ``from … to …`` and
``between … and …``. Dates are read in the forms people write them:

* ``2027-03-31``; ``31 March 2027``, ``31st of March 2027``, ``March 31, 2027``;
* without a year (``until March 3``), the next such day on or after the reference time
  less half a year (a note written in December about "until March 3" means next March);
* a month (``since June 2025``) or a year (``since 2024``) alone: its first day opens,
  its last day closes.

A closing date includes its whole day: "until 31 March 2027" is valid until
2027-04-01T00:00:00Z. Times are UTC. Dates written with slashes (``03/04/2027``) are not
read: whether the day or the month comes first cannot be told.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from ctxnet.wire.knowledge.validity import millis as millis

_MONTHS = {
    name: number
    for number, names in enumerate(
        (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
         ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
         ("october", "oct"), ("november", "nov"), ("december", "dec")),
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH = r"(?P<{0}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<{0}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{0}>(?:19|20)\d\d)"


#: A year alone ends its clause, or "2000" in "from 2000 clients" would be read as a date.
_YEAR_ALONE = r"(?=\s*(?:[.,;:!?)]|$|\s(?:on|onwards?|and|to|until|till|through|we|i|it|they|the)\b))"


def _date_pattern(tag: str) -> str:
    """One date, its groups suffixed with ``tag`` (ISO; day month year; month day year;
    month year; year)."""
    return (
        rf"(?:(?P<iso{tag}>(?:19|20)\d\d-[01]\d-[0-3]\d)"
        rf"|{_DAY.format('d1' + tag)}(?:\s+of)?\s+{_MONTH.format('m1' + tag)}"
        rf"(?:,?\s+{_YEAR.format('y1' + tag)})?"
        rf"|{_MONTH.format('m2' + tag)}\s+{_DAY.format('d2' + tag)}(?:,?\s+{_YEAR.format('y2' + tag)})?"
        rf"|{_MONTH.format('m3' + tag)},?\s+{_YEAR.format('y3' + tag)}"
        rf"|{_YEAR.format('y4' + tag)}{_YEAR_ALONE})(?![\w-])"
    )


_OPENS = (
    r"since|as\s+of|from|starting(?:\s+(?:on|in|from))?|effective(?:\s+(?:on|from))?"
    r"|beginning(?:\s+(?:on|in))?"
)
_CLOSES = r"until|till|through|thru|expires?(?:\s+(?:on|in))?|ends?(?:\s+(?:on|in))?|valid\s+(?:to|until)"
_THE = r"(?:the\s+)?"
_RANGE = re.compile(
    rf"\b(?:from|between)\s+{_THE}{_date_pattern('a')}\s+(?:to|until|till|through|and|-)\s+{_THE}{_date_pattern('b')}",
    re.IGNORECASE,
)
_OPEN = re.compile(rf"\b(?:{_OPENS})\s+{_THE}{_date_pattern('a')}", re.IGNORECASE)
_CLOSE = re.compile(rf"\b(?:{_CLOSES})\s+{_THE}{_date_pattern('a')}", re.IGNORECASE)


@dataclass(frozen=True)
class Validity:
    """When a fact is true: from ``valid_from`` (inclusive) until ``valid_until`` (exclusive)."""

    valid_from: datetime | None = None
    valid_until: datetime | None = None


@dataclass(frozen=True)
class _Span:
    """What a written date covers: its first moment and the moment after its last."""

    start: datetime
    end: datetime


def _span(match: re.Match[str], tag: str, reference: datetime) -> _Span | None:
    group = match.groupdict()
    try:
        if iso := group.get(f"iso{tag}"):
            day = date.fromisoformat(iso)
            return _days(day, day + timedelta(days=1))
        for form in ("1", "2"):
            if group.get(f"m{form}{tag}"):
                month = _MONTHS[group[f"m{form}{tag}"].lower()]
                number = int(group[f"d{form}{tag}"])
                year = group.get(f"y{form}{tag}")
                day = date(int(year), month, number) if year else _next(month, number, reference)
                return _days(day, day + timedelta(days=1))
        if group.get(f"m3{tag}"):
            month, year = _MONTHS[group[f"m3{tag}"].lower()], int(group[f"y3{tag}"])
            after = date(year + (month == 12), month % 12 + 1, 1)
            return _days(date(year, month, 1), after)
        if year_text := group.get(f"y4{tag}"):
            year = int(year_text)
            return _days(date(year, 1, 1), date(year + 1, 1, 1))
    except ValueError:  # 31 February
        return None
    return None


def _next(month: int, day: int, reference: datetime) -> date:
    """A day given without its year: the first on or after half a year before ``reference``."""
    earliest = (reference - timedelta(days=183)).date()
    candidate = date(earliest.year, month, day)
    return candidate if candidate >= earliest else date(earliest.year + 1, month, day)


def _days(first: date, after: date) -> _Span:
    return _Span(
        datetime(first.year, first.month, first.day, tzinfo=UTC),
        datetime(after.year, after.month, after.day, tzinfo=UTC),
    )


def stated_validity(text: str, reference: datetime) -> Validity:
    """The validity ``text`` states (the first range, opening and closing date it names),
    with ``reference`` (when it was written) placing a date given without its year."""
    opens: datetime | None = None
    closes: datetime | None = None
    if (ranged := _RANGE.search(text)) is not None:
        first, last = _span(ranged, "a", reference), _span(ranged, "b", reference)
        if first is not None and last is not None and first.start < last.end:
            return Validity(first.start, last.end)
    if (opened := _OPEN.search(text)) is not None and (span := _span(opened, "a", reference)) is not None:
        opens = span.start
    if (closed := _CLOSE.search(text)) is not None and (span := _span(closed, "a", reference)) is not None:
        closes = span.end
    if opens is not None and closes is not None and closes <= opens:
        return Validity(opens, None)  # a contradiction in the text: keep what opens it
    return Validity(opens, closes)


def note_validity(
    title: str,
    content: str,
    valid_from: int | None,
    valid_until: int | None,
    reference: datetime | None = None,
) -> dict[str, int | None]:
    """A new note's ``validFrom`` / ``validUntil`` as stored: as sent, or when neither was sent,
    as its text states them (``reference``: when it was written, now by default)."""
    if valid_from is not None or valid_until is not None:
        return {"validFrom": valid_from, "validUntil": valid_until}
    stated = stated_validity(f"{title}. {content}", reference or datetime.now(UTC))
    return {"validFrom": millis(stated.valid_from), "validUntil": millis(stated.valid_until)}


def millis_now() -> int:
    """Now, as valid time is stored."""
    return int(datetime.now(UTC).timestamp() * 1000)


def said_validity(text: str, said_at: int | None) -> tuple[int | None, int | None]:
    """The valid time of a fact drawn from a message said at ``said_at`` (epoch ms): what the
    text states, read against when it was said, and from then when it states no start."""
    if said_at is None:
        return None, None
    stated = stated_validity(text, datetime.fromtimestamp(said_at / 1000, UTC))
    start = millis(stated.valid_from) or said_at
    end = millis(stated.valid_until)
    return start, end if end is None or end > start else None
