"""An update is not a restatement: a near-twin that changes a value is a new fact.

Dedupe folds a new note into an active one whose cosine reaches the threshold. Cosine
cannot tell "the bank account ends in 2210" from "the bank account now ends in 8875": the
two differ by one value and embed almost alike (0.954 with the default embedder). Folding
the second into the first would keep the stale value and bury the new one in the merge
records. So before folding, :func:`compare` reads the values each text states, offline and
deterministically (no model):

* numbers, in digits or words (``3``, ``three``, ``3rd``, ``50,000``, ``$12,000``, ``2.5k``);
* quantities with a unit of time, in seconds (``30 minutes`` = ``half an hour``,
  ``14 days`` = ``two weeks``, ``every other week``, ``daily``);
* clock times (``9am`` = ``9:00`` = ``nine in the morning``), months and weekdays;
* names: capitalised words inside a sentence, a capitalised first word the other text
  does not use, ``#channels``, ``@handles``, currencies, quarters (``Q3`` = ``third quarter``),
  and the initials of a run of capitalised words (``Central European Time`` = ``CET``);
* a negation (``not``, ``never``, ``no``, ``n't``, ``without``) on one side only;
* a change cue on the new side only (``now``, ``no longer``, ``anymore``, ``instead``,
  ``switched``, ``moved``, ``back``, …), which settles a value present on one side only.

A kind of value differs when both texts state values of that kind and neither's set holds
the other's (``3`` against ``3 and 4`` is a restatement that adds; ``3`` against ``4`` is an
update). The result says what changed; :attr:`Change.supersedes` is whether the new text
is plainly the same statement with a new value (it supersedes the old), or whether a name
changed together with another value (``the Q3 budget is 50,000`` against ``the Q4 budget is
80,000``), where the service cannot tell an update from another fact: then the two are
kept side by side, joined by ``conflictsWith``.

Calibrated in ``bench/dedupe.py`` on labelled pairs (``bench/data/updates.json``): changed
values from LongMemEval's knowledge-update questions and hand-written ones, and
restatements that say the same values in other words (docs/retrieval.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "hundred": 100, "thousand": 1000, "once": 1, "twice": 2, "thrice": 3,
    "single": 1, "dozen": 12, "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
_MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "dozen": 12}
_YEAR = 31_536_000.0
_UNITS = {
    **dict.fromkeys(("second", "seconds", "sec", "secs"), 1.0),
    **dict.fromkeys(("minute", "minutes", "min", "mins"), 60.0),
    **dict.fromkeys(("hour", "hours", "hr", "hrs"), 3600.0),
    **dict.fromkeys(("day", "days", "night", "nights"), 86400.0),
    **dict.fromkeys(("week", "weeks"), 604800.0),
    "fortnight": 1_209_600.0,
    **dict.fromkeys(("month", "months"), _YEAR / 12),
    **dict.fromkeys(("year", "years"), _YEAR),
}
_PERIODIC = {"daily": "day", "nightly": "day", "weekly": "week", "fortnightly": "fortnight",
             "monthly": "month", "yearly": "year", "annually": "year"}  # fmt: skip
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
_WEEKDAYS = {
    name: number
    for number, names in enumerate(
        (("monday", "mondays"), ("tuesday", "tuesdays"), ("wednesday", "wednesdays"),
         ("thursday", "thursdays"), ("friday", "fridays"), ("saturday", "saturdays"),
         ("sunday", "sundays"))
    )
    for name in names
}  # fmt: skip
_CURRENCIES = {"euro": "eur", "euros": "eur", "eur": "eur", "dollar": "usd", "dollars": "usd",
               "usd": "usd", "pound": "gbp", "pounds": "gbp", "gbp": "gbp"}  # fmt: skip
_CURRENCY_SIGNS = {"$": "usd", "€": "eur", "£": "gbp"}
_NEGATIONS = {"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot"}
_CUES = {"now", "anymore", "instead", "switched", "changed", "moved", "back", "new", "currently",
         "became", "becomes", "replaced", "longer"}  # fmt: skip
#: Capitalised words that start sentences without naming anything.
_COMMON = {
    "the", "a", "an", "i", "we", "our", "my", "it", "its", "this", "that", "these", "those",
    "user", "users", "every", "each", "there", "he", "she", "they", "you", "their", "his", "her",
    "all", "some", "most", "any", "use", "run", "keep", "do", "always", "never", "if", "when",
    "as", "in", "on", "at", "for", "to", "since", "until", "after", "before", "what", "who",
    "how", "why", "where", "also", "so", "but", "and", "or", "one", "two", "three", "note",
}  # fmt: skip
_PRONOUN_BEFORE = {"the", "no", "any", "every", "which", "this", "that", "each"}

_TIME = re.compile(r"\b(\d{1,2})(?::(\d\d))?\s*([ap])\.?m\b\.?|\b(\d{1,2}):(\d\d)\b", re.IGNORECASE)
_SPOKEN_TIME = re.compile(r"\b(\w+)(?: o'clock)? in the (morning|afternoon|evening)\b", re.IGNORECASE)
_HALF_PAST = re.compile(r"\bhalf past (\w+)\b", re.IGNORECASE)
_EVERY = re.compile(
    r"\bevery (other |second )?(day|night|week|month|year)\b|\b(" + "|".join(_PERIODIC) + r")\b",
    re.IGNORECASE,
)
_QUARTER = re.compile(r"\b(first|second|third|fourth) quarter\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?:;])\s+|\n+")
_TOKEN = re.compile(
    r"[$€£]\d[\d,]*(?:\.\d+)?[km]?"  # an amount of money
    r"|[#@][\w-]+"  # a channel, a handle
    r"|[A-Za-z][\w.-]*\d[\w-]*"  # an identifier with a digit: Q3, eu-west-1, F-150, GT350R
    r"|\d[\d,]*(?:\.\d+)?[A-Za-z%]*"  # a number, perhaps with a suffix: 3rd, 15k, 16GB
    r"|[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]"  # a word
)
_WORD = re.compile(r"[A-Za-z0-9]+")


@dataclass
class Values:
    """The values one text states (see the module docstring)."""

    numbers: set[float] = field(default_factory=set)
    quantities: set[float] = field(default_factory=set)
    times: set[tuple[int, int]] = field(default_factory=set)
    months: set[int] = field(default_factory=set)
    weekdays: set[int] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    #: Capitalised first words of sentences: names only if the other text lacks the word.
    initials: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    negated: bool = False
    cues: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Change:
    """What differs between a stored note and its near-twin: the kinds of value that changed."""

    kinds: frozenset[str]

    @property
    def supersedes(self) -> bool:
        """The same statement with a new value (else a name changed beside another value,
        and which fact is current cannot be told: the two conflict)."""
        return not ("name" in self.kinds and len(self.kinds) > 1)


def _number(token: str) -> float | None:
    low = token.lower().replace(",", "")
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([a-z%]*)", low)
    if match:
        return float(match.group(1)) * {"k": 1e3, "m": 1e6}.get(match.group(2), 1.0)
    word = _NUMBER_WORDS.get(low)
    return None if word is None else float(word)


def _hour(word: str) -> int | None:
    number = _number(word)
    return int(number) if number is not None and 0 < number <= 12 else None


@lru_cache(maxsize=4096)
def values(text: str) -> Values:
    """The values ``text`` states (cached: a batch compares one text with several; the
    answer is read, never changed)."""
    out = Values(words={w.lower() for w in _WORD.findall(text)})
    rest = text
    for match in _TIME.finditer(rest):
        if match.group(3):
            hour, minute = int(match.group(1)), int(match.group(2) or 0)
            if match.group(3).lower() == "p" and hour < 12:
                hour += 12
            elif match.group(3).lower() == "a" and hour == 12:
                hour = 0
        else:
            hour, minute = int(match.group(4)), int(match.group(5))
        out.times.add((hour, minute))
    rest = _TIME.sub(" ", rest)
    for match in _HALF_PAST.finditer(rest):
        if (spoken := _hour(match.group(1))) is not None:
            out.times.add((spoken, 30))
    rest = _HALF_PAST.sub(" ", rest)
    for match in _SPOKEN_TIME.finditer(rest):
        if (spoken := _hour(match.group(1))) is not None:
            later = match.group(2).lower() != "morning" and spoken < 12
            out.times.add((spoken + 12 if later else spoken, 0))
            rest = rest.replace(match.group(0), " ", 1)
    for match in _EVERY.finditer(rest):
        unit = match.group(2) or _PERIODIC[match.group(3).lower()]
        out.quantities.add(_UNITS[unit.lower()] * (2 if match.group(1) else 1))
    rest = _EVERY.sub(" ", rest)
    for match in _QUARTER.finditer(rest):
        out.names.add(f"q{_NUMBER_WORDS[match.group(1).lower()]}")
    rest = _QUARTER.sub(" ", rest)
    for sentence in _SENTENCES.split(rest):
        _read_sentence(_TOKEN.findall(sentence), out)
    # The initials of a run of capitalised words stand for them ("Central European Time").
    for run in re.findall(r"(?:[A-Z][a-z]+\s+){1,4}[A-Z][a-z]+", text):
        out.names.add("".join(word[0] for word in run.split()).lower())
    return out


def _read_sentence(tokens: list[str], out: Values) -> None:
    lower = [t.lower() for t in tokens]
    i = 0
    while i < len(tokens):
        token, low = tokens[i], lower[i]
        following = lower[i + 1] if i + 1 < len(lower) else ""
        if low in ("a", "an") and following in _UNITS:
            out.quantities.add(_UNITS[following])
            i += 2
            continue
        if low == "half" and following in ("a", "an") and i + 2 < len(lower) and lower[i + 2] in _UNITS:
            out.quantities.add(0.5 * _UNITS[lower[i + 2]])
            i += 3
            continue
        if token[0] in _CURRENCY_SIGNS:
            out.names.add(_CURRENCY_SIGNS[token[0]])
            token = low = token[1:]
        number = _number(token) if token[0].isdigit() or low in _NUMBER_WORDS else None
        if number is not None:
            j = i + 1
            while j < len(lower) and lower[j] in _MULTIPLIERS:
                number *= _MULTIPLIERS[lower[j]]
                j += 1
            if j < len(lower) and lower[j] in _UNITS:
                out.quantities.add(number * _UNITS[lower[j]])
                i = j + 1
                continue
            if j < len(lower) and lower[j] in _MONTHS and number <= 31:
                out.months.add(_MONTHS[lower[j]])
            pronoun = low == "one" and (
                (i and lower[i - 1] in _PRONOUN_BEFORE) or (j < len(lower) and lower[j] in ("of", "another"))
            )
            if not pronoun:
                out.numbers.add(number)
            i = j
            continue
        spelled_month = len(low) > 3 or token[0].isupper()
        if low in _MONTHS and spelled_month and (low != "may" or (i and token[0] == "M")):
            out.months.add(_MONTHS[low])
        elif low in _WEEKDAYS:
            out.weekdays.add(_WEEKDAYS[low])
        elif low in _NEGATIONS or low.endswith(("n't", "n’t")):
            out.negated = not out.negated
        elif low in _CURRENCIES:
            out.names.add(_CURRENCIES[low])
        elif token[0] in "#@" or any(c.isdigit() for c in token):  # an identifier
            out.names.add(low)
        elif token[0].isupper() and low not in _COMMON:
            (out.initials if i == 0 else out.names).add(low)
        if low in _CUES:
            out.cues.add(low)
        i += 1


def _canon(quantities: set[float]) -> set[float]:
    """Quantities equal within a few per cent (six months and half a year)."""
    return {float(f"{q:.2g}") for q in quantities}


def _differs(old: set, new: set) -> bool:  # type: ignore[type-arg]
    return bool(old) and bool(new) and not (new <= old or old <= new)


def compare(old: str, new: str) -> Change | None:
    """What value ``new`` changes in ``old`` (``None``: it restates it, and may fold in)."""
    a, b = values(old), values(new)
    kinds: set[str] = set()
    if a.negated != b.negated:
        kinds.add("negation")
    if _differs(_canon(a.quantities), _canon(b.quantities)):
        kinds.add("quantity")
    for kind in ("times", "months", "weekdays"):
        if _differs(getattr(a, kind), getattr(b, kind)):
            kinds.add(kind.rstrip("s"))
    cue = bool(b.cues - a.cues) or ("longer" in b.cues and "no" in b.words)
    # A bare number the other side says as a quantity ("2 hours" and "two") is no change.
    numbers_a = a.numbers - {q / u for q in b.quantities for u in _UNITS.values()}
    numbers_b = b.numbers - {q / u for q in a.quantities for u in _UNITS.values()}
    if _differs(numbers_a, numbers_b) or (cue and numbers_a != numbers_b):
        kinds.add("number")
    names_a = a.names | {n for n in a.initials if n not in b.words}
    names_b = b.names | {n for n in b.initials if n not in a.words}
    only_a = {n for n in names_a - names_b if n not in b.words and not any(n in m or m in n for m in names_b)}
    only_b = {n for n in names_b - names_a if n not in a.words and not any(n in m or m in n for m in names_a)}
    if (only_a and only_b) or (cue and (only_a or only_b)):
        kinds.add("name")
    return Change(frozenset(kinds)) if kinds else None
