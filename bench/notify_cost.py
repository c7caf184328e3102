"""The cost of telling a decision's conversations at scale, for :mod:`bench.notify_pairs`:
recording a decision for a user with :data:`SCALE_THREADS` recent threads (of which a decision
reads the 500 most recent) of :data:`SCALE_INSIGHTS` insights each, server time, beside the
statement that reads them, raw."""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

import httpx

from bench.corpus import Corpus, server_seconds, user_key
from bench.project import load_threads
from graph.core.cypher import cypher_text
from graph.core.embeddings import Embedder, embed_each
from graph.project import notify as notifying
from graph.project.affected import SCAN_INSIGHTS, SCAN_THREADS, DecisionVectors

#: The cost at scale: a user with this many recent threads (the most a decision reads) and
#: this many insights each, and how many decisions are timed.
SCALE_THREADS = 4 * SCAN_THREADS
SCALE_INSIGHTS = 10
SCALE_RUNS = 10
#: The scale user's threads get the second model's vectors as copies of their synthetic gist
#: vectors (the read's time does not depend on the values).
SECOND_COPIES = """
MATCH (t:Thread) WHERE t.userId = $userId
CALL db.create.setNodeVectorProperty(t, 'notifyEmbedding', t.embedding)
SET t.notifyModel = $notifyModel
"""


def cost(local: Any, driver: Any, base_url: str, embedder: Any, second: Embedder | None) -> dict[str, Any]:
    """Server time of recording a decision for a user with :data:`SCALE_THREADS` recent threads
    of :data:`SCALE_INSIGHTS` insights each (clustered synthetic vectors, as
    :mod:`bench.project` writes them; each thread with a second vector when there is a second
    model), beside the statement that reads them, raw: with both models' vectors (now), with
    bge-small's alone (the third pass) and without the decision's parts (the second), taking
    turns."""
    user = "bench-notify-scale"
    corpus = Corpus(seed=SCALE_THREADS)
    topics, _ = corpus.notes(SCALE_THREADS)
    load_threads(driver, corpus, user, [(f"thread {i}", topics[i]) for i in range(SCALE_THREADS)],
                 SCALE_INSIGHTS, embedder.model_id)  # fmt: skip
    if second is not None:
        driver.execute_query(SECOND_COPIES, userId=user, notifyModel=second.model_id)
    key = asyncio.run(user_key(local.settings, user))
    query = cypher_text("queries/project/decision_threads")
    record: list[float] = []
    reads: dict[str, list[float]] = {"now": [], "bgeOnly": [], "withoutParts": []}
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120) as client:
        for n in range(SCALE_RUNS + 2):
            title, body, context, consequences = (
                f"Orders storage rule {n}",
                "Orders are stored in PostgreSQL.",
                "We need to choose.",
                ["Migrate orders."],
            )
            decision = {
                "id": f"scale-{n}", "title": title, "context": context, "decision": body,
                "consequences": consequences,
            }  # fmt: skip
            answer = client.post("/v1/decisions", json=decision)
            answer.raise_for_status()
            texts = notifying.decision_texts(title, body, consequences, context)
            first = asyncio.run(embed_each(embedder, texts))
            bge = DecisionVectors(first).params()  # the statement's parameters, as the service passes them
            now = asyncio.run(DecisionVectors.of(first, texts, second)).params()
            took: dict[str, float] = {}
            turns = [("now", now), ("bgeOnly", bge), ("withoutParts", bge | {"parts": []})]
            for name, params in turns[:: 1 if n % 2 else -1]:
                t0 = time.perf_counter()
                driver.execute_query(
                    query, userId=user, windowSeconds=30 * 86_400, scan=SCAN_THREADS, insights=SCAN_INSIGHTS,
                    agents=[], **params,
                )  # fmt: skip
                took[name] = time.perf_counter() - t0
            if n >= 2:  # two warm-up rounds
                record.append(server_seconds(answer))
                for name, seconds in took.items():
                    reads[name].append(seconds)
    return {
        "threads": SCALE_THREADS, "insights": SCALE_THREADS * SCALE_INSIGHTS,
        "recordMsP50": round(statistics.median(record) * 1000, 1),
        "readMsP50": round(statistics.median(reads["now"]) * 1000, 1),
        "readBgeOnlyMsP50": round(statistics.median(reads["bgeOnly"]) * 1000, 1),
        "readWithoutPartsMsP50": round(statistics.median(reads["withoutParts"]) * 1000, 1),
    }  # fmt: skip
