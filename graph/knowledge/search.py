"""Tenant-safe search of the knowledge network: vector, fulltext and hybrid, then expansion.

Neo4j 5.26's vector index cannot filter by user inside the index, and one index holds
every user's notes. A plain top-k followed by ``WHERE userId = ...`` therefore returns
too few hits, or none, for a user who owns a small share of the index. Every vector
query here picks one of two plans from the user's share of the index
(:class:`graph.core.vectors.VectorPlanConfig`, shared with dedupe and insight recall):

* **exact**: cosine over the user's own notes (found through the ``userId`` index), with
  all filters applied first. Exact by construction; used when the user has few notes,
  or when their share is so small that the index would have to be oversampled beyond
  ``ann_max_candidates``.
* **oversampled index**: ask the index for ``top_k / share * oversample`` candidates (at
  least ``min_candidates``: HNSW recall falls at small k), keep the user's that pass the
  filters, ranked by the index's score (exact: the index keeps full-precision vectors).
  If fewer than ``top_k`` survive (selective filters), ask again with four times as many,
  and fall back to the exact plan once the cap is reached, so every user gets a true top-k.

Fulltext search is narrowed to the user inside Lucene with ``tenantKey`` (a one-token
digest of the user id) and checked exactly afterwards; the user's text only reaches
Lucene as lower-cased word tokens, so it cannot change the query's structure. Its scores
come from the user's own notes alone, never from Lucene's statistics (which span every
user, so one user's ranking would move with what others store, and tell of it): one
Lucene query per word gives the word's frequency among the user's notes, and the query
computes BM25 from those (``cypher/queries/knowledge/search_0.cypher`` tells how).

A search is one Cypher query (``queries/knowledge/search_<depth>``): both halves of the ranking,
their fusion, the expansion from the top hits and the edges among all returned notes. The
halves fuse by a convex combination of their scores (:data:`VECTOR_WEIGHT`), each scaled to
0..1 between the last and the best of its ranking, the best counting at most
:data:`RUNAWAY` times the runner-up's margin: on LongMemEval's 470 oracle questions scaled
scores found more than reciprocal rank fusion did, and one note far ahead in one half (a
runaway top) no longer squashes the rest of that half. A note cannot buy the top by
repeating the question's words either: each repeat of a query word past its first is
filler, and a note whose words are more filler than natural text holds
(:data:`FILLER_ALLOWED`) loses its hybrid or keyword score in proportion (read for the top
k).
``docs/retrieval.md`` ("Rankings no one can stuff") has the figures.
Hits of one source collapse to its best (:data:`COLLAPSE`). A note's neighbourhood is the
same query started from the note itself.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.core.db import run_rows
from graph.core.tenancy import tenant_key
from graph.core.vectors import VectorPlanConfig, cosine_from_score

_WORD = re.compile(r"\w+", re.UNICODE)
#: The stop words of the fulltext index's english analyzer (Lucene's EnglishAnalyzer). They
#: are left out of a query: one of only stop words would analyze to an empty clause, and the
#: query to "every note of the user".
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)


def query_words(text: str, max_terms: int = 32) -> list[str]:
    """The distinct words of ``text`` a keyword search looks for: lower-cased, stop words left
    out, at most ``max_terms``.

    A word needs a letter or a decimal digit: the analyzer drops tokens such as ``_``, ``½``
    or ``²`` whole, and a clause left empty would match every node of the user."""
    words = [
        w
        for w in (w.lower() for w in _WORD.findall(text))
        if w not in STOP_WORDS and any(c.isalpha() or c.isdecimal() for c in w)
    ]
    return list(dict.fromkeys(words))[:max_terms]


def keyword_terms(
    text: str, user_id: str, max_terms: int = 32, fields: tuple[str, ...] = ("title", "content")
) -> list[str]:
    """One Lucene query per word of ``text`` (:func:`query_words`), each for that word in
    ``fields`` within the user's tenant: the keyword half scores from what each finds among
    the user's own nodes (``search_0.cypher``)."""
    fenced = f"+tenantKey:{tenant_key(user_id)}"
    return [
        f"{fenced} +({' '.join(f'{f}:({word})' for f in fields)})" for word in query_words(text, max_terms)
    ]


#: Matches per query word the keyword half reads at most: a word found in more of a user's
#: notes than this is common in that memory (``search_term_limit``).
TERM_LIMIT = 1_000


def keyword_params(
    text: str | None, user_id: str, notes: int, term_limit: int = TERM_LIMIT
) -> dict[str, Any]:
    """The keyword half's parameters of a search query (``queries/knowledge/search_*``) for
    ``text`` by a user with ``notes`` notes: its per-word Lucene queries, their match limit
    and the user's note count, from which the query computes each word's idf."""
    return {
        "terms": keyword_terms(text, user_id) if text else [],
        "termLimit": term_limit,
        "notes": notes,
        "words": query_words(text) if text else [],
        "separators": SEPARATORS,
        "fillerAllowed": FILLER_ALLOWED,
        "fillerSpan": FILLER_SPAN,
    }


#: What splits a note's text into words when its repeats of the query's words are counted
#: (besides spaces), so that "lunch," and "lunch." are the word "lunch" as \w+ finds it.
SEPARATORS = [".", ",", "?", "!", ";", ":", '"', "(", ")", "'", "-", "/", "\n", "\t", "\r"]
#: How many hits past the top k have their repeats of the query's words counted, best first
#: (``search_0.cypher``): a stuffed note is one that would otherwise be at the top, and each
#: note read costs (about 30 us for 200 words). Ten more changed no figure of either set.
CHECKED_PAST_TOP_K = 0
#: The share of a note's words that may be repeats of the query's words (each occurrence of a
#: query word past its first) before its score falls, and how much more takes it to 0. In the
#: top hits of the 470 oracle questions natural turns hold p50 0.04, p99 0.17 (at most 0.41);
#: the notes stuffed with a question's words 0.38-0.71 (``docs/retrieval.md``).
FILLER_ALLOWED = 0.2
FILLER_SPAN = 0.3


class TenantSizes:
    """How many notes each user (and everyone) has, and whether any of the user's came from a
    conversation, cached briefly per process.

    Only the choice of plan and the depth of a default search's ranking depend on it, never
    which notes count as one source: a stale figure costs a retry, or for the first
    conversation of a user a shallower ranking, for at most ``ttl_seconds``.
    """

    def __init__(self, ttl_seconds: float = 30.0) -> None:
        self._ttl = ttl_seconds
        self._cache: dict[str, tuple[float, int, int, bool]] = {}

    async def get(self, tx: AsyncManagedTransaction, user_id: str) -> tuple[int, int, bool]:
        """(notes of the user, notes in total, whether any of the user's is a conversation's)."""
        now = time.monotonic()
        cached = self._cache.get(user_id)
        if cached is not None and cached[0] > now:
            return cached[1], cached[2], cached[3]
        [row] = await run_rows(tx, "queries/knowledge/note_counts", userId=user_id)
        mine, total, conversations = int(row["mine"]), int(row["total"]), bool(row["conversations"])
        if len(self._cache) > 50_000:
            self._cache.clear()
        self._cache[user_id] = (now + self._ttl, mine, total, conversations)
        return mine, total, conversations

    def forget(self, user_id: str) -> None:
        """Drop a user's cached figure (after their notes changed a lot)."""
        self._cache.pop(user_id, None)


#: One search query per expansion depth (Cypher cannot take a path length as a parameter).
SEARCH_QUERIES = {
    0: "queries/knowledge/search_0",
    1: "queries/knowledge/search_1",
    2: "queries/knowledge/search_2",
    3: "queries/knowledge/search_3",
}
#: The filters of a search besides status (``statuses`` is always set): when none is set and
#: no scope, the query skips their tests (``$filtered``).
NOTE_FILTERS = (
    "types", "sources", "minConfidence", "tags", "createdAfter", "createdBefore", "begunAfter", "begunBefore",
    "asOf",
)  # fmt: skip
#: How many notes an expansion reaches at most, the nearest first (a search's
#: ``maxExpanded`` unless it asks otherwise), and how many edges among the returned notes
#: an answer carries: neither the work nor the answer grows with how dense a graph is.
MAX_REACHED = 50
MAX_EDGES = 1_000
#: Reciprocal rank fusion constant (where rankings of different queries are fused: a note
#: scores the sum of 1 / (RRF_K + rank) over the lists).
RRF_K = 60
#: The vector half's share of a hybrid score; the keyword half has the rest. Each half's
#: score is scaled to 0..1 between the last and the best of its ranking first, the best
#: counting at most :data:`RUNAWAY` times the runner-up's margin over the last.
VECTOR_WEIGHT = 0.5
#: How far ahead of the runner-up the best of a half may scale (in margins over the last of
#: its ranking): one note far ahead in a half (a runaway top) scores 1 there and the rest of
#: that half keeps its spread, where min-max scaling squashed it below the runaway.
RUNAWAY = 2.0
#: How hits collapse to one per source, by ``collapseBy``: ``sourceRef`` (every note with a
#: sourceRef), absent (a conversation's turns, :func:`conversation_turn`: the turns of one
#: conversation are one source), or ``none``. The value is the query's ``$collapse``.
COLLAPSE: dict[str | None, str | None] = {"sourceRef": "sourceRef", None: "conversation", "none": None}
#: The sourceRef prefix of the facts consolidation draws from a thread (``thread:<id>``): each
#: is a fact of its own, so they do not collapse by default as a conversation's turns do.
FACTS_FROM_THREAD = "thread:"


def conversation_turn(node: dict[str, Any]) -> bool:
    """Whether a note is one of a conversation's turns, which count once per conversation by
    default (as the search queries' ``src`` tells them)."""
    ref = node.get("sourceRef")
    return node.get("source") == "conversation" and bool(ref) and not str(ref).startswith(FACTS_FROM_THREAD)


@dataclass
class Retrieval:
    """What one search query returned, and the vector plan that ran."""

    row: dict[str, Any]
    plan: str

    @property
    def vector_hits(self) -> list[tuple[str, float]]:
        """The vector ranking as (id, plain cosine)."""
        return [(h["id"], cosine_from_score(h["score"])) for h in self.row["vectorHits"]]

    @property
    def text_hits(self) -> list[tuple[str, float]]:
        """The keyword ranking as (id, Lucene score)."""
        return [(h["id"], float(h["score"])) for h in self.row["textHits"]]


async def retrieve(
    tx: AsyncManagedTransaction,
    *,
    user_id: str,
    mode: str,
    vector: list[float] | None = None,
    text: str | None = None,
    seed_ids: list[str] | None = None,
    top_k: int,
    pool: int,
    filters: dict[str, Any],
    depth: int,
    rel_types: list[str],
    direction: str,
    sizes: TenantSizes,
    config: VectorPlanConfig,
    scope: dict[str, list[str]] | None = None,
    collapse: str | None = None,
    term_limit: int = TERM_LIMIT,
    bare: bool = False,
    max_reached: int = MAX_REACHED,
) -> Retrieval:
    """Ranking, expansion and the edges among the returned notes, in one query.

    ``mode`` is ``vector``, ``fulltext``, ``hybrid`` (both halves, each ``pool`` long, their
    scaled scores fused: see the module docstring) or ``seeds`` (start from ``seed_ids``: a neighbourhood).
    The vector half uses the user's true top-``pool`` (see the module docstring): when the
    oversampled index leaves fewer than ``pool`` of the user's notes, the query runs again
    with more candidates, then exactly. ``scope`` (a key's entity scope as a parameter)
    narrows both halves and every hop of the expansion. ``collapse`` keeps the best hit of
    each source (before the top ``top_k`` is taken from the ranking): a value of
    :data:`COLLAPSE`; then each half ranks four times ``pool``, so the top k can fill with
    distinct sources (by default only for a user who holds a conversation's notes: for the
    others it changes nothing, and they do not pay for it). ``term_limit`` bounds the matches
    read per query word (see :data:`TERM_LIMIT`). ``bare`` answers the ranking alone (ids and
    scores), without reading the hits' notes and edges. Expansion reaches at most
    ``max_reached`` notes, breadth first, and the answer carries at most :data:`MAX_EDGES`
    edges (``truncated`` when either left some out).
    """
    mine = total = 0
    conversations = False
    if vector is not None or text:
        mine, total, conversations = await sizes.get(tx, user_id)
    if collapse == "sourceRef" or (collapse == "conversation" and conversations):
        pool *= 4
    params: dict[str, Any] = {
        "userId": user_id,
        "mode": mode,
        "vector": vector,
        **keyword_params(text, user_id, mine, term_limit),
        "seedIds": seed_ids,
        "topK": top_k,
        "pool": pool,
        "textCandidates": max(pool * 4, 50),
        "vectorWeight": VECTOR_WEIGHT,
        "runaway": RUNAWAY,
        "checked": top_k + CHECKED_PAST_TOP_K,
        "relTypes": rel_types,
        "direction": direction,
        "scope": scope,
        "filtered": scope is not None or any(filters.get(k) is not None for k in NOTE_FILTERS),
        "collapse": collapse,
        "bare": bare,
        "maxReached": max_reached,
        "maxEdges": MAX_EDGES,
        "validAt": None,  # valid time unless ``filters`` set it (see retrieval.valid_params)
        "asOf": None,
        "begunAfter": None,
        "begunBefore": None,
        **filters,
    }
    query = SEARCH_QUERIES[depth]
    candidates = None
    if vector is not None:
        candidates = config.index_candidates(pool, mine, total)
    if candidates is not None:
        while True:
            [row] = await run_rows(tx, query, candidates=candidates, **params)
            if row["matched"] >= pool or candidates >= total:
                return Retrieval(row, f"index({candidates})")
            if candidates >= config.ann_max_candidates:
                break
            candidates = min(config.ann_max_candidates, candidates * 4)
    [row] = await run_rows(tx, query, candidates=None, **params)
    return Retrieval(row, "exact" if vector is not None else mode)
