"""An update is never swallowed by dedupe: a near-twin that changes a value becomes a new
note that supersedes the old one (or conflicts with it), on every create path, while a
restatement still folds in."""

from __future__ import annotations

import asyncio
from typing import Any

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller

#: Cosine 0.96 with the default embedder (dedupe threshold 0.92): before updates were told
#: from restatements, the second folded into the first and 6432 was found only in its merges.
OLD = "The staging database listens on port 5432."
NEW = "The staging database listens on port 6432."


def port(number: int) -> str:
    return f"The staging database now listens on port {number}."


#: A near twin (cosine 0.93) whose vendor and price both changed: which is current is unclear.
CHAIRS = (
    "For the Berlin office, the facilities team orders the ergonomic office chairs, the standing desks and "
    "the monitor arms from {} at {} euros per workstation, delivered within two weeks."
)


def note(content: str, **extra: Any) -> dict[str, Any]:
    return {"title": "Fact", "content": content, "type": "fact", **extra}


async def get(caller: Caller, node_id: str) -> dict[str, Any]:
    got = await caller.http.get(f"/v1/knowledge/{node_id}")
    assert got.status_code == 200, got.text
    return dict(got.json())


async def edges(caller: Caller, node_id: str) -> list[tuple[str, str, str]]:
    got = await caller.http.get(f"/v1/knowledge/{node_id}/connections")
    assert got.status_code == 200, got.text
    return sorted((e["sourceId"], e["type"], e["targetId"]) for e in got.json()["items"])


async def test_a_new_value_supersedes_the_old_note_instead_of_folding_into_it(
    make_caller: MakeCaller,
) -> None:
    alice = await make_caller(Role.AGENT, agent_id="scribe")
    first = await alice.http.post("/v1/knowledge", json=note(OLD, id="port", tags=["db"]))
    assert first.status_code == 201, first.text

    second = await alice.http.post("/v1/knowledge", json=note(NEW, id="port-new", tags=["staging"]))
    assert second.status_code == 201, second.text  # created, not merged
    assert "mergedInto" not in second.json() and second.json()["supersedes"] == "port"
    assert second.json()["node"]["id"] == "port-new"
    assert second.json()["node"]["content"] == NEW
    assert second.json()["node"]["tags"] == ["staging"]
    old = await get(alice, "port")
    assert (old["content"], old["status"], old["mergeCount"], old["tags"]) == (OLD, "superseded", 0, ["db"])
    assert await edges(alice, "port-new") == [("port-new", "supersedes", "port")]

    # Search serves the current value; the old one is still there, superseded, when asked for.
    found = await alice.http.post("/v1/search", json={"query": "staging database port", "topK": 3})
    assert [h["node"]["id"] for h in found.json()["hits"]] == ["port-new"]
    listed = await alice.http.get("/v1/knowledge", params={"status": "superseded"})
    assert [n["id"] for n in listed.json()["items"]] == ["port"]

    # Undo of the update takes the new note away and gives the old one its place back.
    journal = (await alice.http.get("/v1/mutations", params={"targetId": "port-new"})).json()["items"]
    [mutation] = [m for m in journal if m["op"] == "note.create"]
    undone = await alice.http.post(f"/v1/mutations/{mutation['id']}/undo")
    assert undone.status_code == 200, undone.text
    assert (await get(alice, "port"))["status"] == "active"

    again = await alice.http.post("/v1/knowledge", json=note(NEW, id="port-again"))
    assert again.status_code == 201, again.text

    # A restatement of the current value still folds into it.
    restated = await alice.http.post("/v1/knowledge", json=note(NEW.replace(".", "!")))
    assert restated.status_code == 200, restated.text
    assert restated.json()["mergedInto"] == "port-again"


async def test_which_is_current_unclear_the_two_conflict_and_both_stay(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    # A vendor and a price both changed: a second vendor at another price, or a new one? The
    # service cannot tell, so both stay, each pointing at the other.
    old, new = CHAIRS.format("Acme", 120), CHAIRS.format("Initech", 95)  # cosine 0.93
    assert (await alice.http.post("/v1/knowledge", json=note(old, id="acme"))).status_code == 201
    made = await alice.http.post("/v1/knowledge", json=note(new, id="globex"))
    assert made.status_code == 201, made.text
    assert made.json()["conflictsWith"] == "acme" and "supersedes" not in made.json()
    assert (await get(alice, "acme"))["status"] == "active"
    assert (await get(alice, "globex"))["status"] == "active"
    assert await edges(alice, "globex") == [("globex", "conflictsWith", "acme")]


async def test_siblings_stay_current_beside_each_other(make_caller: MakeCaller) -> None:
    """Another replica, invoice or quarter is another subject, not a new value (they are near
    twins: cosine 0.9 and more)."""
    alice = await make_caller()
    families = {
        "replica": [f"Replica {n} of the orders database lives in rack {10 + n}." for n in (1, 2, 3)],
        "invoice": ["Invoice 2210 was paid on March 3.", "Invoice 2211 was paid on March 5."],
        "budget": [
            f"Budget {q}: the marketing budget for the launch in Germany is {a} euros for the quarter."
            for q, a in (("Q3", "50,000"), ("Q4", "80,000"))
        ],
    }
    for family, contents in families.items():
        for n, content in enumerate(contents):
            made = await alice.http.post("/v1/knowledge", json=note(content, id=f"{family}-{n}"))
            assert made.status_code == 201, made.text
            assert "supersedes" not in made.json() and "conflictsWith" not in made.json(), made.text
    for family, contents in families.items():
        for n in range(len(contents)):
            assert (await get(alice, f"{family}-{n}"))["status"] == "active"


async def test_an_update_in_other_words_supersedes_the_old_value(make_caller: MakeCaller) -> None:
    """Below the dedupe threshold, a note about the same subject that changes its value
    supersedes it: the old value is no longer current."""
    alice = await make_caller()
    pairs = [
        ("Dana's standup is at 9:30 every weekday.", "Dana moved her daily standup to 10:15."),
        ("Priya's phone number is 555-0142.", "Priya has a new number: 555-0199."),
        ("The user drives a 2015 Honda Civic.", "The user sold the Civic and now drives a Tesla Model 3."),
    ]
    for n, (old, new) in enumerate(pairs):
        assert (await alice.http.post("/v1/knowledge", json=note(old, id=f"old-{n}"))).status_code == 201
        made = await alice.http.post("/v1/knowledge", json=note(new, id=f"new-{n}"))
        assert made.status_code == 201, made.text
        assert made.json().get("supersedes") == f"old-{n}", made.text
        assert (await get(alice, f"old-{n}"))["status"] == "superseded"


async def test_a_batch_keeps_each_value_and_links_the_later_to_the_earlier(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    items = [note(OLD, id="b1"), note(NEW, id="b2"), note(OLD, id="b3")]
    made = await alice.http.post("/v1/knowledge/batch", json={"items": items})
    assert made.status_code == 201, made.text
    outcomes = [(r["id"], r["outcome"], r.get("mergedInto")) for r in made.json()["results"]]
    # b3 restates b1 word for word: it folds into b1 (which b2 superseded), as before.
    assert outcomes[:2] == [("b1", "created", None), ("b2", "created", None)]
    assert made.json()["results"][1]["supersedes"] == "b1"
    assert (await get(alice, "b2"))["content"] == NEW
    assert ("b2", "supersedes", "b1") in await edges(alice, "b2")


async def test_an_agents_new_value_over_a_persons_note_waits_for_the_person(make_caller: MakeCaller) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    assert (await person.http.post("/v1/knowledge", json=note(OLD, id="port"))).status_code == 201

    held = await agent.http.post("/v1/knowledge", json=note(NEW, id="port-new"))
    assert held.status_code == 202, held.text
    proposal = held.json()["proposal"]
    assert (await get(person, "port"))["status"] == "active"
    assert (await person.http.get("/v1/knowledge/port-new")).status_code == 404

    approved = await person.http.post(f"/v1/proposals/{proposal['id']}/approve")
    assert approved.status_code == 200, approved.text
    assert (await get(person, "port"))["status"] == "superseded"
    assert (await get(person, "port-new"))["content"] == NEW


async def test_concurrent_new_values_are_all_kept_and_one_is_current(make_caller: MakeCaller) -> None:
    alice = await make_caller(Role.AGENT, agent_id="first")
    agents = [await make_caller(Role.AGENT, agent_id=f"a{i}", user_id=alice.user_id) for i in range(4)]
    assert (await alice.http.post("/v1/knowledge", json=note(OLD, id="port", dedupe=True))).status_code == 201
    ports = [6432, 7432, 8432, 9432]
    answers = await asyncio.gather(
        *(
            a.http.post("/v1/knowledge", json=note(port(number), id=f"p{number}"))
            for a, number in zip(agents, ports, strict=True)
        )
    )
    assert [a.status_code for a in answers] == [201] * 4, [a.text for a in answers]
    notes = (await alice.http.get("/v1/knowledge", params={"limit": 50})).json()["items"]
    contents = {n["content"] for n in notes}
    assert contents == {OLD} | {port(number) for number in ports}
    assert sum(n["mergeCount"] for n in notes) == 0  # nothing folded
    active = [n for n in notes if n["status"] == "active"]
    assert len(active) == 1  # each write superseded the one current when it ran


async def test_a_new_value_of_a_fact_a_person_deleted_waits_for_the_person(make_caller: MakeCaller) -> None:
    # What a person took away may be the subject itself, not one value of it: a near-twin of
    # deleted text is held for them whether it restates it or changes a value.
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    person = await make_caller(Role.HUMAN, user_id=agent.user_id)
    assert (await agent.http.post("/v1/knowledge", json=note(OLD, id="port"))).status_code == 201
    assert (await person.http.delete("/v1/knowledge/port")).status_code in (200, 204)

    held = await agent.http.post("/v1/knowledge", json=note(NEW, id="port-new"))
    assert held.status_code == 202, held.text
    assert (await person.http.get("/v1/knowledge/port-new")).status_code == 404
