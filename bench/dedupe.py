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

Above the threshold, a pair that changes a value is an update, never a restatement
(:mod:`graph.knowledge.updates`): the labelled pairs of ``bench/data/updates.json``
(changed values from LongMemEval's knowledge-update questions and hand-written ones, and
restatements of the same values in other words) give, per model, how many updates reach the
threshold (all of which folded before the rule) and how many still fold with it (the goal:
none), and how many restatements fold with and without it (the goal: as many).
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
from graph.knowledge.updates import compare

PAIRS = Path(__file__).parent / "data" / "twins.json"
UPDATES = Path(__file__).parent / "data" / "updates.json"


def note(pair_side: list[str]) -> str:
    """A note as it is embedded: title, newline, content."""
    return f"{pair_side[0]}\n{pair_side[1]}"


def cosines(embedder: LocalEmbedder, pairs: list[list[list[str]]]) -> np.ndarray:
    left = np.array(embedder.embed_sync([note(p[0]) for p in pairs]))
    right = np.array(embedder.embed_sync([note(p[1]) for p in pairs]))
    return (left * right).sum(axis=1)


def plain_cosines(embedder: LocalEmbedder, pairs: list[list[str]]) -> np.ndarray:
    left = np.array(embedder.embed_sync([old for old, _ in pairs]))
    right = np.array(embedder.embed_sync([new for _, new in pairs]))
    return (left * right).sum(axis=1)


def folds(embedder: LocalEmbedder, threshold: float, pairs: list[list[str]]) -> dict[str, Any]:
    """Of these (old, new) contents: how many reach the threshold (folded by cosine alone),
    and how many of those still fold once an update is told from a restatement."""
    reach = [pair for pair, c in zip(pairs, plain_cosines(embedder, pairs), strict=True) if c >= threshold]
    folded = [pair for pair in reach if compare(*pair) is None]
    return {
        "pairs": len(pairs),
        "reach_threshold": len(reach),
        "fold_with_rule": len(folded),
        "folded": folded,
    }


def measure_updates(embedder: LocalEmbedder, threshold: float, same: list[list[list[str]]]) -> dict[str, Any]:
    labelled = json.loads(UPDATES.read_text())
    updates = [pair for pairs in labelled["updates"].values() for pair in pairs]
    restatements = labelled["restatements"] + [[old[1], new[1]] for old, new in same]
    return {
        "updates": folds(embedder, threshold, updates),
        "restatements": folds(embedder, threshold, restatements),
        "rule_alone": {
            "updates_told": sum(compare(*pair) is not None for pair in updates),
            "updates": len(updates),
            "restatements_told_as_updates": sum(compare(*pair) is not None for pair in restatements),
            "restatements": len(restatements),
        },
    }


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
        "updates_and_restatements": measure_updates(
            embedder, LOCAL_MODELS[name].dedupe_threshold, pairs["same"]
        ),
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
    print(
        "\n| model | threshold | updates reaching it | updates folded with the rule "
        "| restatements reaching it | restatements folded with the rule |"
    )
    print("|---|---|---|---|---|---|")
    for name, f in figures.items():
        u, r = f["updates_and_restatements"]["updates"], f["updates_and_restatements"]["restatements"]
        print(
            f"| {name} | {f['model_default']} | {u['reach_threshold']}/{u['pairs']} | {u['fold_with_rule']} "
            f"| {r['reach_threshold']}/{r['pairs']} | {r['fold_with_rule']} |"
        )
    stale = [n for n, f in figures.items() if f["threshold"] != f["model_default"]]
    if stale:
        print(f"note: the default in graph/core/embeddings.py differs for {', '.join(stale)}")
    path = save("dedupe", figures)
    print(f"dedupe figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    main()
