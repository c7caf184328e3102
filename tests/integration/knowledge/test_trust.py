"""A person's word holds on every path of the knowledge network, over HTTP against the real
Neo4j: each test replays a row of the trust review (docs/journal.md, "What a person's word
protects") with an agent that takes another way around the rule."""

from __future__ import annotations

from typing import Any

import pytest

from graph.core.principals import Role, Scope
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.knowledge.seeding import link, note
from tests.integration.knowledge.test_corrections import fields, latest, undo
from tests.integration.knowledge.test_integrity import unit_vector

STAGING = ("Staging port", "The staging database listens on port 7688 for the integration tests.")


def fact(node_id: str, title: str, content: str, **extra: Any) -> dict[str, Any]:
    return {**note(node_id, title, content), "dedupe": False, **extra}


async def pending(person: Caller) -> list[dict[str, Any]]:
    return list((await person.http.get("/v1/proposals", params={"status": "pending"})).json()["items"])


async def test_a_deleted_fact_stays_deleted_whatever_vector_the_agent_sends(make_caller: MakeCaller) -> None:
    """Review #1: the truth check reads the text itself; a vector of the agent's own, a
    batch, or a twin worded a little differently do not get a deleted fact back in."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    assert (await agent.http.post("/v1/knowledge", json=fact("del", *STAGING))).status_code == 201
    assert (await person.http.delete("/v1/knowledge/del")).status_code == 204
    own = await agent.http.post("/v1/knowledge", json=fact("del-b", *STAGING, embedding=unit_vector(0)))
    assert own.status_code == 202, own.text
    reworded = fact(
        "del-c", "staging PORT", "The staging database listens on port 7688, for the integration tests!"
    )
    assert (
        await agent.http.post("/v1/knowledge", json={**reworded, "embedding": unit_vector(1)})
    ).status_code == 202
    batch = [
        fact("del-d", *STAGING, embedding=unit_vector(2)),
        fact("ok", "Coffee", "The team drinks coffee."),
    ]
    answer = await agent.http.post("/v1/knowledge/batch", json={"items": batch})
    assert answer.status_code == 201, answer.text
    outcomes = [
        r.get("outcome", "proposed" if "proposal" in r else "created") for r in answer.json()["results"]
    ]
    assert outcomes == ["proposed", "created"]
    for gone in ("del-b", "del-c", "del-d"):
        assert await fields(person, gone) is None


async def test_a_paraphrase_of_a_deleted_fact_is_held_though_its_first_vector_was_the_agents(
    make_caller: MakeCaller,
) -> None:
    """The text a person takes away is kept as the service reads it, not as the vector the
    agent first sent with it: a reworded restatement with yet another vector is held."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    first = fact("del", *STAGING, embedding=unit_vector(4))
    assert (await agent.http.post("/v1/knowledge", json=first)).status_code == 201
    assert (await person.http.delete("/v1/knowledge/del")).status_code == 204
    paraphrase = fact(
        "para", "Staging port", "For the integration tests, the staging database listens on port 7688.",
        embedding=unit_vector(5),
    )  # fmt: skip
    answer = await agent.http.post("/v1/knowledge", json=paraphrase)
    assert answer.status_code == 202, answer.text


async def test_an_agent_cannot_patch_deleted_text_into_another_note(make_caller: MakeCaller) -> None:
    """Review #2: a PATCH is a write of text like a create."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    await agent.http.post("/v1/knowledge", json=fact("del", *STAGING))
    await agent.http.post("/v1/knowledge", json=fact("other", "Coffee", "The team drinks coffee."))
    assert (await person.http.delete("/v1/knowledge/del")).status_code == 204
    patched = await agent.http.patch("/v1/knowledge/other", json={"title": STAGING[0], "content": STAGING[1]})
    assert patched.status_code == 202, patched.text
    assert (await fields(person, "other"))["title"] == "Coffee"  # type: ignore[index]


@pytest.mark.smoke
async def test_a_persons_undo_of_an_agents_update_keeps_the_text_it_took_away(
    make_caller: MakeCaller,
) -> None:
    """Review #4: the undo is a correction like a PATCH, with the text it removed."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    await agent.http.post("/v1/knowledge", json=fact("u", "Sessions", "Sessions expire after five minutes."))
    wrong = "Sessions expire after ninety minutes of inactivity."
    assert (await agent.http.patch("/v1/knowledge/u", json={"content": wrong})).status_code == 200
    update = await latest(agent, targetId="u")
    assert (await undo(person, update["id"])).status_code == 200
    [correction] = (await person.http.get("/v1/corrections")).json()["items"]
    assert correction["fields"] == ["content"]
    again = await agent.http.post("/v1/knowledge", json=fact("u3", "Sessions", wrong))
    assert again.status_code == 202, again.text
    folded = await agent.http.post("/v1/knowledge", json={**fact("u4", "Sessions", wrong), "dedupe": True})
    assert folded.status_code == 202, folded.text


async def test_who_wrote_a_field_is_kept_with_the_note_however_long_the_journal(
    make_caller: MakeCaller,
) -> None:
    """Review #5: 1,000 later mutations of the note do not turn a person's fix into a
    person writing over a person."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    vector = unit_vector(3)
    await agent.http.post(
        "/v1/knowledge", json=fact("hw", "Retention", "Logs are kept for 30 days.", embedding=vector)
    )
    assert (
        await agent.http.patch("/v1/knowledge/hw", json={"content": "Logs are kept for 365 days."})
    ).status_code == 200
    twins = [
        {**note(f"tw{i}", "Retention", f"Logs retention {i}."), "embedding": vector, "dedupe": True}
        for i in range(1000)
    ]
    answer = await agent.http.post("/v1/knowledge/batch", json={"items": twins})
    assert answer.status_code == 201, answer.text[:300]
    fixed = await person.http.patch(
        "/v1/knowledge/hw", json={"content": "Logs are kept for 30 days, by law."}
    )
    assert fixed.status_code == 200
    [correction] = (await person.http.get("/v1/corrections")).json()["items"]
    assert correction["targetId"] == "hw" and correction["fields"] == ["content"]
    back = await agent.http.patch("/v1/knowledge/hw", json={"content": "Logs are kept for 365 days."})
    assert back.status_code == 202, back.text


async def test_what_a_person_wrote_is_held_against_an_agents_update_delete_and_supersede(
    make_caller: MakeCaller,
) -> None:
    """Review #6: a person's own note and decision, not only what they corrected."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    await person.http.post("/v1/knowledge", json=fact("sla", "SLA", "Our public SLA is 99.9 percent."))
    decision = {
        "id": "adr",
        "title": "Use Postgres",
        "context": "We need a database.",
        "decision": "Postgres.",
    }
    assert (await person.http.post("/v1/decisions", json=decision)).status_code == 201
    assert (
        await agent.http.patch("/v1/knowledge/sla", json={"content": "Our public SLA is 95 percent."})
    ).status_code == 202
    assert (await agent.http.delete("/v1/knowledge/sla")).status_code == 202
    assert (await agent.http.delete("/v1/knowledge/adr")).status_code == 202
    await agent.http.post("/v1/knowledge", json=fact("sla2", "SLA", "Our public SLA is 95 percent now."))
    assert (await link(agent, "sla2", "supersedes", "sla")).status_code == 202
    assert (await fields(person, "sla"))["content"] == "Our public SLA is 99.9 percent."  # type: ignore[index]
    assert (await fields(person, "sla"))["status"] == "active"  # type: ignore[index]
    assert (await person.http.get("/v1/decisions/adr")).status_code == 200
    # The agent's own note stays the agent's to change.
    assert (await agent.http.patch("/v1/knowledge/sla2", json={"confidence": 0.5})).status_code == 200


async def test_a_person_who_restates_an_agents_value_makes_it_theirs(make_caller: MakeCaller) -> None:
    """A person's PATCH of a field to the value it holds is their word on it (found by the
    truth properties: a confirmation wrote nothing, so an agent could then delete the note or
    flip its status with a supersedes edge)."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    for node_id in ("kept", "other"):
        made = await agent.http.post("/v1/knowledge", json=fact(node_id, "Port", f"Port of {node_id}."))
        assert made.status_code == 201
    confirmed = await person.http.patch("/v1/knowledge/kept", json={"status": "active"})
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "active"
    latest = await person.http.get("/v1/mutations", params={"targetId": "kept", "limit": 1})
    [entry] = latest.json()["items"]
    assert entry["op"] == "note.update" and entry["actor"]["role"] == "human"
    assert entry["before"] == entry["after"] == {"status": "active"}
    assert (await link(agent, "other", "supersedes", "kept")).status_code == 202
    assert (await agent.http.patch("/v1/knowledge/kept", json={"status": "archived"})).status_code == 202
    assert (await agent.http.delete("/v1/knowledge/kept")).status_code == 202
    assert (await fields(person, "kept"))["status"] == "active"  # type: ignore[index]
    # The agent's text is still the agent's: only what the person restated became theirs.
    retitled = await agent.http.patch("/v1/knowledge/kept", json={"confidence": 0.4})
    assert retitled.status_code == 200, retitled.text
    # Restating what is already the person's writes nothing more.
    again = await person.http.patch("/v1/knowledge/kept", json={"status": "active"})
    assert again.status_code == 200
    entries = (await person.http.get("/v1/mutations", params={"targetId": "kept"})).json()["items"]
    assert [m["op"] for m in entries].count("note.update") == 2  # the confirmation and the confidence


async def test_undoing_the_delete_of_a_decision_brings_back_a_decision(make_caller: MakeCaller) -> None:
    """Review #10: the snapshot is generic over what the node holds; the vector is kept."""
    person = await make_caller(Role.HUMAN)
    decision = {
        "id": "adr", "title": "Use Postgres", "context": "We need a database.", "decision": "Postgres.",
        "consequences": ["Backups nightly."], "agents": ["coder"], "date": "2026-11-02",
    }  # fmt: skip
    assert (await person.http.post("/v1/decisions", json=decision)).status_code == 201
    before = (await person.http.get("/v1/decisions/adr")).json()
    assert (await person.http.delete("/v1/knowledge/adr")).status_code == 204
    assert (await person.http.get("/v1/decisions/adr")).status_code == 404
    delete = await latest(person, targetId="adr")
    assert (await undo(person, delete["id"])).status_code == 200
    after = (await person.http.get("/v1/decisions/adr")).json()
    assert {k: v for k, v in after.items() if k != "updatedAt"} == {
        k: v for k, v in before.items() if k != "updatedAt"
    }
    instructions = (await person.http.get("/v1/agents/coder/instructions")).json()
    assert "Use Postgres" in str(instructions)


async def test_a_superseded_note_does_not_become_active_by_way_of_archived(make_caller: MakeCaller) -> None:
    """Review #14."""
    alice = await make_caller(Role.HUMAN)
    for made in (
        fact("old", "Indent", "Tabs for indentation."),
        fact("new", "Indent", "Spaces for indentation."),
    ):
        await alice.http.post("/v1/knowledge", json=made)
    assert (await link(alice, "new", "supersedes", "old")).status_code == 201
    assert (await alice.http.patch("/v1/knowledge/old", json={"status": "active"})).status_code == 409
    assert (await alice.http.patch("/v1/knowledge/old", json={"status": "archived"})).status_code == 200
    again = await alice.http.patch("/v1/knowledge/old", json={"status": "active"})
    assert again.status_code == 409 and again.json()["error"]["field"] == "status"
    assert (await fields(alice, "old"))["status"] == "archived"  # type: ignore[index]


async def test_a_person_decides_once(make_caller: MakeCaller) -> None:
    """Review #15: a rejected change is not proposed again, by a retry or another id."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    await agent.http.post("/v1/knowledge", json=fact("del", *STAGING))
    await person.http.delete("/v1/knowledge/del")
    first = await agent.http.post("/v1/knowledge", json=fact("try1", *STAGING))
    assert first.status_code == 202
    proposal = first.json()["proposal"]["id"]
    assert (await person.http.post(f"/v1/proposals/{proposal}/reject")).status_code == 200
    for retry in (
        fact("try1", *STAGING),
        fact("try2", *STAGING),
        {k: v for k, v in fact("x", *STAGING).items() if k != "id"},
    ):
        again = await agent.http.post("/v1/knowledge", json=retry)
        assert again.status_code == 409, again.text
        assert proposal in again.json()["error"]["message"]
    assert await pending(person) == []
    # An update a person rejected is not proposed again either.
    await person.http.post("/v1/knowledge", json=fact("mine", "Lunch", "Lunch is at noon."))
    patch = {"content": "Lunch is at one."}
    held = await agent.http.patch("/v1/knowledge/mine", json=patch)
    assert held.status_code == 202
    await person.http.post(f"/v1/proposals/{held.json()['proposal']['id']}/reject")
    assert (await agent.http.patch("/v1/knowledge/mine", json=patch)).status_code == 409


async def test_a_scoped_key_learns_nothing_of_an_outside_note_from_a_409_or_a_proposal(
    make_caller: MakeCaller,
) -> None:
    """Review #20 and #21."""
    person = await make_caller(Role.HUMAN)
    writer = await make_caller(Role.AGENT, agent_id="writer", user_id=person.user_id)
    scoped = await make_caller(
        Role.AGENT, agent_id="bot", user_id=person.user_id, scope=Scope(tags=("proj",))
    )
    await person.http.post("/v1/knowledge", json=fact("vault", "Vault", "The vault code is 4471."))
    wrong = await scoped.http.post(
        "/v1/knowledge", json=fact("vault", "Vault", "The vault code is 1111.", tags=["proj"])
    )
    right = await scoped.http.post(
        "/v1/knowledge", json=fact("vault", "Vault", "The vault code is 4471.", tags=["proj"])
    )
    assert wrong.status_code == right.status_code == 409
    assert wrong.json() == right.json()
    vector = (
        (await person.http.get("/v1/knowledge/vault", params={"includeEmbedding": "true"}))
        .json()
        .get("embedding")
    )
    alias = {**note("alias", "Vault", "The vault code is 4471."), "dedupe": True}
    if vector is not None:
        alias["embedding"] = vector
    assert (await person.http.post("/v1/knowledge", json=alias)).json().get("mergedInto") == "vault"
    followed = await scoped.http.get("/v1/knowledge/alias", params={"followMerges": "true"})
    assert followed.status_code == 404 and "vault" not in followed.text.replace("alias", "")
    taken = await scoped.http.post(
        "/v1/knowledge", json={**fact("alias", "Vault", "The vault code is 4471."), "tags": ["proj"]}
    )
    assert taken.status_code == 409 and "'vault'" not in taken.text
    # A proposal a scoped key gets does not name the deleted note outside its scope.
    await writer.http.post(
        "/v1/knowledge", json=fact("wdel", "Payroll", "Payroll runs on the 25th of each month.")
    )
    await person.http.delete("/v1/knowledge/wdel")
    held = await scoped.http.post(
        "/v1/knowledge", json=fact("p", "Payroll", "Payroll runs on the 25th of each month.", tags=["proj"])
    )
    assert held.status_code == 202 and "wdel" not in held.text


async def test_who_wrote_a_note_is_shown_and_agent_text_handed_to_agents_says_whose_it_is(
    make_caller: MakeCaller,
) -> None:
    """Per-field provenance on the note, and its mark in the brief and the bridge."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    await agent.http.post("/v1/knowledge", json=fact("a", "Deploy window", "Deploys go out on Tuesdays."))
    await person.http.post(
        "/v1/knowledge", json=fact("p", "Deploy freeze", "No deploys in the last week of December.")
    )
    await person.http.patch("/v1/knowledge/a", json={"confidence": 0.7})
    written = (await person.http.get("/v1/knowledge/a")).json()["writtenBy"]
    assert written == {"createdByRole": "agent", "createdByAgent": "scribe", "personFields": ["confidence"]}
    mine = (await person.http.get("/v1/knowledge/p")).json()["writtenBy"]
    assert mine["createdByRole"] == "human" and "content" in mine["personFields"]
    brief = (
        await agent.http.post("/v1/brief", json={"task": "plan the deploys", "tokenBudget": 2000})
    ).json()
    lines = {line for line in brief["text"].splitlines() if "Deploy" in line}
    assert any("Tuesdays. (written by agent scribe)" in line for line in lines), lines
    assert any("December." in line and "written by" not in line for line in lines), lines
    bridge = (
        await agent.http.post("/v1/context/bridge", json={"agentId": "scribe", "topic": "deploys"})
    ).json()
    assert "Tuesdays. (written by agent scribe)" in bridge["text"], bridge["text"]
