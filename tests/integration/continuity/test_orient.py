"""orient over HTTP against the real Neo4j: every field on a prepared history, corrections
acknowledged per session, and the calls it suggests."""

from __future__ import annotations

from typing import Any

from graph.core.db import Database
from graph.core.principals import Role, Scope
from tests.integration.conftest import Caller, MakeCaller, correct_and_propose, inspect


async def orient(caller: Caller, session: str | None = None, **body: Any) -> dict[str, Any]:
    headers = {"X-Session-ID": session} if session else {}
    answer = await caller.http.post("/v1/orient", json=body, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def calls(answer: dict[str, Any]) -> list[str]:
    return [c["call"] for c in answer["nextLikelyCalls"]]


async def test_orient_on_a_prepared_history(make_caller: MakeCaller, db: Database) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scout", user_id=person.user_id)
    skills = [
        {"id": "s:changelog", "name": "Write a changelog", "bodyMd": "Steps.",
         "tags": ["changelog", "release"], "trigger": "When a release is near."},
        {"id": "s:wake", "name": "Wake up", "bodyMd": "Call orient.", "tags": ["session", "start"]},
        {"id": "s:cook", "name": "Cook pasta", "bodyMd": "Boil water.", "tags": ["kitchen"]},
    ]  # fmt: skip
    for skill in skills:
        assert (await person.http.post("/v1/skills", json=skill)).status_code == 201
    assert (await person.http.post("/v1/goals", json={"id": "ship", "title": "Ship 1.0"})).status_code == 201
    sub = {"id": "notes", "title": "Write the release notes", "parentId": "ship"}
    assert (await person.http.post("/v1/goals", json=sub)).status_code == 201
    hot = {"id": "hot", "title": "Release date", "content": "We release on Friday.", "type": "fact"}
    assert (await agent.http.post("/v1/knowledge", json=hot)).status_code == 201
    for text in ("We release on Monday.", "We release on Tuesday."):
        assert (await agent.http.patch("/v1/knowledge/hot", json={"content": text})).status_code == 200
    ids = await correct_and_propose(person, agent, "port", "The port is 8080.")
    assert (
        await agent.http.post("/v1/sessions", json={"id": "s1", "topic": "release notes"})
    ).status_code == 201
    end = {
        "summary": "Drafted notes.",
        "topics": ["release", "changelog"],
        "pendingActions": ["Ask for a date"],
    }
    assert (await agent.http.post("/v1/sessions/s1/end", json=end)).status_code == 200
    page = (await agent.http.post("/v1/sessions/s1/save", json={"summary": "Drafted notes."})).json()["page"]
    assert (
        await agent.http.post("/v1/sessions", json={"id": "s2", "topic": "more notes"})
    ).status_code == 201

    answer = await orient(agent, "s2", goal="draft the changelog")
    sync = answer["syncStatus"]
    assert sync["neo4j"] == "reachable" and sync["schema"] == {"ok": True, "problems": []}
    [tenant] = await inspect(db, "MATCH (t:Tenant {userId: $u}) RETURN t.seq AS seq", u=person.user_id)
    assert sync["counts"] == {
        "notes": 2, "sessions": 2, "activeGoals": 2, "skills": 3, "openPendingActions": 1,
        "waitingProposals": 1, "unacknowledgedCorrections": 1, "writes": tenant["seq"],
    }  # fmt: skip
    [newest] = (await person.http.get("/v1/mutations", params={"limit": 1})).json()["items"]
    assert sync["lastWriteAt"] == newest["at"]
    focus = answer["activeFocus"]
    assert focus["goal"] == "draft the changelog" and focus["topGoal"]["id"] == "notes"
    assert focus["lastSession"]["id"] == "s1" and focus["lastSession"]["slug"] == page["slug"]
    assert focus["topics"] == ["release", "changelog"]
    assert [(h["id"], h["touches"]) for h in answer["hotEntities"]] == [("hot", 3), ("port", 2)]
    assert [g["id"] for g in answer["goalStack"]] == ["notes", "ship"]
    assert [c["id"] for c in answer["lastCorrections"]] == [ids["correction"]]
    relevant = answer["relevantSkills"]
    assert [s["id"] for s in relevant] == ["s:changelog", "s:wake"]
    assert "'changelog'" in relevant[0]["why"] and "start" in relevant[1]["why"]
    assert calls(answer) == [
        f"POST /v1/corrections/{ids['correction']}/ack",
        "POST /v1/catch-up",
        "POST /v1/brief",
        "POST /v1/goals",
        "GET /v1/pending-actions",
        "POST /v1/skills/s:changelog/load",
    ]
    assert all(c["why"] for c in answer["nextLikelyCalls"])

    # Acknowledged in this session, the correction leaves this session's orient, not another's.
    ack = {"sessionId": "s2", "actionTaken": "Kept the person's port."}
    assert (await agent.http.post(f"/v1/corrections/{ids['correction']}/ack", json=ack)).status_code == 200
    again = await orient(agent, "s2")
    assert again["lastCorrections"] == [] and not calls(again)[0].startswith("POST /v1/corrections")
    assert (await agent.http.post("/v1/sessions", json={"id": "s3"})).status_code == 201
    assert [c["id"] for c in (await orient(agent, "s3"))["lastCorrections"]] == [ids["correction"]]
    # Without a session it says to start one; a person is also pointed at the proposals.
    mine = await orient(person)
    assert "POST /v1/sessions" in calls(mine) and "GET /v1/proposals?status=pending" in calls(mine)
    assert "GET /v1/proposals?status=pending" not in calls(again)  # agents cannot decide


async def test_orient_for_a_new_user_is_empty_and_says_where_to_start(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="fresh")
    answer = await orient(agent)
    assert answer["syncStatus"]["counts"]["notes"] == 0 and answer["syncStatus"].get("lastWriteAt") is None
    assert answer["hotEntities"] == [] and answer["goalStack"] == [] and answer["lastCorrections"] == []
    assert answer["activeFocus"].get("lastSession") is None and answer["relevantSkills"] == []
    assert calls(answer) == ["POST /v1/sessions"]
    assert (await agent.http.post("/v1/orient", json={"goal": "x" * 2_001})).status_code == 422


async def test_a_scoped_keys_orient_counts_only_what_its_scope_sees(make_caller: MakeCaller) -> None:
    person = await make_caller()
    for made in (
        {"id": "in-1", "tags": ["proj"]},
        {"id": "out-1", "tags": []},
        {"id": "out-2", "tags": ["ops"]},
    ):
        body = {
            **made,
            "title": made["id"],
            "content": f"About {made['id']}.",
            "type": "fact",
            "dedupe": False,
        }
        assert (await person.http.post("/v1/knowledge", json=body)).status_code == 201
    proj = Scope(tags=("proj",))
    scoped = await make_caller(Role.AGENT, agent_id="bot", user_id=person.user_id, scope=proj)
    answer = await orient(scoped)
    counts = answer["syncStatus"]["counts"]
    assert counts["notes"] == 1 and counts["writes"] is None, counts
    assert answer["syncStatus"]["lastWriteAt"] is None
    assert [h["id"] for h in answer["hotEntities"]] == ["in-1"]
    # An unscoped key of the same user still sees the whole memory's size and activity.
    whole = (await orient(person))["syncStatus"]
    assert whole["counts"]["notes"] == 3 and whole["counts"]["writes"] == 3 and whole["lastWriteAt"]
