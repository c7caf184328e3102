"""Which of a user's conversations hear of a new decision: the arithmetic, without the database
(:mod:`graph.project.context` reads the inputs and writes the notices).

A decision is compared with each of the user's recently active threads three ways: by **what
it decides** (title, decision, consequences and context), by **why** (title and context; a
thread about the problem it settles is affected too), and by **each part** (the decision,
and each consequence with the title, one vector each: a thread about one consequence is
affected even when the rest of the decision is not its subject): its gist's cosine (topic
and latest messages), and for what it decides its closest recent insight's, when that is
higher; for the parts, the best of the gist's cosines to any of them. Each text is embedded
alone (:func:`decision_texts`), so its vector does not depend on what it was embedded beside.

Cosines alone do not tell related threads from unrelated ones: bge-small puts unrelated
software threads at 0.45-0.70 and related ones at 0.55-0.90. But within one user's
threads, the few a decision affects stand out from the rest. So a thread is told when

* its cosine is at least ``min_similarity`` (clearly about the same thing, whoever else
  the user talks to), or
* it **stands out** among the user's threads: its cosine, in standard deviations above the
  mean of the user's threads (the best of the three comparisons), plus :data:`TERM_BONUS`
  for each named technology or tag it shares with the decision that few of the user's
  closest threads mention (at most :data:`MAX_TERMS`), plus :data:`REPLACED_BONUS` when it
  mentions a technology the decision replaces (``MySQL`` in "migrate billing off MySQL"),
  however many threads mention it, reaches ``standing``. A thread whose topic is an event
  (:data:`EVENT_WORDS`: a meetup talk, a book club, a conference) gets no term bonus and
  loses :data:`EVENT_PENALTY`: it shares the decision's words, not its system.

The mean and spread are the user's **other** threads' (leave one out), pooled with
:data:`PRIOR_WEIGHT` imaginary unrelated threads (cosine ``prior_mean``, spread
:data:`PRIOR_SD`), so a user with one or two threads is judged against what unrelated
texts score, not against nothing. Only the user's own threads enter: what other users
store never changes who is told.

**Two models.** bge-small's cosines alone could not serve every user: on the yardstick of
``bench/notify_pairs.py`` no line of priya's own (the data engineer) reached precision 0.95
with recall 0.80 (her best: 0.857 / 0.682), as some related threads share no word with the
decision and stand low while threads close in topic stand high. A second local model,
all-MiniLM-L6-v2 (``CTXNET_DECISION_NOTIFY_SECOND_MODEL``), errs on other pairs: each thread
keeps its vector of the gist too, the decision's texts are embedded by it as well, and each
comparison (what it decides, why, each part; the gist only: insights stay bge-small's, as the
yardstick could not tell a second insight vector from none) gets a standing within the second
model's own cosines of the user's threads, against its own prior (its relevance floor minus
:data:`PRIOR_BELOW_FLOOR`, 0.24). A thread's standing is the **highest** of the six (the max of
the two models' z-scores per comparison): a thread either model puts well above the user's
other threads stands out. Measured (docs/project.md, fourth pass): with the max, every user
meets the goal on the yardstick at standings 2.3-2.6; with the mean of the two z-scores, or
either model alone, at none; with the mean of each model's best comparison, at 2.1-2.2 only,
with lower ceilings. Term bonuses, the replaced bonus, the event penalty and the
``min_similarity`` rule (bge-small's cosine) are unchanged. A thread without the second
model's vector (stored before it was configured, or by another model) is judged by
bge-small's comparisons alone, and its cosines leave the second model's spread; with no second
model (``Rule.second_prior_mean`` ``None``) everything is as before.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Imaginary unrelated threads pooled with the user's own (their weight, and their spread).
PRIOR_WEIGHT = 8
PRIOR_SD = 0.05
#: How far below the embedder's relevance floor unrelated threads sit on average.
PRIOR_BELOW_FLOOR = 0.06
#: Standing added per shared named term, and the most terms that count.
TERM_BONUS = 0.3
MAX_TERMS = 2
#: A named term counts when at most this many of the candidate threads mention it.
RARE_THREADS = 2
#: Standing added when a thread mentions a technology the decision replaces.
REPLACED_BONUS = 0.6
#: Words of an event rather than a system, in a thread's topic, and what they cost.
EVENT_WORDS = frozenset({
    "meetup", "meetups", "conference", "conferences", "talk", "talks", "keynote", "summit", "slides",
    "club", "course", "workshop", "webinar", "travel", "podcast", "lecture", "lightning", "speaker",
})  # fmt: skip
EVENT_PENALTY = 1.0

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[.+#-][A-Za-z0-9]+)*")
_SENTENCES = re.compile(r"(?<=[.!?:;])\s+|\n")
_PARTS = re.compile(r"[.+#-]")
_WORD = r"\w+(?:[.+#-]\w+)*"  # a word, its dots and hyphens inside (Node.js, Cache-Control)
_SPACE = r"[ \t]+"  # within a sentence
#: Where a decision names what it replaces: "off X", "replaces X", "no new X", "instead of X",
#: "from X to", "X is retired / removed / switched off / not used / shut down / migrated".
_REPLACED = re.compile(
    rf"\b(?:off|replaces|replacing|instead{_SPACE}of|no|without){_SPACE}(?:(?:the|new|any){_SPACE})?"
    rf"((?:{_WORD}{_SPACE}){{0,3}}{_WORD})"
    rf"|\bfrom{_SPACE}({_WORD}(?:{_SPACE}{_WORD}){{0,2}}){_SPACE}to\b"
    rf"|\b({_WORD}(?:{_SPACE}{_WORD})?){_SPACE}(?:is|are){_SPACE}"
    r"(?:retired|removed|switched off|not used|replaced|shut down|migrated|deprecated)",
    re.IGNORECASE,
)


def named_terms(text: str) -> set[str]:
    """The names of things in ``text``, lower-cased: words with a digit (``Java21``, ``v2``),
    a capital inside (``PostgreSQL``, ``MySQL``, ``JSONB``) or a capital not at the start of a
    sentence (``Kafka``, ``Redis`` mid-sentence)."""
    found: set[str] = set()
    for sentence in _SENTENCES.split(text):
        for position, match in enumerate(_TOKEN.finditer(sentence)):
            word = match.group()
            if (
                any(c.isdigit() for c in word)
                or any(c.isupper() for c in word[1:])
                or (position > 0 and word[0].isupper())
            ):
                found.add(word.lower())
    return found


def words(text: str) -> set[str]:
    """Every word of ``text``, lower-cased (``Cache-Control`` stays one word)."""
    return {w.lower() for w in _TOKEN.findall(text)}


def decision_texts(title: str, body: str, consequences: Sequence[str], context: str) -> list[str]:
    """What a decision is embedded as, each text alone: its note (title and decision, for
    search, and the first of its parts), what it decides (with its consequences and context),
    why (title and context), then each consequence with the title (its other parts)."""
    then = "".join(f"\n{c}" for c in consequences)
    parts = [f"{title}\n{c}" for c in consequences]
    return [f"{title}\n{body}", f"{title}\n{body}{then}\n{context}", f"{title}\n{context}", *parts]


def decision_terms(title: str, body: str, consequences: Iterable[str], tags: Iterable[str]) -> set[str]:
    """The named terms of a decision, and its tags (``event-sourcing`` as one term)."""
    terms = named_terms("\n".join([title, body, *consequences]))
    return terms | {t.lower() for t in tags if _TOKEN.fullmatch(t)}


def replaced_terms(title: str, body: str, consequences: Iterable[str]) -> set[str]:
    """The named terms of what a decision replaces (``mysql`` in "Migrate billing off MySQL",
    ``airflow`` in "Dagster replaces Airflow", ``pulumi`` in "Pulumi is not used")."""
    text = "\n".join([title, body, *consequences])
    named = named_terms(text)
    found: set[str] = set()
    for match in _REPLACED.finditer(text):
        found |= words(next(g for g in match.groups() if g)) & named
    return found


#: A decision's named terms and tags (:func:`decision_terms`), and what it replaces
#: (:func:`replaced_terms`).
Terms = tuple[set[str], set[str]]


def decision_words(title: str, body: str, consequences: Sequence[str], tags: Iterable[str]) -> Terms:
    """A decision's named terms and tags, and the named terms of what it replaces."""
    return decision_terms(title, body, consequences, tags), replaced_terms(title, body, consequences)


def event_threads(texts: Mapping[str, str]) -> set[str]:
    """The threads whose topic (the first line of their gist text) is an event: a meetup, a
    talk, a book club, a conference (:data:`EVENT_WORDS`)."""
    return {tid for tid, text in texts.items() if words(text.split("\n", 1)[0]) & EVENT_WORDS}


@dataclass(frozen=True)
class Spread:
    """The cosines of a user's threads for one comparison: count, sum, sum of squares."""

    n: int
    total: float
    squares: float

    @classmethod
    def of(cls, values: Iterable[float | None]) -> Spread:
        """The spread of the values that are there."""
        present = [v for v in values if v is not None]
        return cls(len(present), math.fsum(present), math.fsum(v * v for v in present))

    def standing(self, value: float, prior_mean: float) -> float:
        """How many standard deviations ``value`` stands above the other values (this one left
        out), pooled with :data:`PRIOR_WEIGHT` unrelated ones at ``prior_mean``."""
        n = self.n - 1 + PRIOR_WEIGHT
        total = self.total - value + PRIOR_WEIGHT * prior_mean
        squares = self.squares - value * value + PRIOR_WEIGHT * (PRIOR_SD**2 + prior_mean**2)
        mean = total / n
        variance = max(squares / n - mean * mean, PRIOR_SD**2 / 4)
        return (value - mean) / math.sqrt(variance)


@dataclass(frozen=True)
class Candidate:
    """One of the user's threads as the decision sees it. ``about`` and ``why``: its cosines
    with what the decision decides and with why (``None``: it has no gist vector yet);
    ``gist``/``insight``: the parts of ``about``; ``part``: its gist's best cosine to the
    decision's parts (``None``: not compared). ``about2``, ``why2``, ``part2``: the same
    three comparisons of the second model's gist vector with the decision's texts (gist only,
    no insights; ``None``: no second model, or the thread has no vector of it)."""

    thread_id: str
    about: float | None = None
    why: float | None = None
    gist: float | None = None
    insight: float | None = None
    by_session: bool = False
    part: float | None = None
    about2: float | None = None
    why2: float | None = None
    part2: float | None = None


def candidate(row: Mapping[str, Any]) -> Candidate:
    """A thread as ``cypher/queries/project/decision_threads.cypher`` reads it: what the
    decision decides against the better of its gist and its closest insight; why against
    its gist; its parts against its gist."""
    gist, insight = row["gistAbout"], row["insightAbout"]
    about = gist if insight is None or (gist is not None and gist >= insight) else insight
    return Candidate(
        str(row["id"]), about, row["gistWhy"], gist, insight, bool(row["bySession"]), row["gistPart"],
        row.get("gistAbout2"), row.get("gistWhy2"), row.get("gistPart2"),
    )  # fmt: skip


@dataclass(frozen=True)
class Rule:
    """When a thread is told (settings). ``prior_mean``: what an unrelated thread's cosine is on
    average, the embedder's; ``second_prior_mean``: the second model's (``None``: its cosines
    are not used)."""

    min_similarity: float
    standing: float
    prior_mean: float
    second_prior_mean: float | None = None


@dataclass
class Told:
    """A thread to tell, and why."""

    thread_id: str
    reason: str
    standing: float | None
    gist: float | None
    insight: float | None
    by_session: bool
    terms: list[str] = field(default_factory=list)

    def view(self) -> dict[str, Any]:
        """Why it was told, as ``notifiedThreads`` says it (absent figures left out)."""
        why: dict[str, Any] = {"threadId": self.thread_id, "bySession": self.by_session}
        why["reason"] = self.reason
        for key, value in (("threadSimilarity", self.gist), ("insightSimilarity", self.insight)):
            if value is not None:
                why[key] = round(value, 4)
        if self.standing is not None:
            why["standing"] = self.standing
        if self.terms:
            why["sharedTerms"] = self.terms
        return why


#: The comparisons of the embedder's vectors, and of the second model's.
FIRST = ("about", "why", "part")
SECOND = ("about2", "why2", "part2")


def standings(candidates: Sequence[Candidate], rule: Rule) -> dict[str, float]:
    """Each thread's standing among the user's threads before named terms: the best, over the
    comparisons and the two models, of its cosine's standing among the cosines the same model
    gives the user's other threads for the same comparison (each model against its own prior).
    Threads without the embedder's vector have none; one without the second model's is judged
    by the embedder's alone."""
    priors = [(FIRST, rule.prior_mean)]
    if rule.second_prior_mean is not None:
        priors.append((SECOND, rule.second_prior_mean))
    spreads = {k: Spread.of(getattr(c, k) for c in candidates) for keys, _ in priors for k in keys}
    found = {}
    for c in candidates:
        if c.about is None or c.why is None:
            continue
        found[c.thread_id] = max(
            spreads[k].standing(value, prior)
            for keys, prior in priors
            for k in keys
            if (value := getattr(c, k)) is not None
        )
    return found


def shared_terms(
    terms: set[str], texts: dict[str, str], replaced: Iterable[str] = ()
) -> dict[str, list[str]]:
    """For each thread (its gist text and insights), the decision's terms it mentions that
    at most :data:`RARE_THREADS` of these threads mention, and those of ``replaced`` (what
    the decision replaces) it mentions, however many do."""
    kept = set(replaced)
    terms = terms | kept
    mentions = {tid: {t for t in terms if _mentions(t, words(text))} for tid, text in texts.items()}
    count = {t: sum(t in m for m in mentions.values()) for t in terms}
    return {tid: sorted(t for t in m if count[t] <= RARE_THREADS or t in kept) for tid, m in mentions.items()}


def _mentions(term: str, found: set[str]) -> bool:
    return term in found or all(p in found for p in _PARTS.split(term) if p)


def choose(
    candidates: Sequence[Candidate],
    rule: Rule,
    terms: dict[str, list[str]],
    limit: int,
    base: dict[str, float] | None = None,
    replaced: Iterable[str] = (),
    events: Iterable[str] = (),
) -> list[Told]:
    """The threads to tell, sessions first, then by standing; at most ``limit``.
    ``terms``: each candidate's shared rare terms (:func:`shared_terms`); ``base``: the
    standings before terms (:func:`standings`, computed here when not given); ``replaced``:
    what the decision replaces (:func:`replaced_terms`); ``events``: the threads about an
    event (:func:`event_threads`)."""
    base = standings(candidates, rule) if base is None else base
    replaced, events = set(replaced), set(events)
    told = []
    for c in candidates:
        shared = terms.get(c.thread_id, [])
        score = base.get(c.thread_id)
        if score is not None and c.thread_id in events:
            score = round(score - EVENT_PENALTY, 3)
        elif score is not None:
            rare = [t for t in shared if t not in replaced]
            bonus = REPLACED_BONUS if len(rare) < len(shared) else 0.0
            score = round(score + bonus + TERM_BONUS * min(len(shared), MAX_TERMS), 3)
        if c.by_session:
            reason = "session"
        elif c.about is not None and c.about >= rule.min_similarity:
            reason = "similar"
        elif score is not None and score >= rule.standing:
            reason = "standsOut"
        else:
            continue
        told.append(Told(c.thread_id, reason, score, c.gist, c.insight, c.by_session, shared))
    # sessions first, then the threads that stand out most
    told.sort(
        key=lambda t: (not t.by_session, -(t.standing if t.standing is not None else math.inf), t.thread_id)
    )
    return told[:limit]


def closest(base: Mapping[str, float], limit: int) -> list[str]:
    """The ``limit`` threads that stand highest before terms (``base``: :func:`standings`),
    whose words are read for the terms they share with the decision."""
    return sorted(base, key=lambda tid: (-base[tid], tid))[:limit]


def tell(
    candidates: Sequence[Candidate],
    rule: Rule,
    terms: Terms,
    texts: dict[str, str],
    limit: int,
    base: dict[str, float] | None = None,
) -> list[Told]:
    """:func:`choose` with the words of the closest threads read (``texts``: each one's gist
    text and insights, its topic first): the terms they share with the decision, and those
    whose topic is an event. ``base``: the standings the closest were picked by, if known."""
    named, gone = terms
    shared = shared_terms(named, texts, gone)
    return choose(candidates, rule, shared, limit, base, gone, event_threads(texts))
