"""Every write path of the knowledge network and of conversation memory records its
Mutation in the transaction of the write (one test per path), over HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller, inspect
from tests.integration.conversations.test_insights import CONVERSATION, open_thread, run_job
from tests.integration.knowledge.seeding import link, note, seed
from tests.integration.knowledge.test_integrity import unit_vector


async def journal(caller: Caller, **params: Any) -> list[dict[str, Any]]:
    response = await caller.http.get("/v1/mutations", params={"limit": 500, **params})
    assert response.status_code == 200, response.text
    return list(response.json()["items"])


@pytest.mark.smoke
async def test_a_create_is_journaled_with_its_fields_and_actor(make_caller: MakeCaller, db: Database) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    assert (await agent.http.post("/v1/sessions", json={"id": "s1"})).status_code == 201
    made = await agent.http.post(
        "/v1/knowledge",
        json=note("n1", "Redis", "We cache sessions in Redis.", tags=["cache"]),
        headers={"X-Session-ID": "s1"},
    )
    assert made.status_code == 201
    [m] = await journal(agent, targetId="n1")
    assert (m["op"], m["targetType"], m["targetId"]) == ("note.create", "Knowledge", "n1")
    assert m["actor"] == {"userId": agent.user_id, "role": "agent", "agentId": "scribe", "sessionId": "s1"}
    assert m["after"] == {
        "title": "Redis", "content": "We cache sessions in Redis.", "type": "fact", "source": "inferred",
        "confidence": 1.0, "tags": ["cache"], "status": "active",
    }  # fmt: skip
    assert "before" not in m and "embedding" not in m["after"]
    # Neo4j Browser shows the note's history through CHANGED.
    linked = await inspect(
        db, "MATCH (m:Mutation)-[:CHANGED]->(n:Knowledge {userId: $u}) RETURN m.id AS id, n.id AS note",
        u=agent.user_id,
    )  # fmt: skip
    assert linked == [{"id": m["id"], "note": "n1"}]


async def test_a_batch_is_one_write_of_one_mutation_per_note(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(alice, *(note(f"n{i}", f"Note {i}", f"Content number {i}.") for i in range(3)))
    items = await journal(alice)
    assert [(m["op"], m["targetId"]) for m in items] == [("note.create", f"n{i}") for i in (2, 1, 0)]
    assert {m["seq"] for m in items} == {items[0]["seq"]} and [m["part"] for m in items] == [2, 1, 0]
    # One note's history, and cursor pages that split a write between them.
    assert [m["targetId"] for m in await journal(alice, targetId="n1")] == ["n1"]
    first = (await alice.http.get("/v1/mutations", params={"limit": 2})).json()
    rest = (await alice.http.get("/v1/mutations", params={"limit": 2, "cursor": first["nextCursor"]})).json()
    assert [m["targetId"] for m in first["items"] + rest["items"]] == ["n2", "n1", "n0"]


async def test_a_merge_is_journaled_on_the_twin(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    vector = unit_vector(1)
    first = {**note("a", "Postgres", "Orders live in Postgres.", tags=["db"]), "embedding": vector}
    first["confidence"] = 0.6
    await seed(alice, first)
    twin = {
        **note("b", "Postgres again", "Orders are in Postgres.", tags=["orders"]),
        "embedding": vector, "dedupe": True, "confidence": 0.9,
    }  # fmt: skip
    merged = await alice.http.post("/v1/knowledge", json=twin)
    assert merged.status_code == 200 and merged.json()["mergedInto"] == "a"
    [m, _] = await journal(alice)
    assert (m["op"], m["targetId"]) == ("note.merge", "a")
    assert m["before"] == {"confidence": 0.6, "tags": ["db"], "mergeCount": 0}
    assert {k: m["after"][k] for k in ("confidence", "tags", "mergeCount")} == {
        "confidence": 0.9, "tags": ["db", "orders"], "mergeCount": 1,
    }  # fmt: skip
    assert m["after"]["merged"]["requestedId"] == "b" and m["after"]["merged"]["content"] == twin["content"]


async def test_an_update_journals_only_what_changed(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(alice, note("n", "Title", "Old content.", tags=["x"]))
    patched = await alice.http.patch("/v1/knowledge/n", json={"content": "New content.", "tags": ["x"]})
    assert patched.status_code == 200
    [m, _] = await journal(alice)
    assert (m["op"], m["before"], m["after"]) == (
        "note.update",
        {"content": "Old content."},
        {"content": "New content."},
    )
    same = await alice.http.patch("/v1/knowledge/n", json={"content": "New content.", "confidence": 1.0})
    assert same.status_code == 200 and same.json()["content"] == "New content."
    assert len(await journal(alice)) == 2  # a patch that changes nothing writes nothing


async def test_a_delete_keeps_what_an_undo_needs(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(
        alice, note("a", "A", "Alpha note."), note("b", "B", "Beta note."), note("c", "C", "Gamma note.")
    )
    assert (await link(alice, "a", "supersedes", "b")).status_code == 201
    assert (await link(alice, "c", "dependsOn", "a")).status_code == 201
    assert (await alice.http.delete("/v1/knowledge/a")).status_code == 204
    [m, *rest] = await journal(alice)
    assert (m["op"], m["targetId"], "after" in m) == ("note.delete", "a", False)
    snapshot = m["before"]
    assert (snapshot["title"], snapshot["content"], snapshot["createdByRole"]) == (
        "A",
        "Alpha note.",
        "human",
    )
    # Its edges are journaled on their own, in the same write (so the entry stays the size
    # of the note however many it had), the status it flipped before them.
    write = [e for e in rest if e["seq"] == m["seq"]]
    assert (snapshot["edgesJournaled"], snapshot["mergesHeld"]) == (2, 0) and "edges" not in snapshot
    assert sorted((e["op"], e["targetId"]) for e in write if e["op"] == "edge.disconnect") == [
        ("edge.disconnect", "a supersedes b"), ("edge.disconnect", "c dependsOn a"),
    ]  # fmt: skip
    assert [e["op"] for e in write][-1] == "note.status"
    assert "embedding" not in snapshot


async def test_edges_are_journaled_on_both_notes(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller()
    await seed(alice, note("a", "A", "Alpha note."), note("b", "B", "Beta note."))
    assert (await link(alice, "a", "relatedTo", "b", confidence=0.7)).status_code == 201
    assert (await link(alice, "a", "relatedTo", "b", confidence=0.7)).status_code == 200  # nothing new
    assert (await alice.http.delete("/v1/knowledge/a/connections/relatedTo/b")).status_code == 204
    gone, made = (await journal(alice))[:2]
    assert (made["op"], made["targetType"], made["targetId"]) == ("edge.connect", "Edge", "a relatedTo b")
    assert made["after"]["confidence"] == 0.7 and made["after"]["type"] == "relatedTo"
    assert (gone["op"], gone["targetId"], gone["before"]["confidence"]) == (
        "edge.disconnect",
        "a relatedTo b",
        0.7,
    )
    assert len(await journal(alice, targetId="a relatedTo b")) == 2
    ends = await inspect(
        db, "MATCH (m:Mutation {userId: $u, id: $id})-[:CHANGED]->(n) RETURN n.id AS id ORDER BY id",
        u=alice.user_id, id=made["id"],
    )  # fmt: skip
    assert [r["id"] for r in ends] == ["a", "b"]


async def test_threads_links_and_messages_are_journaled(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="helper")
    await agent.http.post("/v1/threads", json={"id": "t1", "topic": "Billing", "contextType": "planning"})
    await agent.http.post("/v1/threads", json={"id": "t1", "topic": "Billing", "contextType": "planning"})
    await agent.http.post("/v1/threads", json={"id": "t2", "topic": "Invoices"})
    assert (await agent.http.post("/v1/threads/t1/links", json={"threadId": "t2"})).status_code == 204
    messages = [
        {"id": "m1", "role": "user", "content": "Hi"},
        {"id": "m2", "role": "assistant", "content": "Hello"},
    ]
    await agent.http.post("/v1/threads/t1/messages", json={"messages": messages})
    await agent.http.post(
        "/v1/threads/t1/messages", json={"messages": messages}
    )  # the same again: nothing new
    assert (await agent.http.delete("/v1/threads/t1/links/t2")).status_code == 204
    ops = [
        (m["op"], m["targetId"], m.get("after") or m.get("before")) for m in reversed(await journal(agent))
    ]
    assert ops == [
        ("thread.create", "t1", {"contextType": "planning", "topic": "Billing"}),
        ("thread.create", "t2", {"contextType": "general", "topic": "Invoices"}),
        ("thread.link", "t1", {"threadId": "t2"}),
        ("message.append", "m1", {"threadId": "t1", "role": "user", "content": "Hi", "seq": 1}),
        ("message.append", "m2", {"threadId": "t1", "role": "assistant", "content": "Hello", "seq": 2}),
        ("thread.unlink", "t1", {"threadId": "t2"}),
    ]


async def test_insights_and_consolidation_are_journaled_as_the_pipeline(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await open_thread(alice, "t", "Billing platform", CONVERSATION)
    job = await run_job(alice.http, "/v1/threads/t/extract")
    assert job["status"] == "done"
    insights = (await alice.http.get("/v1/insights", params={"threadId": "t"})).json()["items"]
    created = [m for m in await journal(alice) if m["op"] == "insight.create"]
    assert sorted(m["targetId"] for m in created) == sorted(i["id"] for i in insights)
    assert {m["actor"]["role"] for m in created} == {"system"}
    assert all(m["actor"]["agentId"].startswith("extractor:") for m in created)
    fed = await run_job(alice.http, "/v1/threads/t/feedback-loop")
    assert fed["status"] == "done" and fed["counts"]["created"] > 0, fed
    items = await journal(alice)
    links = [m for m in items if m["op"] == "insight.consolidate"]
    notes = [m for m in items if m["op"] in ("note.create", "note.merge") and m["actor"]["role"] == "system"]
    assert len(links) == fed["counts"]["created"] + fed["counts"]["updated"]
    assert {m["after"]["knowledgeId"] for m in links} == {m["targetId"] for m in notes}


async def test_a_failed_batch_leaves_no_mutation(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(alice, note("taken", "Taken", "Already here."))
    batch = [note("fresh", "Fresh", "A new note."), note("taken", "Taken", "Something else.")]
    refused = await alice.http.post("/v1/knowledge/batch", json={"items": batch})
    assert refused.status_code == 409
    assert [m["targetId"] for m in await journal(alice)] == ["taken"]
    refused = await alice.http.post("/v1/connections/batch", json={"items": [
        {"sourceId": "taken", "type": "relatedTo", "targetId": "missing"},
    ]})  # fmt: skip
    assert refused.status_code == 404
    assert len(await journal(alice)) == 1


async def test_concurrent_writers_of_one_user_each_get_their_mutations(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await alice.http.post("/v1/threads", json={"id": "t", "topic": "Busy"})
    twins = [
        alice.http.post("/v1/knowledge", json=note("same", "Same", "One note, sent twice.")) for _ in range(4)
    ]
    appends = [
        alice.http.post("/v1/threads/t/messages", json={"messages": [{"role": "user", "content": f"m{i}"}]})
        for i in range(6)
    ]
    singles = [alice.http.post("/v1/knowledge", json=note(f"n{i}", f"N{i}", f"Note {i}.")) for i in range(6)]
    answers = await asyncio.gather(*twins, *appends, *singles)
    assert all(a.status_code in (200, 201) for a in answers), [a.text for a in answers]
    items = await journal(alice)
    ops = [m["op"] for m in items]
    assert ops.count("note.create") == 7 and ops.count("message.append") == 6
    keys = [(m["seq"], m["part"]) for m in items]
    assert len(set(keys)) == len(keys) and keys == sorted(keys, reverse=True)
    messages = [m["after"]["seq"] for m in items if m["op"] == "message.append"]
    assert sorted(messages) == list(range(1, 7))
