"""Each local model's dedupe threshold, measured: ``python -m bench.dedupe`` (about a minute).

A new note whose cosine to a stored one reaches the threshold updates it instead of being
stored beside it. Merging two different facts loses one of them, silently; missing a
restatement only leaves a duplicate. So the threshold is chosen by the pairs that must not
merge, and the restatements it then catches are reported:

* **must not merge**: the 25 hand-written pairs of ``bench/data/twins.json`` ("different":
  same subject, another fact, e.g. the Q3 and the Q4 budget), and every pair of turns from
  two different sessions of the LongMemEval-S subset (``bench/retrieval.py``'s data, as the
  same notes: title + content, cut at 250 words; about 180,000 pairs);
* **should merge**: the 25 pairs of ``twins.json`` "same" (one fact, restated).

The threshold is the highest cosine of a must-not-merge pair, rounded up to the next 0.01.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import machine, save
from bench.retrieval import load_dataset, title
from graph.core.embeddings import LOCAL_MODELS, LocalEmbedder

PAIRS = Path(__file__).parent / "data" / "twins.json"


def note(pair_side: list[str]) -> str:
    """A note as it is embedded: title, newline, content."""
    return f"{pair_side[0]}\n{pair_side[1]}"


def cosines(embedder: LocalEmbedder, pairs: list[list[list[str]]]) -> np.ndarray:
    left = np.array(embedder.embed_sync([note(p[0]) for p in pairs]))
    right = np.array(embedder.embed_sync([note(p[1]) for p in pairs]))
    return (left * right).sum(axis=1)


def measure(name: str) -> dict[str, Any]:
    embedder = LocalEmbedder(LOCAL_MODELS[name])
    pairs = json.loads(PAIRS.read_text())
    same = cosines(embedder, pairs["same"])
    different = cosines(embedder, pairs["different"])
    turns, _ = load_dataset()
    vectors = np.array(embedder.embed_sync([f"{title(t.text)}\n{t.text}" for t in turns]))
    sessions = np.array([t.session for t in turns])
    upper = np.triu_indices(len(turns), 1)
    cross = sessions[upper[0]] != sessions[upper[1]]
    corpus = (vectors @ vectors.T)[upper][cross]
    highest = max(float(different.max()), float(corpus.max()))
    threshold = math.ceil(highest * 100) / 100
    return {
        "threshold": threshold,
        "highest_must_not_merge": round(highest, 3),
        "highest_different_fact_pair": round(float(different.max()), 3),
        "highest_cross_session_pair": round(float(corpus.max()), 3),
        "cross_session_pairs": int(cross.sum()),
        "restatements_caught": f"{int((same >= threshold).sum())}/{len(same)}",
        "restatements_caught_at_0.95": f"{int((same >= 0.95).sum())}/{len(same)}",
        "restatement_cosines": [round(float(c), 3) for c in sorted(same)],
        "model_default": LOCAL_MODELS[name].dedupe_threshold,
    }


def main() -> dict[str, Any]:
    figures = {name: measure(name) for name in LOCAL_MODELS}
    print(json.dumps(figures, indent=2))
    print("\n| model | highest must-not-merge cosine | threshold | restatements caught | at 0.95 |")
    print("|---|---|---|---|---|")
    for name, f in figures.items():
        print(
            f"| {name} | {f['highest_must_not_merge']} | {f['threshold']} | {f['restatements_caught']} "
            f"| {f['restatements_caught_at_0.95']} |"
        )
    stale = [n for n, f in figures.items() if f["threshold"] != f["model_default"]]
    if stale:
        print(f"note: the default in graph/core/embeddings.py differs for {', '.join(stale)}")
    path = save("dedupe", figures)
    print(f"dedupe figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    main()
