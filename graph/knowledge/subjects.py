"""Who or what a note is about, which property it states, and which value: told apart by
rule, from the text, so that an update is told from a sibling in any wording.

Cosine finds notes that resemble a new one; it cannot say whether the two are one fact with
a new value, the same fact restated, or two facts side by side. "Replica 1 of the orders
database lives in rack 11." and "Replica 2 ... rack 12." embed almost alike and are both
true; "Dana's standup is at 9:30 every weekday." and "Dana moved her daily standup to
10:15." share fewer words and the second replaces the first. :func:`relate` reads both
notes, offline and deterministically (no model), in three parts:

* **the subject**: the title and the words of the first sentence before its main verb
  ("Replica 1 of the orders database", "Dana"), with the user ("I", "the user", "my") and
  pronouns left out, since any note may name them. Identifiers, ordinals, names, periods
  and places are words of the subject like any other, so "replica 1" and "replica 2",
  "invoice 2210" and "invoice 2211", "Dana's standup" and "Marco's standup", "the Q3
  budget" and "the Q4 budget", "the API" and "the worker" are different subjects. Two
  notes are about one subject when one's words hold the other's (a note may say less:
  "Dana" and "Dana's standup");
* **the property**: the words both notes share outside their values (``standup``,
  ``drives``, ``port``): none shared, and the two say unrelated things of one subject;
* **the value**: what :func:`graph.knowledge.updates.compare` reads (numbers, quantities,
  times, dates, names, negation, a change cue on the new side). A kind of value stated on
  one side only, beside another kind on the other only ("is at 9:30" and "lasts 15
  minutes"), is another property of the subject, not a new value.

The answer is one :class:`Relation`; only an ``UPDATE`` (or ``CONFLICT``) changes what is
current. Calibrated on the fitted half of ``bench/data/update_pairs_*.json`` and measured
on the held-out half (``python -m bench.update_pairs``, docs/retrieval.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from graph.knowledge.updates import _COMMON, _CUES, _MONTHS, _NUMBER_WORDS, _WEEKDAYS, Change, compare


class Relation(Enum):
    """What a new note is to an older one."""

    UPDATE = "update"  # the same property of the same subject, a new value: supersedes
    CONFLICT = "conflict"  # a new value, but which is current cannot be told: conflictsWith
    RESTATEMENT = "restatement"  # the same values: folds in when it is a near twin
    SIBLING = "sibling"  # another subject (an id, an ordinal, a person, a place, a period)
    NEAR_MISS = "near_miss"  # the same subject, another property
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


_WORD = re.compile(r"[$€£]?\d[\d,.:/-]*\d[a-zA-Z%]*|[$€£]?\d[a-zA-Z%]*|[#@]?\w[\w.'’/-]*\w|\w", re.UNICODE)
#: Words that are the user, or stand for someone named elsewhere: any note may say them.
_ANYONE = {
    "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "you", "your", "he", "him", "his",
    "she", "her", "hers", "they", "them", "their", "theirs", "it", "its", "user", "users", "user's",
}  # fmt: skip
_STOP = {
    "the", "a", "an", "of", "for", "in", "on", "at", "to", "with", "and", "or", "by", "from", "as",
    "this", "that", "these", "those", "there", "here", "into", "onto", "about", "than", "then",
    "so", "but", "also", "just", "still", "very", "too", "all", "each", "every", "some", "any",
    "which", "who", "whose", "what", "where", "when", "how", "per", "via", "be", "is", "are",
    "was", "were", "been", "being", "am", "has", "have", "had", "having", "do", "does", "did",
    "will", "would", "shall", "should", "can", "could", "may", "might", "must", "not", "no",
    "never", "n't", "now", "currently", "new", "anymore", "longer", "instead", "since", "until",
    "again", "today", "usually", "always", "ones",
}  # fmt: skip
#: Verbs by which a main verb is found: auxiliaries, and common verbs in any form.
_AUX = {
    "is", "are", "was", "were", "be", "been", "am", "has", "have", "had", "will", "would", "shall",
    "should", "can", "could", "may", "might", "must", "does", "do", "did", "isn't", "aren't",
    "wasn't", "weren't", "doesn't", "don't", "didn't", "won't", "hasn't", "haven't", "can't",
    "cannot", "gets", "got", "became", "becomes", "remains", "stays", "used",
}  # fmt: skip


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_VERBS = _words(
    "live run use own drive keep hold prefer like love hate work go start open close meet take last "
    "cost listen depend play attend need want sell buy get make leave move switch change pay plan "
    "schedule ship host serve point store save read write speak teach study visit eat drink wear "
    "weigh earn spend charge bill cover include contain call manage lead report belong sit stand "
    "sleep wake train swim walk ride fly travel stay rent share deploy release build test fail pass "
    "expire renew end begin finish require allow support block join quit retire hire marry adopt "
    "feed water grow cook bake brew order book reserve cancel postpone reschedule shift replace "
    "upgrade downgrade migrate route forward receive send arrive depart return commute park connect "
    "respond handle watch follow sing practice volunteer donate subscribe sync back bump set cut "
    "lower raise increase decrease drop add remove rename become seem look sound feel tend try turn "
    "stop resume continue happen occur fall rise land sit see know think say tell give find come "
    "put let lose win choose forget bring buy teach catch fight hang hear hide lend mean pay ring "
    "seek shake shoot shut sink slide speak spend spin steal stick strike swing swear sweep throw "
    "understand wind go list run mark note track log count sleep wake "
)
_IRREGULAR = _words(
    "ran went gone took taken sold bought got gotten made left kept held met paid spent wrote "
    "written read drove driven rode ridden flew flown ate eaten drank drunk wore worn began begun "
    "became grew grown sat stood slept woke woken taught brought thought found gave given told said "
    "came saw seen put set cut built sent lent lost won chose chosen forgot knew known lay hung "
    "heard hid meant rang sought shook shot shut sank slid spoke spun stole stuck struck swung "
    "swore swept threw thrown understood wound fell rose caught fought "
)
#: Words before which a word in -ed is an adjective ("the scheduled call"), not a verb.
_DETERMINERS = {"the", "a", "an", "my", "our", "your", "his", "her", "their", "its", "this", "that"}


def _stem(word: str) -> str:
    """A word without a possessive or a plural, lowercased (both sides the same way)."""
    low = word.lower().replace("’", "'")
    if low.endswith("'s"):
        low = low[:-2]
    elif low.endswith("s'"):
        low = low[:-1]
    if len(low) > 3 and low.endswith("ies"):
        return low[:-3] + "y"
    if len(low) > 3 and low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return low[:-1]
    return low


def _is_verb(words: list[str], i: int) -> bool:
    low = words[i].lower().replace("’", "'")
    if i == 0 and not low.endswith("ed"):
        return low in _AUX
    if low in _AUX or low in _IRREGULAR:
        return True
    if words[i][0].isupper() or any(c.isdigit() for c in low):
        return False
    before = words[i - 1].lower() if i else ""
    base = low
    for ending in ("ies", "es", "s", "ied", "ed", "d", "ing"):
        if low.endswith(ending) and len(low) - len(ending) >= 2:
            base = low[: -len(ending)] + ("y" if ending in ("ies", "ied") else "")
            if (
                base in _VERBS
                or base + "e" in _VERBS
                or (len(base) > 2 and base[-1] == base[-2] and base[:-1] in _VERBS)
            ):
                return ending != "ing" and before not in _DETERMINERS
    if low in _VERBS and (before in {"i", "we", "you", "they", "and"} or _plural(before)):
        return True
    return low.endswith("ed") and len(low) > 4 and before not in _DETERMINERS


def _plural(word: str) -> bool:
    """A plural noun before a verb's base form ("deploys happen", "the kids play")."""
    return (
        len(word) > 3
        and word.endswith("s")
        and not word.endswith(("ss", "'s", "us", "is"))
        and word not in _STOP
    )


def _content(words: list[str]) -> set[str]:
    out = set()
    for word in words:
        low = word.lower().replace("’", "'")
        if low in _ANYONE or low in _STOP or low.endswith("n't"):
            continue
        stem = _stem(word)
        if stem and stem not in _ANYONE and stem not in _STOP:
            out.add(stem)
    return out


_ORDINALS = {"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}
_USER = {"i", "we", "user", "users"}  # the user named as a subject (not "my", "the user's")
_PERIOD_WORDS = {
    "week", "month", "year", "quarter", "semester", "season", "weekend", "summer", "winter", "spring",
    "autumn", "fall", "term", "sprint", "day", "night", "morning", "evening",
}  # fmt: skip
_RELATIVE = {"last", "this", "next", "previous", "coming", "past", "current"}
_SEASONS = {"summer", "winter", "spring", "autumn", "fall", "weekend", "weekends", "weekday", "weekdays"}
_UNIT_WORDS = {
    "gb", "mb", "tb", "kb", "km", "kms", "mile", "miles", "kg", "kgs", "lb", "lbs", "pound", "pounds",
    "meter", "meters", "metre", "metres", "cm", "mm", "percent", "degree", "degrees", "hour", "hours",
    "minute", "minutes", "second", "seconds", "day", "days", "week", "weeks", "month", "months", "year",
    "years",
    "time", "times", "dollar", "dollars", "euro", "euros", "usd", "eur", "gbp", "k", "x", "am", "pm",
}  # fmt: skip


def _value(word: str, first: bool) -> bool:
    """Whether a token states a value (a number, an id, a name, a date word)."""
    low = word.lower()
    if any(c.isdigit() for c in word) or low in _NUMBER_WORDS or word[0] in "#@$€£":
        return True
    if low in _MONTHS or low in _WEEKDAYS:
        return True
    return word[0].isupper() and not first and low not in _COMMON


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


#: Words that qualify a value rather than name what it is a value of.
_MODIFIERS = {
    "daily", "weekly", "monthly", "yearly", "nightly", "weekday", "weekdays", "weekend", "weekends",
    "morning", "mornings", "evening", "evenings", "afternoon", "night", "nights", "usual", "regular",
    "current", "old", "new", "main", "about", "around", "roughly", "approximately", "exactly", "least",
    "most", "more", "less", "over", "under", "each", "every", "only", "same", "other", "own",
}  # fmt: skip


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
    return out


def _numeric(word: str) -> bool:
    low = word.lower()
    return any(c.isdigit() for c in word) or low in _NUMBER_WORDS or low in _MONTHS or low in _WEEKDAYS


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
    kept = [_stem(w) for w in words[:verb] if w.lower() not in _STOP and w.lower() not in _ANYONE]
    neighbours = {(w, "<", kept[i - 1]) for i, w in enumerate(kept) if i} | {
        (w, ">", kept[i + 1]) for i, w in enumerate(kept[:-1])
    }
    frame = frozenset(_content(_WORD.findall(content)))
    return Reading(frozenset(subject), frozenset(markers), frozenset(neighbours), frame)


def _same_subject(a: Reading, b: Reading) -> bool:
    """Not two subjects: their markers are not two different sets (replica 1 and replica 2,
    Dana and Marco, Q3 and Q4), nor their words (the API and the worker, the user and the
    user's son)."""
    if not (a.markers <= b.markers or b.markers <= a.markers):
        return False
    if _other_modifier(a, b):
        return False  # "the worker pods" and "the web pods", "the auth service" and "the billing service"
    words_a, words_b = a.subject | a.markers, b.subject | b.markers
    return bool(words_a & words_b) or not words_a or not words_b


def _other_modifier(a: Reading, b: Reading) -> bool:
    """A word of both subjects with another word beside it on the same side in each."""
    beside_a: dict[tuple[str, str], set[str]] = {}
    for word, side, other in a.neighbours:
        beside_a.setdefault((word, side), set()).add(other)
    beside_b: dict[tuple[str, str], set[str]] = {}
    for word, side, other in b.neighbours:
        beside_b.setdefault((word, side), set()).add(other)
    return any(key in beside_a and not beside_a[key] & others for key, others in beside_b.items())


def _periods(words: tuple[str, ...]) -> set[str]:
    """Years, seasons and relative periods a text names ("in 2024", "in summer", "last week")."""
    out = {w for w in words if re.fullmatch(r"(19|20)\d\d", w)}
    out |= {_stem(w.lower()) for w in words if w.lower() in _SEASONS}
    out |= {f"{a.lower()}-{_stem(b.lower())}" for a, b in zip(words, words[1:], strict=False)
            if a.lower() in _RELATIVE and _stem(b.lower()) in _PERIOD_WORDS}  # fmt: skip
    return out


#: Words by which a note says that what it states replaced what was (beside updates' cues).
_CHANGED = {
    "now", "moved", "switched", "changed", "stopped", "quit", "cancelled", "canceled", "removed",
    "replaced", "relocated", "instead", "anymore", "longer", "lately", "rerouted", "retired",
    "dropped", "sold", "renamed", "upgraded", "downgraded", "migrated", "promoted",
}  # fmt: skip
_CHANGED_PAIRS = {("used", "to"), ("these", "days"), ("turned", "off"), ("gave", "up"), ("took", "over")}


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
    a, b = read(old_title, old_content), read(new_title, new_content)
    if not _same_subject(a, b):
        return Relation.SIBLING, None
    cued = any(w.lower() in _CUES for w in tb.words) and not any(w.lower() in _CUES for w in ta.words)
    pa, pb = _periods(ta.words), _periods(tb.words)
    if pa and pb and pa != pb and (ta.values - pa) != (tb.values - pb) and not cued:
        return Relation.SIBLING, None  # the same property of another period, both true
    subject = a.subject | b.subject | a.markers | b.markers
    gone, new = set(ta.values - tb.values), set(tb.values - ta.values)
    if change is not None and not new and "negation" not in change.kinds:
        return Relation.NEAR_MISS, None  # no new value: it says something else of the subject
    ka, kb = _kinds(ta.words, gone), _kinds(tb.words, new)
    if ka and kb and not ka & kb:
        return Relation.NEAR_MISS, None  # values of other kinds: other properties
    ca = _contexts(list(ta.words), gone, subject)
    cb = _contexts(list(tb.words), new, subject)
    if ca and cb and not ca & cb:
        return Relation.NEAR_MISS, None  # new values of other properties
    if not (a.frame & b.frame) - {_stem(v) for v in ta.values | tb.values}:
        return Relation.UNRELATED, None  # nothing in common but values
    if change is None:
        return Relation.UPDATE, None
    # A name changed beside another value (another vendor at another price): which is current
    # cannot be told. Names are read here as values, not the subject's own ("Dana's", "Dana").
    if "name" in ka and "name" in kb and (ka | kb) - {"name"}:
        return Relation.CONFLICT, change
    return Relation.UPDATE, change
