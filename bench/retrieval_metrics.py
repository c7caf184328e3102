"""The retrieval benchmark's yardstick: metrics of one question's ranked sessions, and plain
Okapi BM25, the keyword baseline outside the service.

Per question, over the top ``k`` hits taken as the sessions their turns came from:

* **recall-any@k**: at least one supporting session among them;
* **recall-all@k**: every supporting session among them;
* **nDCG@k**: each supporting session gains 1 at its first hit (later hits of the same
  session gain nothing), discounted by log2(rank + 1), over the ideal of one hit per
  supporting session at the top.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

K = 5
METRICS = ("any", "all", "ndcg")
WORD = re.compile(r"\w+", re.UNICODE)


def session_of(note_id: str) -> str:
    """The session a turn's note id names (``<session>__<turn>``)."""
    return note_id.rsplit("__", 1)[0]


def scores(ranked_sessions: Sequence[str], supporting: frozenset[str], k: int = K) -> dict[str, float]:
    """recall-any@k, recall-all@k and nDCG@k of one question's ranked hits (as sessions)."""
    top = list(ranked_sessions[:k])
    found = set(top) & supporting
    seen: set[str] = set()
    dcg = 0.0
    for rank, session in enumerate(top, 1):
        if session in supporting and session not in seen:
            seen.add(session)
            dcg += 1 / math.log2(rank + 1)
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(k, len(supporting)) + 1))
    return {
        "any": float(bool(found)),
        "all": float(found == supporting),
        "ndcg": dcg / ideal if ideal else 0.0,
    }


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    """Each metric's mean over the questions, to three places."""
    return {m: round(sum(r[m] for r in rows) / len(rows), 3) for m in METRICS}


def distinct(sessions: Sequence[str]) -> list[str]:
    """The sessions in order, each at its first place only (what collapsing by source keeps)."""
    return list(dict.fromkeys(sessions))


class BM25:
    """Okapi BM25 over lower-cased word tokens: the baseline outside the service."""

    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        counted = [Counter(w.lower() for w in WORD.findall(d)) for d in docs]
        self.lengths = [sum(d.values()) for d in counted]
        self.avg = sum(self.lengths) / len(counted)
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for i, doc in enumerate(counted):
            for word, tf in doc.items():
                self.postings.setdefault(word, []).append((i, tf))
        n = len(counted)
        self.idf = {w: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for w, p in self.postings.items()}

    def top(self, query: str, k: int) -> list[int]:
        """The indexes of the ``k`` best documents for ``query``, best first."""
        scores: dict[int, float] = {}
        for w in (w.lower() for w in WORD.findall(query)):
            for i, tf in self.postings.get(w, ()):
                norm = tf + self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                scores[i] = scores.get(i, 0.0) + self.idf[w] * tf * (self.k1 + 1) / norm
        return [i for i, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]
