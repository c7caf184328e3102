"""The goal stack over HTTP against the real Neo4j: push, subgoals, complete, abandon, the
order it is listed in, sessions that see it, the journal, and other users."""

from __future__ import annotations

import asyncio

import pytest

from graph.core.principals import Role, Scope
from tests.integration.conftest import MakeCaller


async def test_a_goal_stack_survives_sessions_in_its_order(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="planner")
    first = await agent.http.post("/v1/sessions", json={"topic": "launch"})
    session_one = first.json()["session"]["id"]
    pushed = await agent.http.post(
        "/v1/goals", json={"id": "launch", "title": "Launch the beta"}, headers={"X-Session-ID": session_one}
    )
    assert pushed.status_code == 201, pushed.text
    goal = pushed.json()
    assert (goal["status"], goal["sessionId"], goal["createdBy"]) == (
        "active", session_one, {"role": "agent", "agentId": "planner"},
    )  # fmt: skip
    for goal_id, title in (("docs", "Write the docs"), ("pricing", "Settle pricing")):
        made = await agent.http.post("/v1/goals", json={"id": goal_id, "title": title, "parentId": "launch"})
        assert made.status_code == 201 and made.json()["parentId"] == "launch"
    await agent.http.post("/v1/goals", json={"id": "hire", "title": "Hire a designer"})
    await agent.http.post(f"/v1/sessions/{session_one}/end", json={"summary": "Planned the launch."})

    # A later session of the same agent sees the stack at once: active first, newest on top.
    await agent.http.post("/v1/sessions", json={"topic": "launch"})
    stack = (await agent.http.get("/v1/goals")).json()["items"]
    assert [g["id"] for g in stack] == ["hire", "pricing", "docs", "launch"]
    # A goal with open subgoals is not complete; its subgoals first.
    blocked = await agent.http.post("/v1/goals/launch/complete", json={"outcome": "Shipped"})
    assert blocked.status_code == 409 and "docs" in blocked.json()["error"]["message"]
    done = await agent.http.post("/v1/goals/docs/complete", json={"outcome": "Docs are live."})
    assert done.status_code == 200 and done.json()["outcome"] == "Docs are live."
    assert (
        await agent.http.post("/v1/goals/docs/complete", json={"outcome": "Docs are live."})
    ).status_code == 200
    assert (await agent.http.post("/v1/goals/docs/abandon")).status_code == 409
    # Abandoning a goal abandons its open subgoals with it.
    dropped = await agent.http.post("/v1/goals/launch/abandon", json={"reason": "Beta moved to Q3."})
    assert dropped.status_code == 200 and dropped.json()["status"] == "abandoned"
    pricing = (await agent.http.get("/v1/goals/pricing")).json()
    assert (pricing["status"], pricing["outcome"]) == ("abandoned", "abandoned with launch")
    stack = (await agent.http.get("/v1/goals")).json()["items"]
    assert [g["id"] for g in stack][0] == "hire"  # the one still active
    assert {g["id"] for g in stack[1:]} == {"launch", "pricing", "docs"}
    assert stack[-1]["id"] == "docs"  # closed longest ago
    # Pages of one, without a gap or a repeat.
    seen, cursor = [], None
    while True:
        page = (
            await agent.http.get("/v1/goals", params={"limit": 1} | ({"cursor": cursor} if cursor else {}))
        ).json()
        seen += [g["id"] for g in page["items"]]
        if not (cursor := page.get("nextCursor")):
            break
    assert seen == [g["id"] for g in stack]
    active = (await agent.http.get("/v1/goals", params={"status": "active"})).json()["items"]
    assert [g["id"] for g in active] == ["hire"]
    # Every change is journaled.
    ops = [
        m["op"]
        for m in (await agent.http.get("/v1/mutations", params={"targetId": "pricing"})).json()["items"]
    ]
    assert ops == ["goal.abandon", "goal.set"]


async def test_goal_input_is_checked_and_ids_are_idempotent(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    assert (await alice.http.post("/v1/goals", json={"title": "  "})).json()["error"]["field"] == "title"
    missing = await alice.http.post("/v1/goals", json={"title": "Step", "parentId": "nowhere"})
    assert missing.status_code == 404 and missing.json()["error"]["field"] == "parentId"
    own = await alice.http.post("/v1/goals", json={"id": "loop", "title": "Loop", "parentId": "loop"})
    assert own.status_code == 409 and own.json()["error"]["field"] == "parentId", own.text
    assert (await alice.http.post("/v1/goals", json={"id": "g", "title": "Goal"})).status_code == 201
    assert (await alice.http.post("/v1/goals", json={"id": "g", "title": "Goal"})).status_code == 200
    other = await alice.http.post("/v1/goals", json={"id": "g", "title": "Another"})
    assert other.status_code == 409 and other.json()["error"]["field"] == "id"
    await alice.http.post("/v1/goals/g/complete")
    closed_parent = await alice.http.post("/v1/goals", json={"title": "Step", "parentId": "g"})
    assert closed_parent.status_code == 409 and closed_parent.json()["error"]["field"] == "parentId"
    assert (await alice.http.get("/v1/goals", params={"cursor": "nonsense"})).status_code == 422


@pytest.mark.smoke
async def test_concurrent_pushes_of_one_user_and_other_users(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    answers = await asyncio.gather(
        *(alice.http.post("/v1/goals", json={"id": "same", "title": "One goal"}) for _ in range(6)),
        *(alice.http.post("/v1/goals", json={"title": f"Goal {i}"}) for i in range(6)),
    )
    assert sorted(a.status_code for a in answers[:6]) == [200] * 5 + [201]
    assert all(a.status_code == 201 for a in answers[6:])
    assert len((await alice.http.get("/v1/goals")).json()["items"]) == 7
    mutations = (await alice.http.get("/v1/mutations", params={"limit": 50})).json()["items"]
    assert sum(m["op"] == "goal.set" for m in mutations) == 7
    bob = await make_caller()
    assert (await bob.http.get("/v1/goals")).json()["items"] == []
    assert (await bob.http.get("/v1/goals/same")).status_code == 404
    assert (await bob.http.post("/v1/goals/same/complete")).status_code == 404
    assert (await bob.http.post("/v1/goals", json={"title": "Mine", "parentId": "same"})).status_code == 404


async def test_a_scoped_key_closes_only_goals_its_agent_set(make_caller: MakeCaller) -> None:
    writer = await make_caller(Role.AGENT, agent_id="writer")
    proj = Scope(tags=("proj",))
    scoped = await make_caller(Role.AGENT, agent_id="bot", user_id=writer.user_id, scope=proj)
    for caller, goal in (
        (scoped, {"id": "g1", "title": "Mine"}),
        (writer, {"id": "g2-writer-secret", "title": "Theirs", "parentId": "g1"}),
        (scoped, {"id": "g3", "title": "Mine below", "parentId": "g1"}),
        (writer, {"id": "g4-writer-secret", "title": "Theirs below mine", "parentId": "g3"}),
    ):
        assert (await caller.http.post("/v1/goals", json=goal)).status_code == 201
    blocked = await scoped.http.post("/v1/goals/g1/complete", json={})
    message = blocked.json()["error"]["message"]
    assert blocked.status_code == 409 and "'g3'" in message and "2 open subgoals set by others" in message
    assert "secret" not in blocked.text
    abandoned = await scoped.http.post("/v1/goals/g1/abandon", json={"reason": "Dropped."})
    assert abandoned.status_code == 200 and "secret" not in abandoned.text
    statuses = {g["id"]: g["status"] for g in (await writer.http.get("/v1/goals")).json()["items"]}
    assert statuses == {
        "g1": "abandoned", "g3": "abandoned", "g2-writer-secret": "active", "g4-writer-secret": "active",
    }  # fmt: skip
    # An unscoped key's abandon still takes every open subgoal along.
    assert (await writer.http.post("/v1/goals", json={"id": "top", "title": "Top"})).status_code == 201
    sub = {"id": "sub", "title": "Sub", "parentId": "top"}
    assert (await writer.http.post("/v1/goals", json=sub)).status_code == 201
    assert (await writer.http.post("/v1/goals/top/abandon", json={})).status_code == 200
    assert (await writer.http.get("/v1/goals/sub")).json()["status"] == "abandoned"
