"""Hits per source: collapseBy sourceRef, and by default one hit per conversation, over real HTTP."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.integration.conftest import MakeCaller
from tests.integration.knowledge.seeding import note, seed


async def test_collapse_by_source_ref_fills_top_k_with_distinct_sources(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    axis = np.eye(384)

    def toward(weight: float) -> list[float]:
        # Cosine `weight` to the query vector (axis 0), the rest on axis 1.
        vector = weight * axis[0] + np.sqrt(1 - weight**2) * axis[1]
        return [float(x) for x in vector]

    await seed(
        alice,
        note("a1", "Doc A, part 1", "The first part.", sourceRef="doc:a", embedding=toward(0.99)),
        note("a2", "Doc A, part 2", "The second part.", sourceRef="doc:a", embedding=toward(0.98)),
        note("a3", "Doc A, part 3", "The third part.", sourceRef="doc:a", embedding=toward(0.97)),
        note("b1", "Doc B, part 1", "Another document.", sourceRef="doc:b", embedding=toward(0.96)),
        note("b2", "Doc B, part 2", "Its second part.", sourceRef="doc:b", embedding=toward(0.95)),
        note("loose", "A loose note", "From nowhere in particular.", embedding=toward(0.94)),
        note("loose2", "Another loose note", "Also from nowhere.", embedding=toward(0.93)),
    )
    base = {
        "query": "parts",
        "mode": "vector",
        "topK": 4,
        "embedding": toward(1.0),
        "expandConnections": False,
    }

    async def ids(**extra: Any) -> list[str]:
        answer = await alice.http.post("/v1/search", json={**base, **extra})
        assert answer.status_code == 200, answer.text
        return [h["node"]["id"] for h in answer.json()["hits"]]

    assert await ids() == ["a1", "a2", "a3", "b1"]
    # The best hit of each source, best first; a note without a sourceRef is its own source.
    assert await ids(collapseBy="sourceRef") == ["a1", "b1", "loose", "loose2"]
    assert await ids(collapseBy="sourceRef", topK=2) == ["a1", "b1"]
    hybrid = await ids(collapseBy="sourceRef", mode="hybrid", query="part")
    sources = {"a1": "a", "a2": "a", "a3": "a", "b1": "b", "b2": "b"}
    assert len({sources.get(i, i) for i in hybrid}) == len(hybrid) == 4

    bad = await alice.http.post("/v1/search", json={**base, "collapseBy": "title"})
    assert bad.status_code == 422 and "collapseBy" in bad.text


async def test_a_conversation_counts_once_by_default(make_caller: MakeCaller) -> None:
    """Without collapseBy, the turns of one conversation (source conversation, one sourceRef)
    take one place, in every mode and in a search that reads dates; other notes sharing a
    sourceRef do not collapse, nor do the facts consolidation drew from a thread; collapseBy
    none keeps every hit; another user's turns of a conversation with the same sourceRef
    change nothing."""
    alice, bob = await make_caller(), await make_caller()
    axis = np.eye(384)

    def toward(weight: float) -> list[float]:
        return [float(x) for x in weight * axis[0] + np.sqrt(1 - weight**2) * axis[1]]

    said = {"source": "conversation"}
    await seed(
        alice,
        note(
            "t1",
            "Gym on Monday",
            "I went to the gym on Monday.",
            sourceRef="s1",
            embedding=toward(0.99),
            **said,
        ),
        note(
            "t2",
            "The gym again",
            "The gym was busy on Monday.",
            sourceRef="s1",
            embedding=toward(0.98),
            **said,
        ),
        note("t3", "Gym plan", "My gym plan for Monday.", sourceRef="s2", embedding=toward(0.97), **said),
        note("d1", "Gym doc, part 1", "The gym opens on Monday.", sourceRef="doc", embedding=toward(0.96)),
        note("d2", "Gym doc, part 2", "The gym closes on Monday.", sourceRef="doc", embedding=toward(0.95)),
        # Facts consolidation drew from a thread are each their own.
        note(
            "f1",
            "Gym fact",
            "The user lifts on Mondays.",
            sourceRef="thread:t",
            embedding=toward(0.94),
            **said,
        ),
        note(
            "f2",
            "Gym fact 2",
            "The user swims on Mondays.",
            sourceRef="thread:t",
            embedding=toward(0.93),
            **said,
        ),
    )
    base = {"query": "gym monday", "topK": 4, "embedding": toward(1.0), "expandConnections": False}

    async def ids(caller: Any = alice, **extra: Any) -> list[str]:
        answer = await caller.http.post("/v1/search", json={**base, **extra})
        assert answer.status_code == 200, answer.text
        return [h["node"]["id"] for h in answer.json()["hits"]]

    assert await ids(mode="vector") == ["t1", "t3", "d1", "d2"]
    assert await ids(mode="vector", collapseBy="none") == ["t1", "t2", "t3", "d1"]
    assert await ids(mode="vector", collapseBy="sourceRef") == ["t1", "t3", "d1", "f1"]
    assert await ids(mode="vector", topK=6) == ["t1", "t3", "d1", "d2", "f1", "f2"]
    for mode in ("hybrid", "fulltext"):
        found = await ids(mode=mode)
        assert not {"t1", "t2"} <= set(found) and len(found) == len(set(found)) == 4, (mode, found)
        assert {"t1", "t2"} <= set(await ids(mode=mode, collapseBy="none", topK=7)), mode
    dated = await ids(mode="vector", readDates=True, recency=0.1, query="what did I do at the gym yesterday?")
    assert not {"t1", "t2"} <= set(dated) and len(dated) == 4, dated

    before = await ids(mode="hybrid")
    await seed(
        bob,
        *(note(f"b{n}", "Gym on Monday", "The gym on Monday, again.", sourceRef="s2", embedding=toward(0.999),
               **said) for n in range(5)),
    )  # fmt: skip
    assert await ids(mode="hybrid") == before
    assert await ids(bob, mode="vector") == ["b0"]
