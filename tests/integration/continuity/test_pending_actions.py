"""Pending actions over HTTP: left open at a session's end, carried forward, cleared."""

from __future__ import annotations

import asyncio
from typing import Any

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller


async def _session(agent: Caller, topic: str) -> str:
    answer = await agent.http.post("/v1/sessions", json={"topic": topic})
    assert answer.status_code == 201, answer.text
    session_id: str = answer.json()["session"]["id"]
    return session_id


async def _end(agent: Caller, session_id: str, pending: list[str]) -> list[dict[str, Any]]:
    end = {"summary": "We worked on it.", "pendingActions": pending, "messageCount": 3}
    answer = await agent.http.post(f"/v1/sessions/{session_id}/end", json=end)
    assert answer.status_code == 200, answer.text
    actions: list[dict[str, Any]] = answer.json()["pendingActions"]
    return actions


async def _open(agent: Caller) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = (await agent.http.get("/v1/pending-actions")).json()["items"]
    return items


async def test_actions_are_carried_and_cleared_across_three_sessions(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="engineering-assistant")
    bob = await make_caller(Role.AGENT, agent_id="engineering-assistant")
    first = await _session(agent, "caching")
    review, ask_ops = await _end(agent, first, ["Review PR #42", "Ask ops for Redis"])
    await _end(bob, await _session(bob, "caching"), ["Bob's own item"])
    opened = await _open(agent)
    assert [(a["text"], a["originSessionId"], a["sessionId"]) for a in opened] == [
        ("Review PR #42", first, first),
        ("Ask ops for Redis", first, first),
    ]

    second = await _session(agent, "caching, again")
    carried = await agent.http.post(f"/v1/pending-actions/{review['id']}/carry", json={"sessionId": second})
    assert carried.status_code == 200, carried.text
    assert carried.json()["carriedCount"] == 1 and carried.json()["sessionId"] == second
    assert carried.json()["originSessionId"] == first
    cleared = await agent.http.post(
        f"/v1/pending-actions/{ask_ops['id']}/ack", json={"resolution": "Ops said yes"}
    )
    assert cleared.status_code == 200 and cleared.json()["status"] == "done"
    assert cleared.json()["resolution"] == "Ops said yes" and cleared.json()["resolvedAt"]
    [later] = await _end(agent, second, ["Load-test the cache"])

    third = await _session(agent, "rollout")
    again = await agent.http.post(f"/v1/pending-actions/{review['id']}/carry", json={"sessionId": third})
    assert again.json()["carriedCount"] == 2 and again.json()["sessionId"] == third
    assert [(a["id"], a["carriedCount"]) for a in await _open(agent)] == [(review["id"], 2), (later["id"], 0)]
    done = (await agent.http.get("/v1/pending-actions", params={"status": "done"})).json()["items"]
    assert [a["id"] for a in done] == [ask_ops["id"]]
    assert [a["text"] for a in await _open(bob)] == ["Bob's own item"]  # users never mix

    # Repeats and mistakes.
    same = await agent.http.post(
        f"/v1/pending-actions/{ask_ops['id']}/ack", json={"resolution": "Ops said yes"}
    )
    assert same.status_code == 200 and same.json() == cleared.json()
    other = await agent.http.post(f"/v1/pending-actions/{ask_ops['id']}/ack", json={"resolution": "No"})
    assert other.status_code == 409
    assert (
        await agent.http.post(f"/v1/pending-actions/{ask_ops['id']}/carry", json={"sessionId": third})
    ).status_code == 409  # cleared: nothing to carry
    ended = await agent.http.post(f"/v1/pending-actions/{later['id']}/carry", json={"sessionId": second})
    assert ended.status_code == 409 and ended.json()["error"]["field"] == "sessionId"
    nowhere = await agent.http.post(f"/v1/pending-actions/{later['id']}/carry", json={"sessionId": "nope"})
    assert nowhere.status_code == 404 and nowhere.json()["error"]["field"] == "sessionId"
    blank = await agent.http.post(f"/v1/pending-actions/{later['id']}/ack", json={"resolution": " "})
    assert blank.status_code == 422 and blank.json()["error"]["field"] == "resolution"
    assert (
        await agent.http.post("/v1/pending-actions/nope/ack", json={"resolution": "x"})
    ).status_code == 404


async def test_concurrent_carries_and_acks_of_one_action_count_once(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="busy")
    first = await _session(agent, "one")
    item, other = await _end(agent, first, ["Carry me", "Clear me"])
    second = await _session(agent, "two")
    carries = await asyncio.gather(
        *(
            agent.http.post(f"/v1/pending-actions/{item['id']}/carry", json={"sessionId": second})
            for _ in range(5)
        )
    )
    assert {c.status_code for c in carries} == {200}
    assert {c.json()["carriedCount"] for c in carries} == {1}  # into the same session: once
    acks = await asyncio.gather(
        *(
            agent.http.post(f"/v1/pending-actions/{other['id']}/ack", json={"resolution": "done"})
            for _ in range(5)
        )
    )
    assert {a.status_code for a in acks} == {200}
    assert len({a.json()["resolvedAt"] for a in acks}) == 1
    assert [a["id"] for a in await _open(agent)] == [item["id"]]


async def test_pending_actions_come_a_page_at_a_time_in_their_order(make_caller: MakeCaller) -> None:
    """Five actions of one session's end share their time: pages of two keep the order the
    end listed them in, and nothing is skipped or repeated; a made-up cursor is a 422."""
    agent = await make_caller(Role.AGENT, agent_id="pager")
    session = (await agent.http.post("/v1/sessions", json={})).json()["session"]["id"]
    todo = [f"Step {n} of the migration" for n in range(5)]
    ended = await agent.http.post(
        f"/v1/sessions/{session}/end", json={"summary": "Paused.", "pendingActions": todo}
    )
    assert ended.status_code == 200, ended.text
    walked: list[str] = []
    cursor: str | None = None
    while True:
        page = (
            await agent.http.get(
                "/v1/pending-actions", params={"limit": 2} | ({"cursor": cursor} if cursor else {})
            )
        ).json()
        assert len(page["items"]) <= 2
        walked += [a["text"] for a in page["items"]]
        if not (cursor := page.get("nextCursor")):
            break
    assert walked == todo
    bad = await agent.http.get("/v1/pending-actions", params={"cursor": "nonsense"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "cursor"
