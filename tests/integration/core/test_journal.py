"""The journal over HTTP: every journaled write records one Mutation in its transaction,
with who made it (role, agent, the session of X-Session-ID), listed newest first."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import MakeCaller, inspect


async def test_continuity_writes_are_journaled_with_their_actor(
    make_caller: MakeCaller, db: Database
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    started = await agent.http.post("/v1/sessions", json={"id": "s1", "topic": "caching"})
    assert started.status_code == 201
    in_s1 = {"X-Session-ID": "s1"}
    end = {"summary": "We chose Redis.", "pendingActions": ["Load-test it", "Ask ops"]}
    ended = await agent.http.post("/v1/sessions/s1/end", json=end, headers=in_s1)
    first, second = (p["id"] for p in ended.json()["pendingActions"])
    await agent.http.post("/v1/sessions", json={"id": "s2"})
    await agent.http.post(
        f"/v1/pending-actions/{first}/carry", json={"sessionId": "s2"}, headers={"X-Session-ID": "s2"}
    )
    await person.http.post(f"/v1/pending-actions/{second}/ack", json={"resolution": "Asked."})
    await person.http.patch("/v1/profile", json={"preferences": {"theme": "dark"}})

    page = (await agent.http.get("/v1/mutations")).json()
    ops = [
        (m["op"], m["targetId"], m["actor"]["role"], m["actor"].get("agentId"), m["actor"].get("sessionId"))
        for m in page["items"]
    ]
    assert ops == [
        ("profile.patch", agent.user_id, "human", None, None),
        ("pendingAction.ack", second, "human", None, None),
        ("pendingAction.carry", first, "agent", "assistant", "s2"),
        ("session.start", "s2", "agent", "assistant", None),
        ("session.end", "s1", "agent", "assistant", "s1"),
        ("session.start", "s1", "agent", "assistant", None),
    ]
    seqs = [m["seq"] for m in page["items"]]
    assert seqs == sorted(seqs, reverse=True) and len(set(seqs)) == 6
    by_op = {m["op"]: m for m in page["items"]}
    assert by_op["session.end"]["before"] == {"status": "open"}
    assert by_op["session.end"]["after"]["summary"] == "We chose Redis."
    assert by_op["session.end"]["after"]["pendingActions"] == ["Load-test it", "Ask ops"]
    assert by_op["pendingAction.carry"]["before"]["sessionId"] == "s1"
    assert by_op["pendingAction.carry"]["after"] == {
        "sessionId": "s2",
        "agentId": "assistant",
        "carriedCount": 1,
    }
    assert "before" not in by_op["session.start"]  # a create has no before
    # In the graph, each is linked to what it changed.
    linked = await inspect(
        db,
        "MATCH (m:Mutation {userId: $u})-[:CHANGED]->(t) RETURN m.op AS op, labels(t)[0] AS label",
        u=agent.user_id,
    )
    assert sorted((r["op"], r["label"]) for r in linked) == sorted([
        ("profile.patch", "Profile"), ("pendingAction.ack", "PendingAction"),
        ("pendingAction.carry", "PendingAction"), ("session.start", "Session"), ("session.end", "Session"),
        ("session.start", "Session"),
    ])  # fmt: skip


@pytest.mark.smoke
async def test_the_journal_filters_and_pages(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    assert (await agent.http.post("/v1/sessions", json={"id": "work"})).status_code == 201
    before = datetime.now(UTC).isoformat()
    for n in range(5):
        await agent.http.post("/v1/sessions", json={"id": f"s{n}"}, headers={"X-Session-ID": "work"})
    await person.http.put("/v1/profile", json={"background": "SRE."})

    by_target = (await agent.http.get("/v1/mutations", params={"targetId": "s3"})).json()["items"]
    assert [m["targetId"] for m in by_target] == ["s3"]
    humans = (await agent.http.get("/v1/mutations", params={"actorRole": "human"})).json()["items"]
    assert [m["op"] for m in humans] == ["profile.replace"]
    in_work = (await agent.http.get("/v1/mutations", params={"sessionId": "work"})).json()["items"]
    assert len(in_work) == 5
    since = (await agent.http.get("/v1/mutations", params={"since": before})).json()["items"]
    assert len(since) == 6
    later = (await agent.http.get("/v1/mutations", params={"since": "2999-01-01T00:00:00Z"})).json()["items"]
    assert later == []

    first = (await agent.http.get("/v1/mutations", params={"limit": 4})).json()
    rest = (await agent.http.get("/v1/mutations", params={"limit": 4, "cursor": first["nextCursor"]})).json()
    assert len(first["items"]) == 4 and len(rest["items"]) == 3 and "nextCursor" not in rest
    assert [m["id"] for m in first["items"] + rest["items"]][:-1] == [m["id"] for m in since]
    assert rest["items"][-1]["targetId"] == "work"  # the session the others were started in
    # The header names an open session of the caller's own agent: not another's, not an ended one.
    other = await make_caller(Role.AGENT, agent_id="other", user_id=agent.user_id)
    for caller, session in ((agent, "nowhere"), (other, "work"), (agent, "s0")):
        if session == "s0":
            await agent.http.post("/v1/sessions/s0/end", json={"summary": "Done."})
        refused = await caller.http.get("/v1/goals", headers={"X-Session-ID": session})
        assert refused.status_code == 422 and refused.json()["error"]["field"] == "X-Session-ID", session
    # A person's key may name any open session of its user.
    assert (await person.http.get("/v1/goals", headers={"X-Session-ID": "work"})).status_code == 200

    for params, field in [
        ({"actorRole": "robot"}, "actorRole"),
        ({"cursor": "x"}, "cursor"),
        ({"since": "noon"}, "since"),
    ]:
        answer = await agent.http.get("/v1/mutations", params=params)
        assert answer.status_code == 422 and answer.json()["error"]["field"] == field, answer.text
    bad = await agent.http.post("/v1/sessions", json={}, headers={"X-Session-ID": "not an id"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "X-Session-ID"


async def test_a_failed_write_leaves_no_mutation_and_twins_journal_once(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    mallory = await make_caller(Role.AGENT, agent_id="assistant")
    await agent.http.post("/v1/sessions", json={"id": "s1"})
    ended = await agent.http.post(
        "/v1/sessions/s1/end", json={"summary": "Done.", "pendingActions": ["Ship"]}
    )
    action = ended.json()["pendingActions"][0]["id"]
    count = len((await agent.http.get("/v1/mutations")).json()["items"])

    refused = await agent.http.post("/v1/sessions/s1/end", json={"summary": "Something else."})
    assert refused.status_code == 409
    answers = await asyncio.gather(
        *(
            agent.http.post(f"/v1/pending-actions/{action}/ack", json={"resolution": "Shipped."})
            for _ in range(5)
        )
    )
    assert {a.status_code for a in answers} == {200}
    ops = [m["op"] for m in (await agent.http.get("/v1/mutations")).json()["items"]]
    assert len(ops) == count + 1 and ops[0] == "pendingAction.ack"  # one ack, no failed end

    assert (await mallory.http.get("/v1/mutations")).json()["items"] == []  # another user sees none
