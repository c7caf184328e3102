"""A hybrid search that asks for time puts the newer of two near-tied hits first
(``graph.knowledge.near_ties``), over HTTP against the real Neo4j."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.integration.conftest import Caller, MakeCaller

DIMENSION = 384
ASKED = "2025-03-20T18:00:00Z"


def toward(question: np.ndarray, cosine: float, seed: int) -> list[float]:
    """A unit vector at ``cosine`` to ``question`` (a unit vector), otherwise random."""
    side = np.random.default_rng(seed).standard_normal(DIMENSION)
    side -= (side @ question) * question
    side /= np.linalg.norm(side)
    return [float(x) for x in cosine * question + np.sqrt(1 - cosine**2) * side]


def note(node_id: str, content: str, began: str, vector: list[float]) -> dict[str, Any]:
    return {
        "id": node_id, "title": content[:40], "content": content, "type": "fact", "validFrom": began,
        "embedding": vector, "dedupe": False,
    }  # fmt: skip


async def hits(caller: Caller, vector: list[float], **body: Any) -> list[tuple[str, float]]:
    answer = await caller.http.post(
        "/v1/search",
        json={
            "query": "When is Dana's standup?", "embedding": vector, "topK": 3, "asOf": ASKED,
            "expandConnections": False, **body,
        },
    )  # fmt: skip
    assert answer.status_code == 200, answer.text
    return [(h["node"]["id"], h["score"]) for h in answer.json()["hits"]]


#: (id, text, when it began, its cosine to the question): the old and the new value alike
#: in words, the new a little farther in vectors (hybrid 0.975 against 1.0), and the newer
#: lunch note clearly behind both.
NOTES = [
    ("old", "Dana's standup is at 9:30 every weekday.", "2025-01-10T09:00:00Z", 0.90),
    ("new", "Dana's standup is at 10:15 every weekday.", "2025-03-03T09:00:00Z", 0.89),
    ("lunch", "Dana has lunch with the team on Fridays.", "2025-03-14T12:00:00Z", 0.70),
]


async def test_an_update_near_tied_with_its_older_value_comes_first(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    question = np.random.default_rng(7).standard_normal(DIMENSION)
    question /= np.linalg.norm(question)
    stored = [
        note(i, text, began, toward(question, cosine, n)) for n, (i, text, began, cosine) in enumerate(NOTES)
    ]
    answer = await alice.http.post("/v1/knowledge/batch", json={"items": stored})
    assert answer.status_code == 201, answer.text
    asked = [float(x) for x in question]

    plain = await hits(alice, asked)
    assert [i for i, _ in plain] == ["old", "new", "lunch"], plain  # the words and vectors alone
    assert plain[1][1] >= 0.95 * plain[0][1] > plain[2][1] / 0.95, plain
    # a vector search's cosines lie close together: it keeps its order even when asking for time
    vector = await hits(alice, asked, mode="vector", readDates=True)
    assert [i for i, _ in vector] == ["old", "new", "lunch"], vector
    # (recency 0.01 alone leaves the older first: 1.0 x 0.958 against 0.975 x 0.971)
    for body in ({"readDates": True}, {"recency": 0.01}):
        dated = await hits(alice, asked, **body)
        # the update within 5 % of its older value goes first; the newer note clearly behind stays
        assert [i for i, _ in dated] == ["new", "old", "lunch"], (body, dated)
    moved = dict(await hits(alice, asked, readDates=True))
    assert moved == dict(plain), "the scores are the ranking's, only the order moved"
