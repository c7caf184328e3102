"""A person's word holds for edges as for notes: an agent's removal of an edge a person made
or confirmed, and its re-creation of an edge a person removed, become proposals (202) a
person approves or rejects; a batch proposes item by item; agents at once change nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.desk.test_desk_http import desk_of
from tests.integration.knowledge.seeding import status_of
from tests.integration.knowledge.test_updates import NEW, OLD
from tests.support.servers import ApiProcess


async def pair(make_caller: MakeCaller, *ids: str) -> tuple[Caller, Caller]:
    """An agent and a person of one fresh user, with an agent's note for each id."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    items = [
        {"id": i, "title": f"Note {i}", "content": f"Fact {i} holds.", "type": "fact", "dedupe": False}
        for i in ids
    ]
    assert (await agent.http.post("/v1/knowledge/batch", json={"items": items})).status_code == 201
    return agent, person


async def edges(caller: Caller, node_id: str) -> list[tuple[str, str, str]]:
    items = (await caller.http.get(f"/v1/knowledge/{node_id}/connections")).json()["items"]
    return sorted((e["sourceId"], e["type"], e["targetId"]) for e in items)


async def test_an_agent_removing_a_persons_edge_waits_for_the_person(make_caller: MakeCaller) -> None:
    agent, person = await pair(make_caller, "a", "b")
    made = await person.http.post(
        "/v1/knowledge/a/connections", json={"type": "dependsOn", "targetId": "b", "note": "why"}
    )
    assert made.status_code == 201
    removed = await agent.http.delete("/v1/knowledge/a/connections/dependsOn/b")
    assert removed.status_code == 202, removed.text
    proposal = removed.json()["proposal"]
    assert (proposal["op"], proposal["fields"], proposal["payload"]["sourceId"]) == (
        "edge.disconnect",
        ["edge"],
        "a",
    )
    assert await edges(person, "a") == [("a", "dependsOn", "b")]
    # The same removal again is the same proposal, not a second one.
    again = await agent.http.delete("/v1/knowledge/a/connections/dependsOn/b")
    assert again.status_code == 202 and again.json()["proposal"]["id"] == proposal["id"]
    approved = await person.http.post(f"/v1/proposals/{proposal['id']}/approve")
    assert approved.status_code == 200, approved.text
    assert await edges(person, "a") == []
    [done] = (
        await person.http.get("/v1/mutations", params={"targetId": "a dependsOn b", "limit": 1})
    ).json()["items"]
    assert (done["op"], done["proposalId"], done["actor"]["role"]) == (
        "edge.disconnect",
        proposal["id"],
        "human",
    )


async def test_an_edge_a_person_removed_is_not_made_again_by_an_agent(make_caller: MakeCaller) -> None:
    agent, person = await pair(make_caller, "a", "b")
    body = {"type": "conflictsWith", "targetId": "b"}
    assert (await agent.http.post("/v1/knowledge/a/connections", json=body)).status_code == 201
    gone = await person.http.delete(
        "/v1/knowledge/a/connections/conflictsWith/b", headers={"X-Change-Reason": "they do not conflict"}
    )
    assert gone.status_code == 204
    [correction] = (
        await person.http.get("/v1/corrections", params={"targetId": "a conflictsWith b"})
    ).json()["items"]
    assert (correction["targetType"], correction["kind"], correction["fields"]) == (
        "Edge",
        "delete",
        ["edge"],
    )
    assert correction["reason"] == "they do not conflict"
    assert correction["before"]["edge"]["createdByRole"] == "agent"
    # Either way round: conflictsWith is one edge.
    for source, target in (("a", "b"), ("b", "a")):
        again = await agent.http.post(
            f"/v1/knowledge/{source}/connections", json={"type": "conflictsWith", "targetId": target}
        )
        assert again.status_code == 202, again.text
        assert again.json()["proposal"]["correctionIds"] == [correction["id"]]
    assert await edges(person, "a") == []
    proposals = (await person.http.get("/v1/proposals", params={"status": "pending"})).json()["items"]
    for p in proposals:
        assert (await person.http.post(f"/v1/proposals/{p['id']}/reject")).status_code == 200
    refused = await agent.http.post("/v1/knowledge/a/connections", json=body)
    assert refused.status_code == 409, refused.text
    # An agent's undo of the person's removal is the same re-creation: held too.
    [removal] = (
        await person.http.get("/v1/mutations", params={"targetId": "a conflictsWith b", "limit": 1})
    ).json()["items"]
    undo = await agent.http.post(f"/v1/mutations/{removal['id']}/undo")
    assert undo.status_code == 202 and undo.json()["proposal"]["fields"] == ["edge"], undo.text
    # The person's own connect is their new word: the correction retires, the agent may remove
    # the edge no more (the person made it).
    assert (await person.http.post("/v1/knowledge/a/connections", json=body)).status_code == 201
    [retired] = (await person.http.get("/v1/corrections", params={"targetId": "a conflictsWith b"})).json()[
        "items"
    ]
    assert retired["status"] == "retired"
    assert (await agent.http.delete("/v1/knowledge/a/connections/conflictsWith/b")).status_code == 202


async def test_a_persons_connect_of_an_agents_edge_is_their_word(make_caller: MakeCaller) -> None:
    agent, person = await pair(make_caller, "a", "b")
    body = {"type": "relatedTo", "targetId": "b"}
    assert (await agent.http.post("/v1/knowledge/a/connections", json=body)).status_code == 201
    confirmed = await person.http.post("/v1/knowledge/a/connections", json=body)
    assert confirmed.status_code == 200 and confirmed.json()["created"] is False
    [entry] = (
        await person.http.get("/v1/mutations", params={"targetId": "a relatedTo b", "limit": 1})
    ).json()["items"]
    assert entry["op"] == "edge.connect" and entry["after"]["confirmedByPerson"] is True
    assert "confirmedByPerson" not in entry["before"]
    assert (await agent.http.delete("/v1/knowledge/a/connections/relatedTo/b")).status_code == 202
    # Confirming again writes nothing; the person's undo of the confirmation makes it the agent's.
    assert (await person.http.post("/v1/knowledge/a/connections", json=body)).status_code == 200
    undone = await person.http.post(f"/v1/mutations/{entry['id']}/undo")
    assert undone.status_code == 200, undone.text
    assert (await agent.http.delete("/v1/knowledge/a/connections/relatedTo/b")).status_code == 204


async def test_a_batch_proposes_the_held_items_and_writes_the_others(make_caller: MakeCaller) -> None:
    agent, person = await pair(make_caller, "a", "b", "c")
    assert (
        await agent.http.post("/v1/knowledge/a/connections", json={"type": "dependsOn", "targetId": "b"})
    ).status_code == 201
    assert (await person.http.delete("/v1/knowledge/a/connections/dependsOn/b")).status_code == 204
    held = {"sourceId": "a", "type": "dependsOn", "targetId": "b"}
    fresh = {"sourceId": "a", "type": "relatedTo", "targetId": "c"}
    answer = await agent.http.post("/v1/connections/batch", json={"items": [held, fresh]})
    assert answer.status_code == 201, answer.text
    first, second = answer.json()["results"]
    assert first["created"] is False and first["proposal"]["status"] == "pending"
    assert second["created"] is True and "proposal" not in second
    assert await edges(person, "a") == [("a", "relatedTo", "c")]
    alone = await agent.http.post("/v1/connections/batch", json={"items": [held]})
    assert (
        alone.status_code == 202 and alone.json()["results"][0]["proposal"]["id"] == first["proposal"]["id"]
    )


async def test_agents_at_once_do_not_move_a_persons_word(make_caller: MakeCaller) -> None:
    agent, person = await pair(make_caller, "a", "b", "c")
    others = [await make_caller(Role.AGENT, agent_id=f"bot{i}", user_id=agent.user_id) for i in range(4)]
    agents = [agent, *others]
    assert (
        await person.http.post("/v1/knowledge/a/connections", json={"type": "dependsOn", "targetId": "b"})
    ).status_code == 201
    assert (
        await agent.http.post("/v1/knowledge/a/connections", json={"type": "relatedTo", "targetId": "c"})
    ).status_code == 201
    assert (await person.http.delete("/v1/knowledge/a/connections/relatedTo/c")).status_code == 204

    async def trample(caller: Caller) -> list[int]:
        removal = await caller.http.delete("/v1/knowledge/a/connections/dependsOn/b")
        again = await caller.http.post(
            "/v1/knowledge/a/connections", json={"type": "relatedTo", "targetId": "c"}
        )
        return [removal.status_code, again.status_code]

    answers: list[Any] = await asyncio.gather(*(trample(a) for a in agents for _ in range(2)))
    assert all(codes == [202, 202] for codes in answers), answers
    assert await edges(person, "a") == [("a", "dependsOn", "b")]
    pending = (await person.http.get("/v1/proposals", params={"status": "pending"})).json()["items"]
    assert len(pending) == 2 * len(agents)  # one of each change per agent: retries repeat none


async def test_the_inbox_shows_an_edge_proposal(make_caller: MakeCaller, api: ApiProcess) -> None:
    agent, person = await pair(make_caller, "a", "b")
    assert (
        await person.http.post("/v1/knowledge/a/connections", json={"type": "dependsOn", "targetId": "b"})
    ).status_code == 201
    assert (await agent.http.delete("/v1/knowledge/a/connections/dependsOn/b")).status_code == 202
    assert (await person.http.delete("/v1/knowledge/a/connections/dependsOn/b")).status_code == 204
    assert (
        await agent.http.post("/v1/knowledge/a/connections", json={"type": "dependsOn", "targetId": "b"})
    ).status_code == 202
    async with desk_of(api, person) as (client, _):
        page = await client.get("/desk/inbox")
    assert page.status_code == 200
    assert "edge.connect" in page.text and "a dependsOn b" in page.text
    assert "/desk/notes/a" in page.text  # the correction links its edge's note


async def test_a_persons_undo_of_a_connect_is_their_removal(make_caller: MakeCaller) -> None:
    agent, person = await pair(make_caller, "a", "b")
    body = {"type": "relatedTo", "targetId": "b"}
    assert (await agent.http.post("/v1/knowledge/a/connections", json=body)).status_code == 201
    [made] = (await person.http.get("/v1/mutations", params={"targetId": "a relatedTo b"})).json()["items"]
    undone = await person.http.post(f"/v1/mutations/{made['id']}/undo")
    assert undone.status_code == 200, undone.text
    assert (await agent.http.post("/v1/knowledge/a/connections", json=body)).status_code == 202
    # Undoing that undo is the person's connect: the edge is theirs, the correction retired.
    redone = await person.http.post(f"/v1/mutations/{undone.json()['mutation']['id']}/undo")
    assert redone.status_code == 200, redone.text
    [correction] = (await person.http.get("/v1/corrections", params={"targetId": "a relatedTo b"})).json()[
        "items"
    ]
    assert correction["status"] == "retired"
    assert (await agent.http.delete("/v1/knowledge/a/connections/relatedTo/b")).status_code == 202


async def test_an_agent_does_not_take_a_persons_edge_away_with_a_note(make_caller: MakeCaller) -> None:
    agent, person = await pair(make_caller, "a", "b")
    made = await agent.http.post(
        "/v1/knowledge",
        json={"id": "c", "title": "C", "content": "Fact c holds.", "type": "fact", "dedupe": False},
    )
    assert made.status_code == 201
    assert (
        await person.http.post("/v1/knowledge/c/connections", json={"type": "dependsOn", "targetId": "a"})
    ).status_code == 201
    deleted = await agent.http.delete("/v1/knowledge/c")
    assert deleted.status_code == 202 and "edge" in deleted.json()["proposal"]["fields"], deleted.text
    [create] = (await person.http.get("/v1/mutations", params={"targetId": "c", "limit": 50})).json()[
        "items"
    ][-1:]
    assert create["op"] == "note.create"
    undone = await agent.http.post(f"/v1/mutations/{create['id']}/undo")
    assert undone.status_code == 202 and "edge" in undone.json()["proposal"]["fields"], undone.text
    assert await edges(person, "c") == [("c", "dependsOn", "a")]


#: A vendor changed beside a price: which is current is unclear (the two conflict).
CHAIRS = (
    "For the Berlin office, the facilities team orders the ergonomic office chairs, the standing desks and "
    "the monitor arms from {} at {} euros per workstation, delivered within two weeks."
)
#: (the old value, the new, the edge the new one's create makes, the fields the re-create holds:
#: a person's removal of a supersedes edge also made its note active, their word on its status)
UPDATES = [
    (OLD, NEW, "supersedes", ["edge", "status"]),
    (CHAIRS.format("Acme", 120), CHAIRS.format("Initech", 95), "conflictsWith", ["edge"]),
]  # fmt: skip


@pytest.mark.parametrize(("before", "after", "kind", "held"), UPDATES, ids=["supersedes", "conflictsWith"])
async def test_an_update_does_not_make_again_an_edge_a_person_removed(
    make_caller: MakeCaller, before: str, after: str, kind: str, held: list[str]
) -> None:
    """Review: an agent's re-create of a near-twin that changes a value (its edge made in the
    create) is the re-creation of an edge a person removed: a proposal."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    new = {"id": "x", "title": "Fact", "content": after, "type": "fact"}
    old = {"id": "t", "title": "Fact", "content": before, "type": "fact"}
    assert (await agent.http.post("/v1/knowledge", json=old)).status_code == 201
    made = await agent.http.post("/v1/knowledge", json=new)
    assert made.status_code == 201 and made.json()[kind] == "t", made.text
    gone = await person.http.delete(
        f"/v1/knowledge/x/connections/{kind}/t", headers={"X-Change-Reason": "both values hold"}
    )
    assert gone.status_code == 204 and await status_of(person, "t") == "active"
    [correction] = (await person.http.get("/v1/corrections", params={"targetId": f"x {kind} t"})).json()[
        "items"
    ]
    assert (await agent.http.delete("/v1/knowledge/x")).status_code == 204  # its own note
    again = await agent.http.post("/v1/knowledge", json=new)
    assert again.status_code == 202, again.text
    proposal = again.json()["proposal"]
    assert (proposal["op"], proposal["fields"]) == ("note.create", held)
    assert correction["id"] in proposal["correctionIds"]
    assert await status_of(person, "t") == "active"
    assert await edges(person, "t") == []
    assert (await person.http.get("/v1/knowledge/x")).status_code == 404
    # A person's approval writes it all: the note, its edge, the status the edge flips.
    assert (await person.http.post(f"/v1/proposals/{proposal['id']}/approve")).status_code == 200
    assert await edges(person, "t") == [("x", kind, "t")]
    assert await status_of(person, "t") == ("superseded" if kind == "supersedes" else "active")


async def removal(caller: Caller, key: str) -> dict[str, Any]:
    """The newest mutation of an edge, which the test has just removed."""
    [entry] = (await caller.http.get("/v1/mutations", params={"targetId": key, "limit": 1})).json()["items"]
    assert entry["op"] == "edge.disconnect", entry
    return dict(entry)


async def test_an_undone_removal_brings_the_edge_back_as_it_was(make_caller: MakeCaller) -> None:
    """Review: a removal journals the edge's maker and a person's word on it, and its undo
    brings the edge back as theirs, not as the undoer's."""
    agent, person = await pair(make_caller, "a", "b", "c")
    bot = await make_caller(Role.AGENT, agent_id="bot", user_id=agent.user_id)
    # A person's edge, removed by them and brought back by their undo: theirs again.
    body = {"type": "dependsOn", "targetId": "b"}
    assert (await person.http.post("/v1/knowledge/a/connections", json=body)).status_code == 201
    assert (await person.http.delete("/v1/knowledge/a/connections/dependsOn/b")).status_code == 204
    entry = await removal(person, "a dependsOn b")
    assert entry["before"]["createdByRole"] == "human"
    assert (await person.http.post(f"/v1/mutations/{entry['id']}/undo")).status_code == 200
    assert (await agent.http.delete("/v1/knowledge/a/connections/dependsOn/b")).status_code == 202
    # An agent's edge a person confirmed: the removal keeps both, the undo restores both.
    body = {"type": "relatedTo", "targetId": "c"}
    assert (await agent.http.post("/v1/knowledge/a/connections", json=body)).status_code == 201
    assert (await person.http.post("/v1/knowledge/a/connections", json=body)).status_code == 200
    assert (await person.http.delete("/v1/knowledge/a/connections/relatedTo/c")).status_code == 204
    entry = await removal(person, "a relatedTo c")
    kept = {k: entry["before"].get(k) for k in ("createdByRole", "createdByAgent", "confirmedByPerson")}
    assert kept == {"createdByRole": "agent", "createdByAgent": "scribe", "confirmedByPerson": True}
    assert (await person.http.post(f"/v1/mutations/{entry['id']}/undo")).status_code == 200
    assert (await agent.http.delete("/v1/knowledge/a/connections/relatedTo/c")).status_code == 202
    assert (await person.http.delete("/v1/knowledge/a/connections/relatedTo/c")).status_code == 204
    again = await removal(person, "a relatedTo c")
    assert {k: again["before"].get(k) for k in kept} == kept  # the agent's still, not the person's
    # One agent's removal undone by another: the edge is still the first agent's.
    body = {"type": "relatedTo", "targetId": "b"}
    assert (await agent.http.post("/v1/knowledge/a/connections", json=body)).status_code == 201
    assert (await agent.http.delete("/v1/knowledge/a/connections/relatedTo/b")).status_code == 204
    entry = await removal(agent, "a relatedTo b")
    assert (await bot.http.post(f"/v1/mutations/{entry['id']}/undo")).status_code == 200
    assert (await bot.http.delete("/v1/knowledge/a/connections/relatedTo/b")).status_code == 204
    assert (await removal(agent, "a relatedTo b"))["before"]["createdByAgent"] == "scribe"
