"""Human corrections that outrank agent writes, proposals, acknowledgement per session, and
undo where a person's word is at stake, over HTTP against the real Neo4j (undo itself:
``test_undo.py``)."""

from __future__ import annotations

import asyncio

from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.knowledge.mutations import fields, latest, undo
from tests.integration.knowledge.seeding import note, seed, status_of
from tests.integration.knowledge.test_integrity import unit_vector


async def test_a_human_edit_of_an_agent_note_is_a_correction_and_agents_must_propose(
    make_caller: MakeCaller,
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    colleague = await make_caller(Role.HUMAN, user_id=agent.user_id)
    await agent.http.post("/v1/knowledge", json=note("db", "Database", "Orders are in MySQL.", tags=["db"]))
    fixed = await person.http.patch(
        "/v1/knowledge/db",
        json={"content": "Orders are in Postgres."},
        headers={"X-Change-Reason": "migrated"},
    )
    assert fixed.status_code == 200
    [correction] = (await agent.http.get("/v1/corrections")).json()["items"]
    assert (correction["kind"], correction["targetId"], correction["fields"]) == ("update", "db", ["content"])
    assert correction["before"] == {"content": "Orders are in MySQL."}
    assert (
        correction["after"] == {"content": "Orders are in Postgres."} and correction["reason"] == "migrated"
    )
    # A person over a person is no correction.
    await colleague.http.patch("/v1/knowledge/db", json={"content": "Orders are in Postgres 16."})
    colleagues = await latest(agent)
    assert len((await agent.http.get("/v1/corrections")).json()["items"]) == 1
    # The agent may not write the corrected field back; other fields go through.
    back = await agent.http.patch("/v1/knowledge/db", json={"content": "Orders are in MySQL."})
    assert back.status_code == 202, back.text
    proposal = back.json()["proposal"]
    assert (proposal["op"], proposal["fields"], proposal["status"]) == ("note.update", ["content"], "pending")
    assert (await fields(agent, "db"))["content"] == "Orders are in Postgres 16."  # type: ignore[index]
    assert (await agent.http.patch("/v1/knowledge/db", json={"confidence": 0.7})).status_code == 200
    # Nor delete the note, nor undo the person's fix.
    assert (await agent.http.delete("/v1/knowledge/db")).status_code == 202
    assert (await undo(agent, correction["mutationId"])).status_code == 409  # the colleague's edit is later
    assert (await undo(agent, colleagues["id"])).status_code == 202
    assert await fields(agent, "db") is not None
    # Agents cannot decide; a person rejects one and approves another.
    assert (await agent.http.post(f"/v1/proposals/{proposal['id']}/approve")).status_code == 403
    pending = (await person.http.get("/v1/proposals", params={"status": "pending"})).json()["items"]
    assert len(pending) == 3
    delete_proposal = next(p for p in pending if p["op"] == "note.delete")
    rejected = await person.http.post(f"/v1/proposals/{delete_proposal['id']}/reject", json={"reason": "no"})
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    approved = await person.http.post(f"/v1/proposals/{proposal['id']}/approve")
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "approved" and len(approved.json()["decision"]["mutationIds"]) == 1
    assert (await fields(agent, "db"))["content"] == "Orders are in MySQL."  # type: ignore[index]
    applied = await latest(agent, targetId="db")
    assert applied["proposalId"] == proposal["id"] and applied["actor"]["role"] == "human"
    twice = await person.http.post(f"/v1/proposals/{proposal['id']}/approve")
    assert twice.status_code == 409


async def test_a_fact_a_person_deleted_is_not_written_back_by_an_agent(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    vector = unit_vector(7)
    wrong = {**note("wrong", "Deploys", "We deploy on Fridays."), "embedding": vector}
    await agent.http.post("/v1/knowledge", json=wrong)
    assert (await person.http.delete("/v1/knowledge/wrong")).status_code == 204
    [correction] = (await person.http.get("/v1/corrections")).json()["items"]
    assert correction["kind"] == "delete" and correction["before"]["content"] == "We deploy on Fridays."
    again = await agent.http.post("/v1/knowledge", json={**wrong, "id": "again", "dedupe": False})
    assert again.status_code == 202, again.text
    assert again.json()["proposal"]["payload"]["revives"]["targetId"] == "wrong"
    batch = [{**wrong, "id": "b1"}, note("b2", "Other", "Something unrelated.")]
    answer = await agent.http.post("/v1/knowledge/batch", json={"items": batch})
    assert answer.status_code == 201
    results = answer.json()["results"]
    assert results[0]["outcome"] == "proposed" and "proposal" in results[0]
    assert results[1] == {"id": "b2", "outcome": "created"}
    assert await fields(agent, "again") is None and await fields(agent, "b1") is None
    # A person's own create goes through; undoing the delete retires the correction.
    assert (await person.http.post("/v1/knowledge", json={**wrong, "id": "mine"})).status_code == 201
    assert (await undo(person, correction["mutationId"])).status_code == 200
    assert (await person.http.get("/v1/corrections")).json()["items"][0]["status"] == "retired"
    await person.http.delete("/v1/knowledge/mine")
    revived = await agent.http.post("/v1/knowledge", json={**wrong, "id": "later", "dedupe": False})
    assert revived.status_code == 201


async def test_text_a_person_corrected_away_is_not_written_back_by_an_agent(make_caller: MakeCaller) -> None:
    """The agent's wrong text a person replaced is as gone as a deleted note: a twin of it is
    a proposal, while the note stands corrected and after the person deletes it too."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    wrong = {**note("port", "Staging port", "Staging listens on port 7688."), "embedding": unit_vector(9)}
    assert (await agent.http.post("/v1/knowledge", json=wrong)).status_code == 201
    fixed = await person.http.patch("/v1/knowledge/port", json={"content": "Staging listens on port 7689."})
    assert fixed.status_code == 200
    again = await agent.http.post("/v1/knowledge", json={**wrong, "id": "port-again", "dedupe": False})
    assert again.status_code == 202 and again.json()["proposal"]["payload"]["revives"]["targetId"] == "port"
    assert (await person.http.delete("/v1/knowledge/port")).status_code == 204
    later = await agent.http.post("/v1/knowledge", json={**wrong, "id": "port-later", "dedupe": False})
    assert later.status_code == 202, later.text
    unrelated = {**note("other", "Other", "Something else."), "embedding": unit_vector(10)}
    assert (await agent.http.post("/v1/knowledge", json=unrelated)).status_code == 201


async def test_corrections_are_listed_to_each_session_until_it_acknowledges(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    await agent.http.post("/v1/knowledge", json=note("n", "Port", "The API listens on 8080."))
    await person.http.patch("/v1/knowledge/n", json={"content": "The API listens on 8000."})

    async def unacked(session: str) -> list[str]:
        answer = await agent.http.get(
            "/v1/corrections", params={"unacknowledged": "true", "sessionId": session}
        )
        assert answer.status_code == 200, answer.text
        return [c["id"] for c in answer.json()["items"]]

    [cid] = await unacked("s1")
    assert (await agent.http.post("/v1/sessions", json={"id": "s1"})).status_code == 201  # its own
    acks = [
        agent.http.post(
            f"/v1/corrections/{cid}/ack", json={"sessionId": "s1", "actionTaken": "Updated my notes."}
        )
        for _ in range(3)
    ]
    answers = await asyncio.gather(*acks)
    assert all(a.status_code == 200 for a in answers)
    assert len(answers[0].json()["acknowledgements"]) == 1
    assert await unacked("s1") == [] and await unacked("s2") == [cid]
    # Without a session: those no session of the agent has acknowledged; s1 is the agent's.
    unsessioned = await agent.http.get("/v1/corrections", params={"unacknowledged": "true"})
    assert unsessioned.status_code == 200 and unsessioned.json()["items"] == []
    blank = await agent.http.post(f"/v1/corrections/{cid}/ack", json={"sessionId": "s3", "actionTaken": " "})
    assert blank.status_code == 422 and blank.json()["error"]["field"] == "actionTaken"
    other = await make_caller(Role.AGENT, agent_id="scribe")
    assert (await other.http.get("/v1/corrections")).json()["items"] == []
    assert (
        await other.http.post(f"/v1/corrections/{cid}/ack", json={"sessionId": "s1", "actionTaken": "x"})
    ).status_code == 404
    assert (await other.http.get("/v1/proposals")).json()["items"] == []


async def test_unacknowledged_without_a_session_is_what_no_session_acknowledged(
    make_caller: MakeCaller,
) -> None:
    scribe = await make_caller(Role.AGENT, agent_id="scribe")
    planner = await make_caller(Role.AGENT, user_id=scribe.user_id, agent_id="planner")
    person = await make_caller(Role.HUMAN, user_id=scribe.user_id)
    await scribe.http.post("/v1/knowledge", json=note("port", "Port", "The API listens on 8080."))
    await scribe.http.post("/v1/knowledge", json=note("db", "Database", "Orders are kept in MySQL."))
    await person.http.patch("/v1/knowledge/port", json={"content": "The API listens on 8000."})
    await person.http.patch("/v1/knowledge/db", json={"content": "Orders are kept in Postgres."})
    first, second = (c["id"] for c in reversed((await person.http.get("/v1/corrections")).json()["items"]))
    for caller, session in ((scribe, "s-scribe"), (planner, "s-planner")):
        assert (await caller.http.post("/v1/sessions", json={"id": session})).status_code == 201

    async def unacked(caller: Caller, session: str | None = None) -> list[str]:
        params = {"unacknowledged": "true"} | ({"sessionId": session} if session else {})
        answer = await caller.http.get("/v1/corrections", params=params)
        assert answer.status_code == 200, answer.text
        return [c["id"] for c in answer.json()["items"]]

    async def ack(caller: Caller, session: str, cid: str) -> None:
        answer = await caller.http.post(
            f"/v1/corrections/{cid}/ack", json={"sessionId": session, "actionTaken": "Read it."}
        )
        assert answer.status_code == 200, answer.text

    newest_first = [second, first]
    assert await unacked(scribe) == await unacked(planner) == await unacked(person) == newest_first
    # The scribe's session acknowledges the first: gone for the scribe and for the person (a
    # session acknowledged it), still there for the planner, whose sessions have not.
    await ack(scribe, "s-scribe", first)
    assert await unacked(scribe) == [second] and await unacked(person) == [second]
    assert await unacked(planner) == newest_first and await unacked(planner, "s-planner") == newest_first
    # The planner's session acknowledges the second: the scribe still has it to see.
    await ack(planner, "s-planner", second)
    assert await unacked(scribe) == [second] and await unacked(planner) == [first]
    assert await unacked(person) == []
    assert await unacked(scribe, "s-planner") == [first] and await unacked(scribe, "s-scribe") == [second]


async def test_the_window_ends_the_listing(make_caller: MakeCaller, db: Database) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    await agent.http.post("/v1/knowledge", json=note("n", "Port", "The API listens on 8080."))
    await person.http.patch("/v1/knowledge/n", json={"content": "The API listens on 8000."})
    await db.driver.execute_query(  # as if made eight days ago
        "MATCH (c:Correction {userId: $u}) SET c.at = datetime() - duration({days: 8})",
        {"u": agent.user_id}, database_=db.database,
    )  # fmt: skip
    listed = await agent.http.get("/v1/corrections", params={"unacknowledged": "true", "sessionId": "s9"})
    assert listed.json()["items"] == []
    assert len((await agent.http.get("/v1/corrections")).json()["items"]) == 1


async def test_supersedes_edges_journal_the_status_they_flip_and_yield_to_a_corrected_status(
    make_caller: MakeCaller,
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    await seed(
        agent, note("new", "Cache v2", "We cache in Redis."), note("old", "Cache", "We cache in Memcached.")
    )
    # A person archives the agent's note and brings it back: its status is theirs now.
    await person.http.patch("/v1/knowledge/old", json={"status": "archived"})
    await person.http.patch("/v1/knowledge/old", json={"status": "active"})
    held = await agent.http.post(
        "/v1/knowledge/new/connections", json={"type": "supersedes", "targetId": "old"}
    )
    assert held.status_code == 202, held.text
    proposal = held.json()["proposal"]
    assert (proposal["op"], proposal["fields"]) == ("edge.connect", ["status"])
    assert await status_of(agent, "old") == "active"
    assert (await agent.http.get("/v1/knowledge/new/connections")).json()["items"] == []
    # Asking again waits on the same proposal.
    again = await agent.http.post(
        "/v1/knowledge/new/connections", json={"type": "supersedes", "targetId": "old"}
    )
    assert again.json()["proposal"]["id"] == proposal["id"]
    approved = await person.http.post(f"/v1/proposals/{proposal['id']}/approve")
    assert approved.status_code == 200, approved.text
    assert await status_of(agent, "old") == "superseded"
    # The note's own history shows the flip, in the edge's write.
    [flip, *_] = (await person.http.get("/v1/mutations", params={"targetId": "old"})).json()["items"]
    assert (flip["op"], flip["before"], flip["after"]) == (
        "note.status",
        {"status": "active"},
        {"status": "superseded"},
    )
    assert flip["proposalId"] == proposal["id"] and flip["actor"]["role"] == "human"
    newest = await latest(person, targetId="new supersedes old")
    assert newest["op"] == "edge.connect" and newest["seq"] == flip["seq"]
    assert sorted(approved.json()["decision"]["mutationIds"]) == sorted([flip["id"], newest["id"]])
    # A flip is undone with its edge, not alone.
    refused = await undo(person, flip["id"])
    assert refused.status_code == 409 and refused.json()["error"]["blockingMutation"] == newest["id"]
    # The agent cannot take the edge away either: that would flip the corrected status back.
    await seed(agent, note("other", "Other", "Another note."))
    assert (await agent.http.delete("/v1/knowledge/other/connections/supersedes/old")).status_code == 404
    gone = await agent.http.delete("/v1/knowledge/new/connections/supersedes/old")
    assert gone.status_code == 202 and gone.json()["proposal"]["op"] == "edge.disconnect"
    assert await status_of(agent, "old") == "superseded"
    # A person can; the flip back is journaled too.
    assert (await person.http.delete("/v1/knowledge/new/connections/supersedes/old")).status_code == 204
    assert await status_of(agent, "old") == "active"
    [back, *_] = (await person.http.get("/v1/mutations", params={"targetId": "old"})).json()["items"]
    assert (back["op"], back["after"]) == ("note.status", {"status": "active"})


async def test_an_agent_undo_does_not_bring_back_a_twin_of_a_fact_a_person_deleted(
    make_caller: MakeCaller,
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    for node_id in ("first", "second"):  # one text, embedded by the service: twins
        body = note(node_id, "Deploys", "We deploy on Fridays.")
        assert (await agent.http.post("/v1/knowledge", json=body)).status_code == 201
    assert (await agent.http.delete("/v1/knowledge/second")).status_code == 204
    own_delete = await latest(agent)
    assert (await person.http.delete("/v1/knowledge/first")).status_code == 204
    held = await undo(agent, own_delete["id"])
    assert held.status_code == 202, held.text
    assert await fields(agent, "second") is None
    # A person may bring it back.
    assert (await undo(person, own_delete["id"])).status_code == 200
    assert await fields(agent, "second") is not None


async def test_a_person_undoing_an_agents_merge_corrects_it_and_proposals_page_without_gaps(
    make_caller: MakeCaller,
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    vector = unit_vector(5)
    await seed(agent, {**note("a", "Postgres", "Orders live in Postgres.", tags=["db"]), "embedding": vector})
    twin = {
        **note("b", "Postgres!", "Orders: Postgres.", tags=["orders"]),
        "embedding": vector,
        "dedupe": True,
    }
    assert (await agent.http.post("/v1/knowledge", json=twin)).json()["mergedInto"] == "a"
    merged = await latest(agent)
    assert (await undo(person, merged["id"])).status_code == 200
    [correction] = (await person.http.get("/v1/corrections")).json()["items"]
    assert correction["targetId"] == "a" and "tags" in correction["fields"]
    # One agent write that a person's deletes hold back three times over: three proposals in
    # one write, paged one at a time without a gap.
    for i in range(3):
        body = {
            **note(f"gone{i}", f"Gone {i}", f"Fact {i}."),
            "embedding": unit_vector(20 + i),
            "dedupe": False,
        }
        await agent.http.post("/v1/knowledge", json=body)
        await person.http.delete(f"/v1/knowledge/gone{i}")
    batch = [
        {**note(f"back{i}", f"Gone {i}", f"Fact {i}."), "embedding": unit_vector(20 + i), "dedupe": False}
        for i in range(3)
    ]
    answer = await agent.http.post("/v1/knowledge/batch", json={"items": batch})
    assert all("proposal" in r for r in answer.json()["results"])
    seen: list[str] = []
    cursor = None
    while True:
        params = {"limit": 1, "status": "pending"} | ({"cursor": cursor} if cursor else {})
        page = (await person.http.get("/v1/proposals", params=params)).json()
        seen += [p["id"] for p in page["items"]]
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert sorted(seen) == sorted(r["proposal"]["id"] for r in answer.json()["results"])
