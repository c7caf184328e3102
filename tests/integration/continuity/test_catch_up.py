"""catch_up over HTTP against the real Neo4j: each cutoff tier, each section, the entity
scope, the per-section limit, and that it writes nothing but the caller's last access."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller, correct_and_propose, inspect

SECTIONS = ("sessions", "mutations", "knowledge", "work", "wiki", "approvals")


async def catch_up(caller: Caller, **body: Any) -> dict[str, Any]:
    answer = await caller.http.post("/v1/catch-up", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def note(note_id: str, *tags: str) -> dict[str, Any]:
    return {"id": note_id, "title": note_id, "content": f"About {note_id}.", "type": "fact",
            "tags": list(tags), "dedupe": False}  # fmt: skip


async def test_the_cutoff_tiers_and_sections(make_caller: MakeCaller, db: Database) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="scout", user_id=person.user_id)

    # Nothing yet: 24 hours ago, and empty.
    first = await catch_up(agent)
    assert first["cutoffTier"] == "default_24h" and first["cutoffClock"] == "recorded"
    cutoff = datetime.fromisoformat(first["cutoff"])
    assert abs(cutoff - (datetime.now(UTC) - timedelta(hours=24))) < timedelta(minutes=1)
    assert first["isEmpty"] and first.get("myLastSession") is None
    assert all(first[s] == {"count": 0, "items": [], **_extra(s)} for s in SECTIONS)

    # Then its last access: the first call's time, recorded once a minute at most.
    second = await catch_up(agent)
    assert second["cutoffTier"] == "last_access" and second["isEmpty"]
    accessed = await inspect(
        db, "MATCH (a:Access {userId: $u}) RETURN a.actor AS actor, a.lastAccessAt AS at", u=person.user_id
    )
    assert [a["actor"] for a in accessed] == ["agent:scout"]
    assert (await catch_up(agent))["cutoff"] == second["cutoff"]  # not moved by the third call

    # A session of the agent, saved: its page is the next cutoff; the save is not news.
    started = await agent.http.post("/v1/sessions", json={"id": "s1", "topic": "Release prep"})
    assert started.status_code == 201
    assert (await person.http.post("/v1/knowledge", json=note("before-save", "alpha"))).status_code == 201
    saved = await agent.http.post("/v1/sessions/s1/save", json={"summary": "Prepared the release."})
    page = saved.json()["page"]
    after_save = await catch_up(agent)
    assert after_save["cutoffTier"] == "session_record" and after_save["isEmpty"], after_save
    assert after_save["cutoff"][:23] == page["savedAt"][:23]
    assert after_save["myLastSession"]["slug"] == page["slug"]
    assert after_save["myLastSession"]["sessionId"] == "s1"

    # Changes after the save show, section by section.
    assert (await person.http.post("/v1/knowledge", json=note("n-alpha", "alpha"))).status_code == 201
    assert (await person.http.post("/v1/knowledge", json=note("n-beta", "beta"))).status_code == 201
    patched = await person.http.patch(
        "/v1/knowledge/before-save", json={"content": "Changed after the save."}
    )
    assert patched.status_code == 200
    goal = await person.http.post("/v1/goals", json={"id": "g1", "title": "Ship 1.0"})
    assert goal.status_code == 201
    other = await make_caller(Role.AGENT, agent_id="writer", user_id=person.user_id)
    assert (await other.http.post("/v1/sessions", json={"id": "s2", "topic": "Docs"})).status_code == 201
    end = {"summary": "Wrote docs.", "pendingActions": ["Proofread"]}
    assert (await other.http.post("/v1/sessions/s2/end", json=end)).status_code == 200
    other_page = await other.http.post("/v1/sessions/s2/save", json={"summary": "Wrote the docs."})
    assert other_page.status_code == 201
    ids = await correct_and_propose(person, other, "port-note", "The port is 8080.")

    news = await catch_up(agent)
    assert news["cutoffTier"] == "session_record" and not news["isEmpty"]
    assert [s["id"] for s in news["sessions"]["items"]] == ["s2"]
    knowledge = news["knowledge"]
    assert (knowledge["newCount"], knowledge["updatedCount"]) == (3, 1)
    assert {k["id"]: k["change"] for k in knowledge["items"]} == {
        "n-alpha": "new", "n-beta": "new", "port-note": "new", "before-save": "updated"
    }  # fmt: skip
    ops = [m["op"] for m in news["mutations"]["items"]]
    assert "wiki.save" in ops and "note.create" in ops and news["mutations"]["count"] >= 9
    assert {(w["kind"], w["id"]) for w in news["work"]["items"]} >= {("goal", "g1")}
    assert news["work"]["goals"] == 1 and news["work"]["pendingActions"] == 1
    assert [w["slug"] for w in news["wiki"]["items"]] == [other_page.json()["page"]["slug"]]
    assert [p["id"] for p in news["approvals"]["items"]] == [ids["proposal"]]
    assert news["approvals"]["waiting"] == 1
    # What the calling session did itself is not news to it.
    assert (await agent.http.post("/v1/sessions", json={"id": "s3"})).status_code == 201
    own = await agent.http.post("/v1/catch-up", json={}, headers={"X-Session-ID": "s3"})
    assert own.status_code == 200 and own.json()["mutations"]["count"] == news["mutations"]["count"]
    assert "s3" not in {m["targetId"] for m in own.json()["mutations"]["items"]}

    # An explicit time wins, and reaches back to everything; the limit caps the items only.
    explicit = await catch_up(agent, since=first["cutoff"], limitPerSection=2)
    assert explicit["cutoffTier"] == "explicit"
    assert explicit["sessions"]["count"] == 3 and len(explicit["sessions"]["items"]) == 2  # s1, s2, s3
    assert explicit["knowledge"]["count"] == 4 and len(explicit["knowledge"]["items"]) == 2
    assert explicit["wiki"]["count"] == 2
    # The entity scope narrows the notes, and the journal and approvals about notes.
    alpha = await catch_up(agent, since=first["cutoff"], entityScope={"tags": ["alpha"]})
    assert {k["id"] for k in alpha["knowledge"]["items"]} == {"n-alpha", "before-save"}
    assert {m["targetId"] for m in alpha["mutations"]["items"]} <= {"n-alpha", "before-save"}
    assert alpha["approvals"]["count"] == 0
    by_id = await catch_up(agent, since=first["cutoff"], entityScope={"ids": ["port-note"]})
    assert [k["id"] for k in by_id["knowledge"]["items"]] == ["port-note"]
    assert by_id["approvals"]["count"] == 1


def _extra(section: str) -> dict[str, int]:
    return {
        "knowledge": {"newCount": 0, "updatedCount": 0},
        "work": {"goals": 0, "pendingActions": 0},
        "approvals": {"waiting": 0},
    }.get(section, {})


async def test_catch_up_writes_nothing_but_the_last_access(make_caller: MakeCaller, db: Database) -> None:
    person = await make_caller()
    assert (await person.http.post("/v1/knowledge", json=note("n1"))).status_code == 201
    before = await inspect(db, "MATCH (t:Tenant {userId: $u}) RETURN t.seq AS seq", u=person.user_id)
    journal = (await person.http.get("/v1/mutations")).json()["items"]
    answers = [await catch_up(person) for _ in range(3)]
    assert [a["cutoffTier"] for a in answers] == ["default_24h", "last_access", "last_access"]
    assert await inspect(db, "MATCH (t:Tenant {userId: $u}) RETURN t.seq AS seq", u=person.user_id) == before
    assert (await person.http.get("/v1/mutations")).json()["items"] == journal
    # A person's key has its own last access, apart from the agents of the user.
    actors = await inspect(db, "MATCH (a:Access {userId: $u}) RETURN a.actor AS actor", u=person.user_id)
    assert actors == [{"actor": f"key:{person.key_id}"}]
    # Concurrent catch_ups of one agent record one last access, and each answers.
    agent = await make_caller(Role.AGENT, agent_id="racer", user_id=person.user_id)
    raced = await asyncio.gather(*[agent.http.post("/v1/catch-up", json={}) for _ in range(8)])
    assert all(a.status_code == 200 for a in raced), [a.text for a in raced]
    racers = await inspect(
        db, "MATCH (a:Access {userId: $u, actor: 'agent:racer'}) RETURN a", u=person.user_id
    )
    assert len(racers) == 1
    # Bad input is a 422 naming the field.
    naive = await person.http.post("/v1/catch-up", json={"since": "2026-12-01T09:00:00"})
    assert naive.status_code == 422 and naive.json()["error"]["field"] == "since"
    too_many = await person.http.post("/v1/catch-up", json={"limitPerSection": 51})
    assert too_many.status_code == 422 and too_many.json()["error"]["field"] == "limitPerSection"
