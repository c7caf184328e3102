"""Unified search over HTTP against the real Neo4j: one ranking across knowledge, memory and
docs, each result labelled by its layer and scored like the layer's own search scores it;
layer selection; bad input; other users and scoped keys."""

from __future__ import annotations

from typing import Any

import pytest

from graph.core.principals import Role, Scope
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.project.test_decisions import extracted, thread

QUERY = "which database keeps the orders"


async def fill(caller: Caller) -> None:
    """One thing of each layer about where orders are kept, and one unrelated of each."""
    orders = "The orders table is indexed by customer."
    notes = [
        {"id": "n-orders", "title": "Orders table", "content": orders, "type": "fact", "tags": ["db"]},
        {"id": "n-lunch", "title": "Lunch", "content": "The team eats lunch at noon.", "type": "fact"},
    ]
    for note in notes:
        assert (await caller.http.post("/v1/knowledge", json=note)).status_code == 201
    await thread(
        caller, "t-1", "Weekly sync", "We decided to keep all orders in PostgreSQL.", "I prefer tea."
    )
    await extracted(caller, "t-1")
    decision = {
        "id": "adr-db",
        "title": "Orders live in PostgreSQL",
        "context": "c",
        "decision": "Orders are stored in PostgreSQL.",
    }
    assert (await caller.http.post("/v1/decisions", json=decision)).status_code == 201
    pattern = {
        "id": "p-lint",
        "title": "Lint before push",
        "description": "Run the linter before every push.",
    }
    assert (await caller.http.post("/v1/patterns", json=pattern)).status_code == 201
    docs = {"capabilities": ["Write SQL migrations for the orders database.", "Paint the office walls."]}
    assert (await caller.http.put("/v1/agents/coder/docs", json=docs)).status_code == 200


async def unified(caller: Caller, **body: Any) -> list[dict[str, Any]]:
    answer = await caller.http.post("/v1/search/unified", json={"query": QUERY} | body)
    assert answer.status_code == 200, answer.text
    results: list[dict[str, Any]] = answer.json()["results"]
    return results


async def test_one_ranking_across_the_layers(make_caller: MakeCaller) -> None:
    alice = await make_caller(Role.HUMAN)
    await fill(alice)
    results = await unified(alice, topK=20)
    by_id = {r["item"]["id"]: r for r in results}
    assert {r["layer"] for r in results} == {"knowledge", "memory", "docs"}
    assert (by_id["n-orders"]["layer"], by_id["n-orders"]["kind"]) == ("knowledge", "note")
    # A decision is a note, but it is project context: the docs layer.
    assert (by_id["adr-db"]["layer"], by_id["adr-db"]["kind"]) == ("docs", "note")
    assert (
        by_id["coder:capability:0"]["layer"] == "docs" and by_id["coder:capability:0"]["kind"] == "agentDoc"
    )
    memory = [r for r in results if r["layer"] == "memory"]
    assert memory and memory[0]["item"]["content"].startswith("We decided to keep all orders in PostgreSQL")
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    # One measure for every layer: each score is the cosine the layer's own search gives.
    vector = (await alice.http.post("/v1/search", json={"query": QUERY, "mode": "vector", "topK": 10})).json()
    for hit in vector["hits"]:
        if hit["node"]["id"] in by_id:
            assert abs(by_id[hit["node"]["id"]]["score"] - hit["score"]) < 1e-3
    recalled = (await alice.http.post("/v1/context/user", json={"query": QUERY})).json()["insights"]
    assert abs(memory[0]["score"] - recalled[0]["score"]) < 1e-3
    # The orders things outrank the unrelated ones, whatever their layer.
    order = [r["item"]["id"] for r in results]
    for related in ("adr-db", "n-orders", "coder:capability:0", memory[0]["item"]["id"]):
        for unrelated in ("n-lunch", "coder:capability:1"):
            if unrelated in order:
                assert order.index(related) < order.index(unrelated)

    # Layer selection.
    assert {r["layer"] for r in await unified(alice, layers=["memory"])} == {"memory"}
    docs_only = await unified(alice, layers=["docs"], topK=3)
    assert {r["layer"] for r in docs_only} == {"docs"} and len(docs_only) == 3
    knowledge = await unified(alice, layers=["knowledge"], topK=20)
    assert "adr-db" not in [r["item"]["id"] for r in knowledge] and "n-orders" in [
        r["item"]["id"] for r in knowledge
    ]
    top = await unified(alice, topK=2)
    assert [r["item"]["id"] for r in top] == order[:2]


async def test_knowledge_brings_the_notes_nearest_the_query(make_caller: MakeCaller) -> None:
    """The one ranking is by cosine, so the knowledge layer's results are the user's notes
    nearest the query, as a vector search ranks them, whatever notes share its words."""
    alice = await make_caller(Role.HUMAN)
    near = [
        "Customer orders live in PostgreSQL.",
        "The order service writes to the orders database.",
        "Orders are stored in Postgres, sharded by customer.",
        "Where is order data kept? In PostgreSQL.",
    ]
    words = [
        f"The court orders {n} witnesses to keep quiet about which database they saw." for n in range(12)
    ]
    notes = [{"title": f"Note {i}", "content": text, "type": "fact", "dedupe": False}
             for i, text in enumerate(near + words)]  # fmt: skip
    assert (await alice.http.post("/v1/knowledge/batch", json={"items": notes})).status_code in (200, 201)
    found = await unified(alice, layers=["knowledge"], topK=4)
    nearest = (await alice.http.post("/v1/search", json={"query": QUERY, "mode": "vector", "topK": 4})).json()
    assert [r["item"]["id"] for r in found] == [h["node"]["id"] for h in nearest["hits"]]
    assert {r["item"]["content"] for r in found} == set(near)


@pytest.mark.smoke
async def test_bad_input_other_users_and_scoped_keys(make_caller: MakeCaller) -> None:
    alice = await make_caller(Role.HUMAN)
    await fill(alice)
    before = await unified(alice, topK=20)
    bob = await make_caller(Role.HUMAN)
    assert await unified(bob, topK=20) == []
    await fill(bob)  # the same things under the same ids: alice's answer does not move
    assert await unified(alice, topK=20) == before
    for body, field in (
        ({"query": QUERY, "layers": ["bogus"]}, "layers.0"),
        ({"query": QUERY, "layers": []}, "layers"),
        ({"query": " "}, "query"),
        ({"query": QUERY, "topK": 0}, "topK"),
    ):
        bad = await alice.http.post("/v1/search/unified", json=body)
        assert bad.status_code == 422 and bad.json()["error"]["field"] == field, bad.text
    # A scoped key finds the notes of its scope only.
    scoped = await make_caller(Role.AGENT, agent_id="coder", user_id=alice.user_id, scope=Scope(tags=("db",)))
    found = await unified(scoped, topK=20)
    assert [r["item"]["id"] for r in found] == ["n-orders"]
