"""Sessions over HTTP: started by an agent, ended with a summary, chained per agent and user."""

from __future__ import annotations

import asyncio

import pytest

from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import MakeCaller, inspect

END = {
    "summary": "We compared two caching strategies and chose Redis. The rollout waits for load tests.",
    "topics": ["caching", "deployment"],
    "keyDecisions": ["Use Redis for the session cache"],
    "pendingActions": ["Run the load tests", "Ask ops for a Redis cluster"],
    "messageCount": 14,
}


async def test_an_agents_sessions_with_a_user_form_one_chain(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller(Role.AGENT, agent_id="engineering-assistant")
    helper = await make_caller(Role.AGENT, agent_id="helper", user_id=alice.user_id)
    bob = await make_caller(Role.AGENT, agent_id="engineering-assistant")
    started = []
    for topic in ("caching", "deployment", "billing"):
        answer = await alice.http.post("/v1/sessions", json={"topic": topic})
        assert answer.status_code == 201, answer.text
        started.append(answer.json()["session"])
        assert (await bob.http.post("/v1/sessions", json={"topic": topic})).status_code == 201
    other = (await helper.http.post("/v1/sessions", json={"topic": "caching"})).json()["session"]

    assert [s["agentId"] for s in started] == ["engineering-assistant"] * 3
    assert [s.get("previousId") for s in started] == [None, started[0]["id"], started[1]["id"]]
    assert other.get("previousId") is None  # another agent of the same user: a chain of its own
    assert started[0]["status"] == "open" and started[0]["topic"] == "caching"
    # In the graph, as a person sees it in Browser: the user's agent ran them, in a chain.
    rows = await inspect(
        db,
        "MATCH (a:Agent {userId: $u, id: 'engineering-assistant'})-[:RAN]->(s:Session) "
        "OPTIONAL MATCH (s)-[:PREVIOUS]->(p:Session) RETURN s.id AS id, p.id AS previous, p.userId AS pu",
        u=alice.user_id,
    )
    assert sorted((r["id"], r["previous"]) for r in rows) == sorted(
        (s["id"], s.get("previousId")) for s in started
    )
    assert {r["pu"] for r in rows} <= {alice.user_id, None}  # never into bob's chain

    listed = (await alice.http.get("/v1/sessions", params={"agentId": "engineering-assistant"})).json()
    assert [s["id"] for s in listed["items"]] == [s["id"] for s in reversed(started)]
    page = (await alice.http.get("/v1/sessions", params={"limit": 2})).json()
    rest = (await alice.http.get("/v1/sessions", params={"limit": 2, "cursor": page["nextCursor"]})).json()
    every = [s["id"] for s in page["items"] + rest["items"]]
    assert sorted(every) == sorted([s["id"] for s in started] + [other["id"]]) and len(set(every)) == 4


@pytest.mark.smoke
async def test_ending_records_the_summary_and_leaves_pending_actions_open(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="engineering-assistant")
    session = (await agent.http.post("/v1/sessions", json={"topic": "caching"})).json()["session"]
    ended = await agent.http.post(f"/v1/sessions/{session['id']}/end", json=END)
    assert ended.status_code == 200, ended.text
    body = ended.json()
    assert body["session"]["status"] == "ended"
    assert body["session"]["summary"] == END["summary"]
    assert body["session"]["topics"] == END["topics"]
    assert body["session"]["keyDecisions"] == END["keyDecisions"]
    assert body["session"]["messageCount"] == 14
    assert body["session"]["durationMinutes"] == 0  # computed from start and end
    assert [p["text"] for p in body["pendingActions"]] == END["pendingActions"]
    assert {p["status"] for p in body["pendingActions"]} == {"open"}
    assert {p["carriedCount"] for p in body["pendingActions"]} == {0}

    again = await agent.http.post(f"/v1/sessions/{session['id']}/end", json=END)
    assert again.status_code == 200 and again.json() == body  # the same end: idempotent
    changed = await agent.http.post(f"/v1/sessions/{session['id']}/end", json={**END, "summary": "Other."})
    assert changed.status_code == 409
    read = (await agent.http.get(f"/v1/sessions/{session['id']}")).json()
    assert read["summary"] == END["summary"] and len(read["pendingActions"]) == 2

    given = (await agent.http.post("/v1/sessions", json={})).json()["session"]
    timed = await agent.http.post(f"/v1/sessions/{given['id']}/end", json={**END, "durationMinutes": 42})
    assert timed.json()["session"]["durationMinutes"] == 42


async def test_bad_starts_and_ends_get_clear_4xx_and_write_nothing(make_caller: MakeCaller) -> None:
    person = await make_caller()  # a human key: no agent of its own
    refused = await person.http.post("/v1/sessions", json={"topic": "x"})
    assert refused.status_code == 403 and refused.json()["error"]["field"] == "agentId"
    assert refused.json()["error"]["message"] == "a person's key names the agent the session is for: agentId"
    not_mine = await person.http.post("/v1/sessions", json={"agentId": "a1", "threadId": "no-such-thread"})
    assert not_mine.status_code == 404 and not_mine.json()["error"]["field"] == "threadId"
    session = (await person.http.post("/v1/sessions", json={"agentId": "a1"})).json()["session"]
    path = f"/v1/sessions/{session['id']}/end"
    for bad, field in (
        ({**END, "summary": "   "}, "summary"),
        ({**END, "messageCount": -1}, "messageCount"),
        ({**END, "durationMinutes": -5}, "durationMinutes"),
        ({**END, "pendingActions": [""]}, "pendingActions.0"),
    ):
        answer = await person.http.post(path, json=bad)
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"]["field"] == field
    assert (await person.http.get(f"/v1/sessions/{session['id']}")).json()["status"] == "open"
    assert (await person.http.post("/v1/sessions/nope/end", json=END)).status_code == 404
    assert (await person.http.get("/v1/sessions", params={"cursor": "junk"})).status_code == 422


async def test_sessions_started_at_once_chain_one_after_another(
    make_caller: MakeCaller, db: Database
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="busy")
    answers = await asyncio.gather(
        *(agent.http.post("/v1/sessions", json={"topic": str(i)}) for i in range(8))
    )
    assert {a.status_code for a in answers} == {201}
    rows = await inspect(
        db,
        "MATCH (s:Session {userId: $u}) OPTIONAL MATCH (s)-[:PREVIOUS]->(p) "
        "OPTIONAL MATCH (n)-[:PREVIOUS]->(s) RETURN s.id AS id, count(DISTINCT p) AS back, "
        "count(DISTINCT n) AS forward",
        u=agent.user_id,
    )
    assert len(rows) == 8
    # One chain: one first session and one last, every other with exactly one of each.
    assert sorted(r["back"] for r in rows) == [0] + [1] * 7
    assert sorted(r["forward"] for r in rows) == [0] + [1] * 7

    # The same id started by several callers at once: one session, the others get it back.
    twins = await asyncio.gather(
        *(agent.http.post("/v1/sessions", json={"id": "same-one", "topic": "t"}) for _ in range(5))
    )
    assert sorted(a.status_code for a in twins) == [200, 200, 200, 200, 201]
    assert len({a.json()["session"]["startedAt"] for a in twins}) == 1
    clash = await agent.http.post("/v1/sessions", json={"id": "same-one", "topic": "other"})
    assert clash.status_code == 409

    # Several ends of one session at once: it ends once, the repeats answer the same.
    ends = await asyncio.gather(*(agent.http.post("/v1/sessions/same-one/end", json=END) for _ in range(4)))
    assert {a.status_code for a in ends} == {200}
    rows = await inspect(
        db,
        "MATCH (:Session {userId: $u, id: 'same-one'})-[:LEFT_OPEN]->(p) RETURN count(p) AS n",
        u=agent.user_id,
    )
    assert rows == [{"n": 2}]
