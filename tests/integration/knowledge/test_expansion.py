"""Graph-aware expansion, over real HTTP: a breadth-first walk, each note once at its nearest
depth with the edges that reached it, and bounded, the nearest kept, however dense the graph
around the hits is (a clique once made a depth-3 search enumerate every path through it)."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from tests.integration.conftest import Caller, MakeCaller

TYPES = ("relatedTo", "dependsOn", "supersedes", "conflictsWith")


async def _notes(caller: Caller, ids: list[str]) -> None:
    for start in range(0, len(ids), 500):
        items = [
            {"id": i, "title": f"Note {i}", "content": f"What {i} holds.", "type": "fact", "dedupe": False}
            for i in ids[start : start + 500]
        ]
        assert (await caller.http.post("/v1/knowledge/batch", json={"items": items})).status_code == 201


async def _edges(caller: Caller, edges: list[tuple[str, str, str]]) -> None:
    for start in range(0, len(edges), 1000):
        items = [{"sourceId": s, "type": t, "targetId": d} for s, t, d in edges[start : start + 1000]]
        made = await caller.http.post("/v1/connections/batch", json={"items": items})
        assert made.status_code == 201, made.text[:300]


def _walk(
    edges: list[tuple[str, str, str]], seed: str, depth: int, direction: str
) -> dict[str, tuple[int, set[tuple[str, str, str]]]]:
    """Breadth first from ``seed``: each note's nearest depth and the edges that reach it
    from the depth before (what the API must answer), computed here from the edge list."""
    steps: dict[str, list[tuple[str, tuple[str, str, str]]]] = defaultdict(list)
    for edge in edges:
        source, _, target = edge
        if direction in ("both", "out"):
            steps[source].append((target, edge))
        if direction in ("both", "in"):
            steps[target].append((source, edge))
    found: dict[str, tuple[int, set[tuple[str, str, str]]]] = {}
    frontier, seen = [seed], {seed}
    for level in range(1, depth + 1):
        reached: dict[str, set[tuple[str, str, str]]] = defaultdict(set)
        for note in frontier:
            for other, edge in steps[note]:
                if other not in seen:
                    reached[other].add(edge)
        found |= {n: (level, vias) for n, vias in reached.items()}
        seen |= set(reached)
        frontier = list(reached)
    return found


def _answered(nodes: list[dict[str, Any]]) -> dict[str, tuple[int, set[tuple[str, str, str]]]]:
    return {
        n["node"]["id"]: (n["depth"], {(v["sourceId"], v["type"], v["targetId"]) for v in n["via"]})
        for n in nodes
    }


async def test_expansion_is_the_breadth_first_walk_of_a_random_graph(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    ids = [f"r{n:02d}" for n in range(40)]
    await _notes(alice, ids)
    chance = random.Random(7)
    pairs = {tuple(chance.sample(ids, 2)) for _ in range(90)}
    edges = sorted({(s, chance.choice(TYPES[:2]), t) for s, t in pairs if (t, s) not in pairs})
    await _edges(alice, edges)
    for seed in ("r00", "r07", "r19"):
        for depth in (1, 2, 3):
            hood = await alice.http.get(
                f"/v1/knowledge/{seed}/neighborhood", params={"depth": depth, "limit": 500}
            )
            assert hood.status_code == 200, hood.text[:300]
            assert _answered(hood.json()["nodes"]) == _walk(edges, seed, depth, "both"), (seed, depth)
            assert "truncated" not in hood.json()
        for direction in ("out", "in"):
            body = {"query": f"What {seed} holds", "mode": "fulltext", "topK": 1, "maxDepth": 3,
                    "direction": direction, "maxExpanded": 500}  # fmt: skip
            found = (await alice.http.post("/v1/search", json=body)).json()
            assert [h["node"]["id"] for h in found["hits"]] == [seed]
            assert _answered(found["expanded"]) == _walk(edges, seed, 3, direction), (seed, direction)


async def test_a_dense_neighbourhood_is_cut_to_the_nearest_and_says_so(make_caller: MakeCaller) -> None:
    """A hub with 30 spokes, each spoke with two leaves of its own, and a clique of 46 notes
    (1,035 edges) beside it."""
    alice = await make_caller()
    spokes = [f"s{n:02d}" for n in range(30)]
    leaves = [f"l{n:02d}{k}" for n in range(30) for k in "ab"]
    clique = [f"k{n:02d}" for n in range(46)]
    await _notes(alice, ["hub", *spokes, *leaves, *clique])
    star = [("hub", "relatedTo", s) for s in spokes] + [
        (s, "dependsOn", f"l{s[1:]}{k}") for s in spokes for k in "ab"
    ]
    mesh = [(a, "relatedTo", b) for i, a in enumerate(clique) for b in clique[i + 1 :]]
    await _edges(alice, star + mesh)

    whole = (await alice.http.get("/v1/knowledge/hub/neighborhood", params={"depth": 2, "limit": 500})).json()
    assert len(whole["nodes"]) == 90 and len(whole["edges"]) == 90 and "truncated" not in whole
    cut = (await alice.http.get("/v1/knowledge/hub/neighborhood", params={"depth": 2, "limit": 10})).json()
    assert [n["node"]["id"] for n in cut["nodes"]] == spokes[:10] and cut["truncated"] is True
    assert {n["depth"] for n in cut["nodes"]} == {1}
    nearer = (await alice.http.get("/v1/knowledge/hub/neighborhood", params={"depth": 2, "limit": 40})).json()
    assert {n["node"]["id"] for n in nearer["nodes"]} == {*spokes, *sorted(leaves)[:10]}
    assert nearer["truncated"] is True

    dense = (await alice.http.get("/v1/knowledge/k00/neighborhood", params={"depth": 3, "limit": 500})).json()
    assert len(dense["nodes"]) == 45 and {n["depth"] for n in dense["nodes"]} == {1}
    assert len(dense["edges"]) == 1_000 and dense["truncated"] is True  # of 1,035 among them
    none = await alice.http.post(
        "/v1/search",
        json={"query": "What k00 holds", "mode": "fulltext", "topK": 1, "maxDepth": 3, "maxExpanded": 0},
    )
    assert none.status_code == 200 and none.json()["expanded"] == [] and none.json()["truncated"] is True
    # By default a search keeps the 50 nearest: the hub's 30 spokes, then 20 of their leaves.
    far = await alice.http.post(
        "/v1/search", json={"query": "What hub holds", "mode": "fulltext", "topK": 1, "maxDepth": 3}
    )
    assert [h["node"]["id"] for h in far.json()["hits"]] == ["hub"] and far.json()["truncated"] is True
    assert {n["node"]["id"] for n in far.json()["expanded"]} == {*spokes, *sorted(leaves)[:20]}
