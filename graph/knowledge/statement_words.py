"""The words a note's statement is read with (:mod:`graph.knowledge.subjects`): which word
is a verb, a value, a unit, a period, a change cue; plain lists and small functions, no model.
"""

from __future__ import annotations

import re

from graph.knowledge.updates import _COMMON, _MONTHS, _NUMBER_WORDS, _WEEKDAYS

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
    if before in _PERSONS and not words[i - 1].endswith(("'s", "’s")):
        return True  # the word after "the user", "I", "she" is what they do ("the user avoids dairy")
    following = words[i + 1].lower() if i + 1 < len(words) else ""
    if low.endswith("s") and not low.endswith(("ss", "us", "is")) and following in _PARTICLES:
        return before not in _DETERMINERS  # "the nightly backup kicks off at 3"
    return low.endswith("ed") and len(low) > 4 and before not in _DETERMINERS


_PERSONS = {"user", "i", "we", "you", "they", "he", "she"}
_PARTICLES = {
    "off",
    "up",
    "out",
    "down",
    "over",
    "at",
    "on",
    "in",
    "to",
    "into",
    "from",
    "with",
    "every",
    "each",
}


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


#: Words that qualify a value rather than name what it is a value of.
_MODIFIERS = {
    "daily", "weekly", "monthly", "yearly", "nightly", "weekday", "weekdays", "weekend", "weekends",
    "morning", "mornings", "evening", "evenings", "afternoon", "afternoons", "night", "nights", "usual",
    "regular",
    "current", "old", "new", "main", "about", "around", "roughly", "approximately", "exactly", "least",
    "most", "more", "less", "over", "under", "each", "every", "only", "same", "other", "own",
}  # fmt: skip


def _numeric(word: str) -> bool:
    low = word.lower()
    return any(c.isdigit() for c in word) or low in _NUMBER_WORDS or low in _MONTHS or low in _WEEKDAYS


_PERIOD_BEFORE = {"in", "of", "during", "since", "for", "by", "until", "through", "throughout"}


#: Words by which a note says that what it states replaced what was (beside updates' cues).
_CHANGED = {
    "now", "moved", "switched", "changed", "stopped", "quit", "cancelled", "canceled", "removed",
    "replaced", "relocated", "instead", "anymore", "longer", "lately", "rerouted", "retired",
    "dropped", "sold", "renamed", "upgraded", "downgraded", "migrated", "promoted", "raised",
    "lowered", "increased", "decreased", "reduced", "cut", "doubled", "halved", "extended",
    "shortened", "pushed", "delayed", "postponed", "rescheduled", "bumped", "updated", "revised",
    "reassigned", "transferred", "swapped", "traded", "became", "becomes",
}  # fmt: skip
_CHANGED_PAIRS = {
    ("used", "to"), ("these", "days"), ("turned", "off"), ("gave", "up"), ("took", "over"),
    ("went", "up"), ("went", "down"), ("goes", "up"), ("goes", "down"), ("no", "more"),
}  # fmt: skip
