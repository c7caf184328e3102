"""Who or what a note is about, which property it states, and which value: told apart by
rule, from the text, so that an update is told from a sibling in any wording.

Cosine finds notes that resemble a new one; it cannot say whether the two are one fact with
a new value, the same fact restated, or two facts side by side. "Replica 1 of the orders
database lives in rack 11." and "Replica 2 ... rack 12." embed almost alike and are both
true; "Dana's standup is at 9:30 every weekday." and "Dana moved her daily standup to
10:15." share fewer words and the second replaces the first. :func:`relate` reads both
notes, offline and deterministically (no model), in three parts:

* **the subject**: the words of the first sentence before its main verb ("Replica 1 of
  the orders database", "Dana"), with the user ("I", "the user") and pronouns standing for
  anyone, and the title's ids and names. Its markers (ids, numbers, ordinals, names,
  periods) must not differ ("replica 1" and "replica 2", "invoice 2210" and "invoice 2211",
  "Dana's standup" and "Marco's standup", "the Q3 budget" and "the Q4 budget"), nor its head
  noun ("the billing database" and "the billing service") or a modifier the other note never
  says ("the worker pods" and "the web pods"); its words must meet the other's, or name the
  other's subject elsewhere ("The gym membership costs $45." and "I pay $52 a month for the
  gym."). A value that differs and names the subject ("the 2nd floor of the office") is a
  sibling's;
* **the property**: the words beside the values that differ ("port" 5432, 16 GB of "RAM",
  three "bikes") and the kinds of those values (money, a time, a year, a quantity, a
  version, a name): other words on both sides, or other kinds, are another property;
* **the value**: what :func:`graph.knowledge.updates.compare` reads (numbers, quantities,
  times, dates, names, negation, a change cue on the new side). No value changed: a
  restatement, unless the new note says in words that it replaced the old ("now a sage
  green", "stopped using Redis").

Below the dedupe threshold an update needs evidence (the same words beside the values, a
change cue, a denial), else the pair is left undecided (:func:`graph.knowledge.dedupe.undecided`)
for a model to judge. A long text or a question is not one statement: ``UNCLEAR``.

The answer is one :class:`Relation`; only an ``UPDATE`` (or ``CONFLICT``) changes what is
current. Calibrated on the fitted half of ``bench/data/update_pairs_*.json`` and measured
on the held-out half (``python -m bench.update_pairs``, docs/retrieval.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from graph.knowledge.statement_words import (
    _ANYONE,
    _CHANGED,
    _CHANGED_PAIRS,
    _MODIFIERS,
    _ORDINALS,
    _PERIOD_BEFORE,
    _PERIOD_WORDS,
    _RELATIVE,
    _SEASONS,
    _STOP,
    _UNIT_WORDS,
    _USER,
    _WORD,
    _content,
    _is_verb,
    _numeric,
    _stem,
    _value,
)
from graph.knowledge.updates import _COMMON, _CUES, _MONTHS, _NUMBER_WORDS, _WEEKDAYS, Change, compare


class Relation(Enum):
    """What a new note is to an older one."""

    UPDATE = "update"  # the same property of the same subject, a new value: supersedes
    CONFLICT = "conflict"  # a new value, but which is current cannot be told: conflictsWith
    RESTATEMENT = "restatement"  # the same values: folds in when it is a near twin
    SIBLING = "sibling"  # another subject (an id, an ordinal, a person, a place, a period)
    NEAR_MISS = "near_miss"  # the same subject, another property
    UNCLEAR = "unclear"  # not one statement (a question, or many sentences): not for a rule
    UNRELATED = "unrelated"  # nothing of the property in common

    @property
    def changes(self) -> bool:
        """Whether this relation makes the older note no longer (plainly) current."""
        return self in (Relation.UPDATE, Relation.CONFLICT)


@dataclass(frozen=True)
class Reading:
    """One note as :func:`relate` sees it."""

    subject: frozenset[str]  # words of the subject (the user and pronouns left out)
    markers: frozenset[str]  # its ids, numbers, ordinals, names and periods
    #: Each subject word's nearest word on either side: (word, "<" or ">", neighbour).
    neighbours: frozenset[tuple[str, str, str]]
    frame: frozenset[str]  # every content word outside the values, cues and the user
    head: str | None = None  # the subject's head noun: "database" of "the billing database"


def _subject_words(words: list[str], title: list[str], names: set[str]) -> tuple[set[str], set[str]]:
    """The words and the markers (ids, numbers, ordinals, names, periods) of a subject."""
    out: set[str] = set()
    markers: set[str] = set()
    for i, word in enumerate(words):
        low = word.lower().replace("’", "'")
        following = words[i + 1].lower() if i + 1 < len(words) else ""
        if low in _USER and not following.startswith("'"):
            out.add("@user")
        elif low in _RELATIVE and _stem(following) in _PERIOD_WORDS:
            markers.add(f"{low}-{_stem(following)}")
        elif _numeric(word) or (len(word) == 1 and word.isupper() and i > 0 and word != "I"):
            markers.add(low)
        elif _stem(word) in names or (word[0].isupper() and i > 0 and low not in _COMMON):
            markers.add(_stem(word))
        else:
            out |= _content([word])
    # The title's ids and names (a word the content capitalises inside a sentence, or one with
    # a digit) are the subject's, unless the content states them as a value.
    markers |= {_stem(w) for w in title if _numeric(w) or _stem(w) in names}
    return out - markers, markers


def _kind(word: str, following: str) -> str:
    """The kind of a value: money, an ordinal, a time, a year, a date word, a per cent, a
    number, or a name (a word or an id)."""
    low = word.lower()
    if word[0] in "$€£" or following in ("dollars", "euros", "usd", "eur", "gbp", "pounds"):
        return "money"
    if re.fullmatch(r"\d+(st|nd|rd|th)", low) or low in _ORDINALS:
        return "ordinal"
    clock = ":" in low or low[-2:] in ("am", "pm") or following in ("am", "pm")
    if clock and re.fullmatch(r"\d{1,2}(:\d\d)?([ap]m)?", low):
        return "time"
    if re.fullmatch(r"(19|20)\d\d", low):
        return "year"
    if low in _MONTHS or low in _WEEKDAYS:
        return "date"
    if low.endswith("%") or following == "percent":
        return "percent"
    if following in _UNIT_WORDS and following not in ("am", "pm", "k", "x"):
        return "quantity"  # 40 GB, 15 minutes, 5 km
    if re.fullmatch(r"[\d,.]+", low) or low in _NUMBER_WORDS:
        return "number"
    return "name"


def _kinds(words: tuple[str, ...], values: set[str]) -> set[str]:
    """The kinds of ``values`` as ``words`` state them; a name followed by a number with a
    dot is one value, a version ("Kubernetes 1.29", "Python 3.12")."""
    out = set()
    for i, w in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else ""
        version = re.fullmatch(r"v?\d+(\.\d+)+", following.lower()) and w[0].isupper()
        before = words[i - 1] if i else ""
        if version or (re.fullmatch(r"v?\d+(\.\d+)+", w.lower()) and before[:1].isupper()):
            if w.lower() in values or following.lower() in values:
                out.add("version")
        elif w.lower() in values:
            out.add(_kind(w, following.lower()))
    return out


def _contexts(words: list[str], values: set[str], skip: frozenset[str]) -> set[str]:
    """The words next to each value in ``values`` (two content words on each side), what the
    value is a value of ("port" 5432, 16 GB of "RAM", three "bikes")."""
    out: set[str] = set()
    plain = [
        None if (w.lower() in _STOP or w.lower() in _ANYONE or w.lower() in _UNIT_WORDS or w.lower() in _CUES
                 or w.lower() in _MODIFIERS or w.lower().endswith("ly") or _numeric(w) or _is_verb(words, i)
                 or _stem(w) in skip) else _stem(w)
        for i, w in enumerate(words)
    ]  # fmt: skip
    inside = [w.lower() in values for w in words]
    for i in range(len(words)):
        if not inside[i]:
            continue
        start, end = i, i + 1  # the run of values this one is part of ("Acme Supplies")
        while start and inside[start - 1]:
            start -= 1
        while end < len(words) and inside[end]:
            end += 1
        left = [
            p
            for k, p in enumerate(plain[max(0, start - 4) : start])
            if p and not inside[max(0, start - 4) + k]
        ]
        right = [p for k, p in enumerate(plain[end : end + 4]) if p and not inside[end + k]]
        out |= set(left[-2:]) | set(right[:2])
        # A quantity "of" something names what it measures, even a name: 16 GB of "RAM".
        after = [w.lower() for w in words[end : end + 3]]
        if len(after) == 3 and after[0] in _UNIT_WORDS and after[1] == "of" and _stem(after[2]) not in skip:
            out.add(_stem(after[2]))
    return out


#: The most words and sentences of a note the rule reads as one statement (an atomic note);
#: a longer text states many things, and one value changed among them replaces none of them.
STATEMENT_WORDS = 45
STATEMENT_SENTENCES = 2


def _statement(content: str) -> bool:
    """Whether a text is one statement: short, and asks nothing."""
    text = content.strip()
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s]
    return "?" not in text and len(sentences) <= STATEMENT_SENTENCES and len(text.split()) <= STATEMENT_WORDS


def _denies(text: _Text) -> bool:
    """Whether a text denies what it states ("does not", "no longer", "never"); "without"
    qualifies rather than denies."""
    low = [w.lower() for w in text.words]
    return (
        sum(w in ("not", "no", "never", "cannot", "none", "nor") or w.endswith(("n't", "n’t")) for w in low)
        % 2
        == 1
    )


@dataclass(frozen=True)
class _Text:
    words: tuple[str, ...]
    values: frozenset[str]


@lru_cache(maxsize=4096)
def _text(content: str) -> _Text:
    words: list[str] = []
    values: set[str] = set()
    for sentence in re.split(r"(?<=[.!?;:])\s+|\n+", content.strip()):
        found = _WORD.findall(sentence)
        values |= {w.lower() for i, w in enumerate(found) if _value(w, i == 0)}
        words += found
    return _Text(tuple(words), frozenset(values))


@lru_cache(maxsize=4096)
def read(title: str, content: str) -> Reading:
    """The subject and the frame of one note (cached: a batch compares one text often)."""
    first = re.split(r"(?<=[.!?;])\s+|\n+|[,;:(]\s", content.strip(), maxsplit=1)[0]
    words = _WORD.findall(first)
    verb = next((i for i in range(len(words)) if _is_verb(words, i)), len(words))
    text = _text(content)
    title_words = [w for w in _WORD.findall(title) if w.lower() not in text.values]
    names = {_stem(w) for w in text.words if w[0].isupper()} & {_stem(v) for v in text.values}
    names |= {_stem(w) for w in words[:1] if w.lower().endswith(("'s", "’s"))}  # "Dana's standup"
    subject, markers = _subject_words(words[:verb], title_words, names)
    neighbours = _modifiers(words[:verb])
    frame = frozenset(_content(_WORD.findall(content)))
    return Reading(frozenset(subject), frozenset(markers), frozenset(neighbours), frame, _head(words[:verb]))


def _head(words: list[str]) -> str | None:
    """The last word of a subject before any preposition ("replica" of "Replica 1 of the
    orders database", "database" of "the billing database"), if it is a plain word."""
    head = None
    for word in words:
        low = word.lower()
        if low in ("of", "for", "at", "in", "on", "with", "from", "by", "to"):
            break
        if low not in _STOP and low not in _ANYONE and not _numeric(word):
            head = _stem(word)
    return head


def _same_subject(a: Reading, b: Reading) -> bool:
    """Not two subjects: their markers are not two different sets (replica 1 and replica 2,
    Dana and Marco, Q3 and Q4), nor their words (the API and the worker, the user and the
    user's son)."""
    if not (a.markers <= b.markers or b.markers <= a.markers):
        return False
    if _other_modifier(a, b):
        return False  # "the worker pods" and "the web pods", "the auth service" and "the billing service"
    words_a, words_b = a.subject | a.markers, b.subject | b.markers
    if not words_a or not words_b:
        return True
    if a.head and b.head and a.head != b.head and a.head not in words_b and b.head not in words_a:
        return False  # "the billing database" and "the billing service"
    if words_a & words_b:
        return True
    # No word in common: two subjects ("the API" and "the worker"), unless one names the
    # other's subject elsewhere ("The gym membership costs $45" and "I pay $52 for the gym").
    return bool(words_a & b.frame or words_b & a.frame)


def _modifiers(words: list[str]) -> set[tuple[str, str, str]]:
    """Each subject word's modifier: the word just before it ("worker" pods, "kitchen" smoke
    detector), or the word after a preposition after it (service "for the auth" team). Names
    and words that qualify rather than name ("weekly", "usual") are no modifiers."""
    out: set[tuple[str, str, str]] = set()
    previous: tuple[str, bool] | None = None  # the last word kept, and whether it was capitalised
    across = False  # a preposition since the last word
    for word in words:
        low = word.lower()
        if low in ("of", "for", "at", "in", "on", "with"):
            across = True
            continue
        if low in _STOP or low in _ANYONE or low in _MODIFIERS or low.endswith("ly"):
            continue
        stem, capital = _stem(word), word[0].isupper()
        # Two capitalised words are one name ("Project Atlas"): neither modifies the other.
        if previous is not None and not (capital and previous[1]):
            out.add((stem, "<", previous[0]))
            if across:
                out.add((previous[0], ">", stem))
        previous, across = (stem, capital), False
    return out


def _other_modifier(a: Reading, b: Reading) -> bool:
    """A word of both subjects with another modifier in each, one the other note never says
    ("the worker pods" and "the web pods")."""
    beside_a: dict[tuple[str, str], set[str]] = {}
    for word, side, other in a.neighbours:
        beside_a.setdefault((word, side), set()).add(other)
    for word, side, other in b.neighbours:
        mine = beside_a.get((word, side))
        if mine and other not in mine and other not in a.frame and not mine & b.frame:
            return True
    return False


def _periods(words: tuple[str, ...]) -> set[str]:
    """Years, seasons and relative periods a text names ("in 2024", "in summer", "last week")."""
    out = {
        w for i, w in enumerate(words)
        if re.fullmatch(r"(19|20)\d\d", w) and i and words[i - 1].lower() in _PERIOD_BEFORE
    }  # fmt: skip
    out |= {_stem(w.lower()) for w in words if w.lower() in _SEASONS}
    out |= {f"{a.lower()}-{_stem(b.lower())}" for a, b in zip(words, words[1:], strict=False)
            if a.lower() in _RELATIVE and _stem(b.lower()) in _PERIOD_WORDS}  # fmt: skip
    return out


def _cued(ta: _Text, tb: _Text) -> bool:
    """The new note says in words that what it states replaced what was ("now a sage green",
    "stopped using Redis"), and the old one does not."""

    def cues(text: _Text) -> set[str]:
        low = [w.lower() for w in text.words]
        pairs = {f"{x} {y}" for x, y in zip(low, low[1:], strict=False) if (x, y) in _CHANGED_PAIRS}
        return {w for w in low if w in _CHANGED} | pairs

    return bool(cues(tb) - cues(ta))


def relate(
    old_title: str, old_content: str, new_title: str, new_content: str, *, twin: bool = False
) -> tuple[Relation, Change | None]:
    """What the new note is to the old one, and the values it changes (if any). A ``twin``
    (at or above the dedupe threshold) whose values are the same is a restatement whatever
    its words; below it, a note that says in words that something changed is an update."""
    change = compare(old_content, new_content)
    ta, tb = _text(old_content), _text(new_content)
    if change is None and (twin or not _cued(ta, tb)):
        return Relation.RESTATEMENT, None
    if not (_statement(old_content) and _statement(new_content)):
        return Relation.UNCLEAR, change
    a, b = read(old_title, old_content), read(new_title, new_content)
    if not _same_subject(a, b):
        return Relation.SIBLING, None
    cued = any(w.lower() in _CUES for w in tb.words) and not any(w.lower() in _CUES for w in ta.words)
    pa, pb = _periods(ta.words), _periods(tb.words)
    if pa and pb and pa != pb and (ta.values - pa) != (tb.values - pb) and not cued:
        return Relation.SIBLING, None  # the same property of another period, both true
    subject = a.subject | b.subject | a.markers | b.markers
    gone, new = set(ta.values - tb.values), set(tb.values - ta.values)
    if {_stem(v) for v in new} & b.markers or {_stem(v) for v in gone} & a.markers:
        return Relation.SIBLING, None  # the value that differs names the subject ("the 2nd floor")
    if change is not None and change.kinds == {"negation"} and not _denies(ta) ^ _denies(tb):
        return Relation.NEAR_MISS, None  # "coffee without sugar" qualifies, it denies nothing
    if change is not None and not new and "negation" not in change.kinds:
        return Relation.NEAR_MISS, None  # no new value: it says something else of the subject
    ka, kb = _kinds(ta.words, gone), _kinds(tb.words, new)
    if ka and kb and not ka & kb:
        return Relation.NEAR_MISS, None  # values of other kinds: other properties
    ca = _contexts(list(ta.words), gone, subject)
    cb = _contexts(list(tb.words), new, subject)
    if ca and cb and not ca & cb:
        return Relation.NEAR_MISS, None  # new values of other properties
    if not (a.frame & b.frame) - {_stem(v) for v in ta.values ^ tb.values}:
        return Relation.UNRELATED, None  # nothing in common but the values that differ
    if change is None:
        return Relation.UPDATE, None
    # Below the dedupe threshold, a new value is an update only on evidence that it is one of
    # the same property: the words beside the values agree ("port" 5432, "port" 6432), the
    # new note says it changed, or denies the old. Else a model may judge it (UNCLEAR).
    if not twin and not (ca & cb or _cued(ta, tb) or cued or "negation" in change.kinds):
        return Relation.UNCLEAR, change
    # A name changed beside another value (another vendor at another price): which is current
    # cannot be told, unless the new note says it changed ("sold the Civic and now drives a
    # Tesla Model 3"). Names are read here as values, not the subject's ("Dana's", "Dana").
    if "name" in ka and "name" in kb and (ka | kb) - {"name"} and not (cued or _cued(ta, tb)):
        return Relation.CONFLICT, change
    return Relation.UPDATE, change
