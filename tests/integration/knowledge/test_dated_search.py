"""Search that reads dates (``readDates``, ``recency``) and the valid-time window filters
(``begunAfter`` / ``begunBefore``), over HTTP against the real Neo4j."""

from __future__ import annotations

import math
from typing import Any

from graph.core.principals import Role, Scope
from graph.knowledge.near_ties import newer_first
from tests.integration.conftest import Caller, MakeCaller

#: A Thursday evening: "last Saturday" is 8 March 2025.
ASKED = "2025-03-13T18:00:00Z"


def note(node_id: str, content: str, began: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": node_id, "title": content[:40], "content": content, "type": "fact", "validFrom": began,
        "dedupe": False, **extra,
    }  # fmt: skip


async def store(caller: Caller, *items: dict[str, Any]) -> None:
    answer = await caller.http.post("/v1/knowledge/batch", json={"items": list(items)})
    assert answer.status_code == 201, answer.text


async def hits(caller: Caller, query: str, **body: Any) -> list[dict[str, Any]]:
    answer = await caller.http.post(
        "/v1/search", json={"query": query, "topK": 3, "asOf": ASKED, "expandConnections": False, **body}
    )
    assert answer.status_code == 200, answer.text
    return list(answer.json()["hits"])


def ids(found: list[dict[str, Any]]) -> list[str]:
    return [h["node"]["id"] for h in found]


LAMPS = (
    note("lamp-jan", "What did I buy? I bought a brass lamp, the lamp I wanted.", "2025-01-11T10:00:00Z"),
    note("lamp-sat", "Picked up a reading lamp at the flea market.", "2025-03-08T11:00:00Z"),
    note("rug-feb", "I bought a rug for the hallway.", "2025-02-15T10:00:00Z"),
)


async def test_a_span_the_question_names_lifts_what_began_then(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await store(alice, *LAMPS)
    question = "Which lamp did I buy last Saturday?"
    assert ids(await hits(alice, question))[0] == "lamp-jan"  # the words alone favour January's
    dated = await hits(alice, question, readDates=True)
    assert ids(dated)[0] == "lamp-sat", dated
    # read against asOf: asked on 20 February, "last Saturday" is the 15th, the rug's day
    earlier = {"asOf": "2025-02-20T18:00:00Z"}
    assert ids(await hits(alice, "What did I buy last Saturday?", **earlier))[0] == "lamp-jan"
    assert ids(await hits(alice, "What did I buy last Saturday?", readDates=True, **earlier))[0] == "rug-feb"
    # a question naming no time is searched as it is, its near ties newer-first (the rule's
    # own test: test_search_near_ties.py)
    plain = await hits(alice, "Which lamp did I buy?")
    assert ids(await hits(alice, "Which lamp did I buy?", readDates=True)) == ids(newer_first(plain))
    # with expansion, the hits come back with their notes' edges as a plain search's do
    answer = await alice.http.post(
        "/v1/search", json={"query": question, "topK": 3, "asOf": ASKED, "readDates": True, "maxDepth": 1}
    )
    assert answer.status_code == 200 and answer.json()["hits"][0]["node"]["id"] == "lamp-sat", answer.text


async def test_begun_window_filters_and_their_bounds(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await store(alice, *LAMPS)
    march = {"begunAfter": "2025-03-01T00:00:00Z", "begunBefore": "2025-04-01T00:00:00Z"}
    assert ids(await hits(alice, "lamp", filters=march)) == ["lamp-sat"]
    assert set(ids(await hits(alice, "bought", filters={"begunBefore": "2025-03-01T00:00:00Z"}))) == {
        "lamp-jan", "rug-feb"
    }  # fmt: skip
    # a note without validFrom began when it was recorded: now, after the window
    await store(alice, {"id": "lamp-now", "title": "Lamp", "content": "A lamp.", "type": "fact"})
    assert "lamp-now" not in ids(await hits(alice, "lamp", filters=march, asOf=None))
    bad = await alice.http.post("/v1/search", json={"query": "lamp", "recency": 2})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "recency", bad.text


async def test_recency_discounts_by_age_from_when_a_note_began(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    same = "The team standup moved to 9:30 in the small meeting room."
    await store(
        alice, note("a-old", same, "2025-02-11T18:00:00Z"), note("b-new", same, "2025-03-12T18:00:00Z")
    )
    plain = await hits(alice, "When is the team standup?", mode="vector")
    assert ids(plain)[:2] == ["a-old", "b-new"] and plain[0]["score"] == plain[1]["score"]
    dated = await hits(alice, "When is the team standup?", mode="vector", recency=0.1)
    assert ids(dated)[:2] == ["b-new", "a-old"], dated
    # a day old costs ln(2) / 10 of the score, thirty days ln(31) / 10
    assert math.isclose(dated[0]["score"], plain[0]["score"] * (1 - 0.1 * math.log(2)), rel_tol=1e-6)
    assert math.isclose(dated[1]["score"], plain[0]["score"] * (1 - 0.1 * math.log(31)), rel_tol=1e-6)


async def test_compared_events_are_each_found(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await store(
        alice,
        note("beds", "Did the garden first: weeded the garden beds along the fence.", "2025-02-10T10:00:00Z"),
        note("lawn", "Did the garden first, then looked at the gutters.", "2025-02-11T10:00:00Z"),
        note("tulips", "First garden job of the year: tulips by the fence.", "2025-02-12T10:00:00Z"),
        note("fence", "Repainted the fence white over the weekend.", "2025-02-22T10:00:00Z"),
        note("gutters", "Cleaned the gutters before the rain.", "2025-03-01T10:00:00Z"),
    )
    question = "Which did I do first in the garden, repaint the fence or clean the gutters?"
    plain = ids(await hits(alice, question))
    assert not {"fence", "gutters"} <= set(plain), plain  # the garden's words win
    dated = ids(await hits(alice, question, readDates=True))
    assert {"fence", "gutters"} <= set(dated), dated


async def test_a_dated_search_stays_in_its_user_and_scope(make_caller: MakeCaller) -> None:
    alice, bob = await make_caller(), await make_caller()
    await store(alice, *LAMPS)
    await store(bob, note("bob-sat", "Bought a lamp at the market.", "2025-03-08T11:00:00Z"))
    found = ids(await hits(bob, "Which lamp did I buy last Saturday?", readDates=True, recency=0.1))
    assert found == ["bob-sat"]
    scope = Scope(ids=("rug-feb",))
    scoped = await make_caller(Role.AGENT, agent_id="a", user_id=alice.user_id, scope=scope)
    found = ids(await hits(scoped, "What did I buy last Saturday?", readDates=True, recency=0.1))
    assert found == ["rug-feb"]
