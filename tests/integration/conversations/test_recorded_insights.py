"""Recording insights found outside the service (``POST /v1/threads/{id}/insights``): your
own extractor's, or an export read back. Over real HTTP and Neo4j: kept as given, keyed as
extraction keys them, journaled, all or nothing, concurrent callers, other users."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from graph.core.db import Database
from graph.core.embeddings import embedder_dimension
from graph.core.principals import Role
from graph.core.settings import Settings
from tests.integration.conftest import Caller, MakeCaller
from tests.support.jobs import run_job

MESSAGES = [
    {"id": "m1", "role": "user", "content": "I prefer dark mode in every editor."},
    {"id": "m2", "role": "user", "content": "We decided to use Postgres for billing."},
]
DARK = {"messageId": "m1", "type": "preference", "content": "I prefer dark mode in every editor.",
        "confidence": 0.9}  # fmt: skip


async def thread(caller: Caller, thread_id: str = "t1", messages: list[dict[str, Any]] = MESSAGES) -> None:
    created = await caller.http.post("/v1/threads", json={"id": thread_id, "topic": "Editors"})
    assert created.status_code == 201, created.text
    answer = await caller.http.post(f"/v1/threads/{thread_id}/messages", json={"messages": messages})
    assert answer.status_code == 201, answer.text


async def insights(caller: Caller, thread_id: str = "t1") -> list[dict[str, Any]]:
    answer = await caller.http.get("/v1/insights", params={"threadId": thread_id, "limit": 500})
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    return items


async def test_an_insight_is_kept_as_given_and_once(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await thread(alice)
    given = DARK | {"id": "ins-1", "extractor": "my-llm-v2", "extractedAt": "2026-02-03T04:05:06+00:00"}
    first = await alice.http.post("/v1/threads/t1/insights", json={"items": [given]})
    assert first.status_code == 201, first.text
    [item] = first.json()["items"]
    assert item["created"] and item["id"] == "ins-1" and item["extractor"] == "my-llm-v2"
    assert item["extractedAt"] == "2026-02-03T04:05:06.000+00:00" and item["threadId"] == "t1"
    assert item["messageId"] == "m1"
    again = await alice.http.post("/v1/threads/t1/insights", json={"items": [given]})
    assert again.status_code == 200 and not again.json()["items"][0]["created"]
    # Extraction keys insights the same way: the rule extractor finds this one again, stores
    # the decision it had not been given, and nothing twice.
    job = await run_job(alice.http, "/v1/threads/t1/extract")
    assert job["counts"] == {"messages": 2, "extracted": 2, "stored": 1}, job
    stored = await insights(alice)
    assert sorted(i["type"] for i in stored) == ["decision", "preference"]
    assert next(i for i in stored if i["type"] == "preference")["id"] == "ins-1"
    # It is recalled like an extracted one, and journaled as recorded by the caller.
    recall = (await alice.http.post("/v1/context/user", json={"query": "dark mode editor"})).json()
    assert recall["insights"][0]["id"] == "ins-1"
    journal = (await alice.http.get("/v1/mutations", params={"targetId": "ins-1"})).json()["items"]
    assert [(m["op"], m["actor"]["role"]) for m in journal] == [("insight.create", "human")]
    assert journal[0]["after"]["extractor"] == "my-llm-v2"


async def test_a_repeat_within_one_request_folds_into_its_first_listing(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await thread(alice)
    note = {"id": "dark", "title": "Dark mode", "content": "The user prefers dark mode.", "type": "fact"}
    assert (await alice.http.post("/v1/knowledge", json=note)).status_code == 201
    repeated = DARK | {"confidence": 0.5, "knowledgeIds": ["dark"]}
    twice = await alice.http.post("/v1/threads/t1/insights", json={"items": [DARK, repeated]})
    assert twice.status_code == 201, twice.text
    first, repeat = twice.json()["items"]
    assert first["id"] == repeat["id"] and (first["created"], repeat["created"]) == (True, False)
    assert first["confidence"] == repeat["confidence"] == 0.9  # the first listing's, as a later repeat
    assert first["knowledgeIds"] == repeat["knowledgeIds"] == ["dark"]  # the repeat's notes linked too
    assert [i["id"] for i in await insights(alice)] == [first["id"]]
    # One insight given two ids is a conflict, and writes nothing; an id given only to the
    # repeat is the insight's.
    other = DARK | {"messageId": "m2", "type": "decision", "content": "We use Postgres for billing."}
    two_ids = await alice.http.post(
        "/v1/threads/t1/insights", json={"items": [other | {"id": "pg-1"}, other | {"id": "pg-2"}]}
    )
    assert two_ids.status_code == 409 and two_ids.json()["error"]["field"] == "items.1.id", two_ids.text
    assert len(await insights(alice)) == 1
    named = await alice.http.post("/v1/threads/t1/insights", json={"items": [other, other | {"id": "pg-1"}]})
    assert named.status_code == 201, named.text
    assert [i["id"] for i in named.json()["items"]] == ["pg-1", "pg-1"]
    journal = (await alice.http.get("/v1/mutations", params={"targetId": "pg-1"})).json()["items"]
    assert [m["op"] for m in journal] == ["insight.create"]


@pytest.mark.smoke
async def test_notes_made_from_it_are_linked_and_not_made_again(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await thread(alice)
    note = {"id": "dark", "title": "Dark mode", "content": "The user prefers dark mode.", "type": "fact"}
    assert (await alice.http.post("/v1/knowledge", json=note)).status_code == 201
    given = DARK | {"id": "ins-1", "knowledgeIds": ["dark"]}
    answer = await alice.http.post("/v1/threads/t1/insights", json={"items": [given]})
    assert answer.status_code == 201 and answer.json()["items"][0]["knowledgeIds"] == ["dark"]
    consolidated = (await alice.http.post("/v1/threads/t1/consolidate")).json()
    assert consolidated["consolidated"] == 0  # already knowledge: no second note
    journal = (await alice.http.get("/v1/mutations", params={"targetId": "ins-1"})).json()["items"]
    assert sorted(m["op"] for m in journal) == ["insight.consolidate", "insight.create"]


async def test_bad_input_names_the_field_and_writes_nothing(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await thread(alice)
    await thread(alice, "t2", [{"id": "n1", "role": "user", "content": "Another talk."}])
    good = DARK | {"id": "good"}
    cases = [
        ({"messageId": "nope"}, 404, "items.1.messageId"),
        ({"knowledgeIds": ["missing-note"]}, 404, "items.1.knowledgeIds.0"),
        ({"embedding": [0.1, 0.2]}, 422, "items.1.embedding"),
        ({"id": "good"}, 409, "items.1.id"),  # one id, two insights: as across requests
        ({"content": "  "}, 422, "items.1.content"),
        ({"confidence": 1.5}, 422, "items.1.confidence"),
        ({"type": "opinion"}, 422, "items.1.type"),
        ({"id": "bad id!"}, 422, "items.1.id"),
    ]
    for change, status, field in cases:
        bad = DARK | {"messageId": "m2", "content": "We decided to use Postgres."} | change
        answer = await alice.http.post("/v1/threads/t1/insights", json={"items": [good, bad]})
        assert answer.status_code == status, (change, answer.text)
        assert answer.json()["error"]["field"] == field, (change, answer.json())
    assert await insights(alice) == []  # all or nothing: the good one was not kept either
    # A message of another thread of hers is not this thread's.
    answer = await alice.http.post("/v1/threads/t2/insights", json={"items": [DARK]})
    assert answer.status_code == 404 and answer.json()["error"]["field"] == "items.0.messageId"
    assert (await alice.http.post("/v1/threads/nope/insights", json={"items": [DARK]})).status_code == 404
    # An id already taken by another insight is a conflict, not a silent overwrite.
    first = await alice.http.post("/v1/threads/t1/insights", json={"items": [good]})
    assert first.status_code in (200, 201)
    other = DARK | {"id": "good", "content": "Dark mode everywhere, please."}
    clash = await alice.http.post("/v1/threads/t1/insights", json={"items": [other]})
    assert clash.status_code == 409 and clash.json()["error"]["field"] == "items.0.id"


async def test_a_precomputed_vector_is_used(
    make_caller: MakeCaller, db: Database, settings: Settings
) -> None:
    alice = await make_caller()
    await thread(alice)
    vector = [0.0] * embedder_dimension(settings)
    vector[0] = 1.0
    given = DARK | {"id": "v", "embedding": vector}
    assert (await alice.http.post("/v1/threads/t1/insights", json={"items": [given]})).status_code == 201
    records, _, _ = await db.driver.execute_query(  # what the vector index holds
        "MATCH (i:Insight {userId: $userId, id: 'v'}) RETURN i.embedding AS embedding",
        {"userId": alice.user_id},
        database_=db.database,
    )
    assert [list(r["embedding"]) for r in records] == [vector]


async def test_callers_at_once(make_caller: MakeCaller) -> None:
    """Five callers of one user: the same insights at once (one each), twins under other
    ids (one wins, the rest are told), and different insights appended together."""
    alice = await make_caller(Role.AGENT, agent_id="coder")
    await thread(alice)
    same = [
        alice.http.post("/v1/threads/t1/insights", json={"items": [DARK | {"id": "same"}]}) for _ in range(5)
    ]
    answers = await asyncio.gather(*same)
    assert sorted(a.status_code for a in answers) == [200, 200, 200, 200, 201]
    twins = [
        alice.http.post(
            "/v1/threads/t1/insights",
            json={
                "items": [
                    DARK
                    | {
                        "messageId": "m2",
                        "id": f"twin-{n}",
                        "content": "We decided to use Postgres for billing.",
                    }
                ]
            },
        )  # fmt: skip
        for n in range(5)
    ]
    answers = await asyncio.gather(*twins)
    assert sorted(a.status_code for a in answers) == [201, 409, 409, 409, 409]
    apart = [
        alice.http.post(
            "/v1/threads/t1/insights", json={"items": [DARK | {"content": f"Prefers theme {n}."}]}
        )
        for n in range(5)
    ]
    assert all(a.status_code == 201 for a in await asyncio.gather(*apart))
    stored = await insights(alice)
    assert len(stored) == 1 + 1 + 5 and len({i["id"] for i in stored}) == 7
    creates = (await alice.http.get("/v1/mutations", params={"limit": 100})).json()["items"]
    assert sum(1 for m in creates if m["op"] == "insight.create") == 7


async def test_another_users_thread_and_data_stay_apart(make_caller: MakeCaller) -> None:
    alice, bob = await make_caller(), await make_caller()
    await thread(alice)
    answer = await bob.http.post("/v1/threads/t1/insights", json={"items": [DARK]})
    assert answer.status_code == 404
    await thread(bob)  # the same ids, his own
    assert (
        await bob.http.post("/v1/threads/t1/insights", json={"items": [DARK | {"id": "x"}]})
    ).status_code == 201
    mine = await alice.http.post("/v1/threads/t1/insights", json={"items": [DARK | {"id": "x"}]})
    assert mine.status_code == 201  # his insight "x" is not hers
    assert [i["id"] for i in await insights(alice)] == ["x"] and [i["id"] for i in await insights(bob)] == [
        "x"
    ]
    assert (await bob.http.get("/v1/mutations", params={"targetId": "x"})).json()["items"][0]["actor"][
        "userId"
    ] == bob.user_id
