"""Where the threshold for telling a conversation of a new decision sits, for the local
embedder: the cosines of unrelated and of related question-turn pairs of the retrieval
yardstick (LongMemEval-S, and 1,500 turns sampled from the oracle split against all its 470
questions), and the share of each at or above candidate thresholds.

A question stands in for a decision, a turn for a thread's gist: a pair is related when the
turn is in one of the question's supporting sessions. The share of unrelated pairs above a
threshold is about the share of unrelated threads a decision would be announced in.

Run with ``python -m bench.notify`` (about 3 minutes).
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import numpy as np

from bench.common import machine, save
from bench.retrieval import load_dataset, load_oracle
from graph.core.embeddings import build_embedder, notify_floor
from graph.core.settings import Settings

THRESHOLDS = (0.6, 0.65, 0.7, 0.76)
ORACLE_SAMPLE = 1_500


def main() -> dict[str, Any]:
    """Measure both sets and save the figures."""
    settings = Settings(embedding_threads=2)
    embedder = build_embedder(settings)
    figures: dict[str, Any] = {"embedder": embedder.model_id, "default": notify_floor(Settings())}
    for name, loader, sample in (("S", load_dataset, None), ("oracle", load_oracle, ORACLE_SAMPLE)):
        turns, questions = loader()
        if sample:
            turns = random.Random(7).sample(turns, sample)
        turn_vectors = np.array(asyncio.run(embedder.embed([t.text for t in turns])))
        question_vectors = np.array(asyncio.run(embedder.embed([q.question for q in questions])))
        cosines = question_vectors @ turn_vectors.T
        unrelated, related = [], []
        for i, question in enumerate(questions):
            for j, turn in enumerate(turns):
                (related if turn.session in question.supporting else unrelated).append(float(cosines[i, j]))
        u, r = np.array(unrelated), np.array(related)
        figures[name] = {
            "pairs": {"unrelated": len(u), "related": len(r)},
            "unrelated_quantiles": {
                f"{p}": round(float(np.quantile(u, p / 100)), 3) for p in (99, 99.9, 99.99)
            },
            "unrelated_at_or_above": {f"{t}": round(float((u >= t).mean()), 5) for t in THRESHOLDS},
            "related_at_or_above": {f"{t}": round(float((r >= t).mean()), 3) for t in THRESHOLDS},
        }
        print(name, json.dumps(figures[name]), flush=True)
    path = save("notify", figures)
    print(f"notify thresholds on {machine()['cpu']} -> {path}")
    return figures


if __name__ == "__main__":
    main()
