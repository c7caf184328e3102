"""Who may replace whom, end to end over HTTP: an agent's update of another agent's note (of
the same user) is applied and undoable; an agent's update of a note a person wrote,
confirmed or corrected waits for the person, whatever its wording; a person's update is
applied; two agents updating one note at once leave one current version; and another user's
texts never touch this user's notes.

Each pair below is one that :func:`graph.knowledge.subjects.relate` calls an update (checked
first, in :func:`test_each_pair_is_an_update_by_rule`); the cosines are those of the default
embedder (bge-small, dedupe threshold 0.92) between title and content as the notes are written.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from graph.core.principals import Role
from graph.knowledge.subjects import Relation, relate
from tests.integration.conftest import Caller, MakeCaller
from tests.support.servers import ApiProcess


@dataclass(frozen=True)
class Pair:
    """An old value and its update, in other words, under one title."""

    name: str
    title: str
    old: str
    new: str


PAIRS = [
    # Below the dedupe threshold: only the subject rule tells these from siblings.
    Pair("standup", "Dana's standup", "Dana's standup is at 9:30 every weekday.",
         "Dana moved her daily standup to 10:15."),  # cosine 0.836
    Pair("manager", "Lena's manager", "Lena reports to Tomas.", "Lena's new manager is Ingrid."),  # 0.796
    Pair("review", "Design review", "The design review is held in room 4B.",
         "The design review moved to room 6A."),  # 0.851
    Pair("lunch", "Team lunch", "The team lunch is on Thursdays.",
         "The team lunch moved to Fridays."),  # 0.857
    Pair("wifi", "Wi-Fi password", "The guest Wi-Fi password is sunflower42.",
         "The guest Wi-Fi password was changed to maple77."),  # 0.831
    Pair("owner", "Billing service owner", "The billing service is owned by the payments team.",
         "The billing service is now owned by the platform team."),  # 0.901
    Pair("office", "Marco's office", "Marco works from the Lisbon office.",
         "Marco now works from the Porto office."),  # 0.916
    # A near twin (0.954): an update dedupe would have folded in before the update rule.
    Pair("port", "Staging database port", "The staging database listens on port 5432.",
         "The staging database listens on port 6432."),
]  # fmt: skip
IDS = [p.name for p in PAIRS]
#: A third value of the standup, an update of both others (cosines 0.900 and 0.865).
STANDUP_LATER = "Dana's daily standup now starts at 10:45."


def body(pair: Pair, which: str, note_id: str) -> dict[str, Any]:
    content = pair.old if which == "old" else pair.new if which == "new" else which
    return {"id": note_id, "title": pair.title, "content": content, "type": "fact"}


async def get(caller: Caller, note_id: str) -> dict[str, Any]:
    got = await caller.http.get(f"/v1/knowledge/{note_id}")
    assert got.status_code == 200, got.text
    return dict(got.json())


async def absent(caller: Caller, note_id: str) -> bool:
    return (await caller.http.get(f"/v1/knowledge/{note_id}")).status_code == 404


async def edges(caller: Caller) -> set[tuple[str, str, str]]:
    got = await caller.http.get("/v1/connections", params={"limit": 500})
    assert got.status_code == 200, got.text
    return {(e["sourceId"], e["type"], e["targetId"]) for e in got.json()["items"]}


async def journal(caller: Caller) -> list[dict[str, Any]]:
    """The user's whole journal, newest first."""
    got = await caller.http.get("/v1/mutations", params={"limit": 500})
    assert got.status_code == 200, got.text
    return list(got.json()["items"])


def one(entries: list[dict[str, Any]], op: str, target: str) -> dict[str, Any]:
    [found] = [m for m in entries if m["op"] == op and m["targetId"] == target]
    return found


def author(thing: dict[str, Any]) -> tuple[str, str | None]:
    """Who made a journal entry (its actor) or a note (its creator): role and agent id."""
    if "writtenBy" in thing:
        return thing["writtenBy"]["createdByRole"], thing["writtenBy"].get("createdByAgent")
    return thing["actor"]["role"], thing["actor"].get("agentId")


async def user(make_caller: MakeCaller) -> tuple[Caller, Caller, Caller]:
    """A fresh user's person, and two of its agents (``scribe`` and ``planner``)."""
    person = await make_caller()
    scribe = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    planner = await make_caller(Role.AGENT, agent_id="planner", user_id=person.user_id)
    return person, scribe, planner


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_each_pair_is_an_update_by_rule(pair: Pair) -> None:
    """The premise of every test below: the rule reads each pair as the same property of the
    same subject with a new value (as a near twin, too, for the one that is)."""
    relation, change = relate(pair.title, pair.old, pair.title, pair.new, twin=pair.name == "port")
    assert relation is Relation.UPDATE, (pair, relation)
    assert relate(pair.title, pair.old, pair.title, pair.new)[0] is Relation.UPDATE
    assert change is None or change.kinds


#: How the supersession is undone, cycled over the pairs: by whom, and which entry.
UNDOS = [("person", "edge.connect"), ("scribe", "note.create"), ("planner", "edge.connect"),
         ("person", "note.create")]  # fmt: skip


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
async def test_an_agents_update_of_another_agents_note_is_applied_and_undone(
    make_caller: MakeCaller, pair: Pair
) -> None:
    person, scribe, planner = await user(make_caller)
    assert (await scribe.http.post("/v1/knowledge", json=body(pair, "old", "old"))).status_code == 201
    made = await planner.http.post("/v1/knowledge", json=body(pair, "new", "new"))
    assert made.status_code == 201, made.text
    assert made.json().get("supersedes") == "old" and "mergedInto" not in made.json(), made.text
    assert author(made.json()["node"]) == ("agent", "planner")

    old = await get(person, "old")
    assert old["status"] == "superseded"
    assert author(old) == ("agent", "scribe") and old["writtenBy"]["personFields"] == []
    assert (await get(person, "new"))["status"] == "active"
    assert await edges(person) == {("new", "supersedes", "old")}

    # The journal: planner made the supersession (its edge, the status it flipped, the new
    # note, in one write); scribe stays the author of the old note.
    entries = await journal(person)
    edge = one(entries, "edge.connect", "new supersedes old")
    flipped = one(entries, "note.status", "old")
    created = one(entries, "note.create", "new")
    assert {author(m) for m in (edge, flipped, created)} == {("agent", "planner")}
    assert edge["seq"] == flipped["seq"] == created["seq"]
    assert (flipped["before"], flipped["after"]) == ({"status": "active"}, {"status": "superseded"})
    assert author(one(entries, "note.create", "old")) == ("agent", "scribe")
    assert len(entries) == 4

    # Undo gives the old note its place back and takes the edge away, journaled as the undoer's.
    by, op = UNDOS[IDS.index(pair.name) % len(UNDOS)]
    undoer = {"person": person, "scribe": scribe, "planner": planner}[by]
    target = "new supersedes old" if op == "edge.connect" else "new"
    undone = await undoer.http.post(f"/v1/mutations/{one(entries, op, target)['id']}/undo")
    assert undone.status_code == 200, undone.text
    assert (await get(person, "old"))["status"] == "active"
    assert await edges(person) == set()
    if op == "note.create":
        assert await absent(person, "new")
    else:
        assert (await get(person, "new"))["status"] == "active"
    after = await journal(person)
    undo = next(m for m in after if m.get("undoes") == one(entries, op, target)["id"])
    assert author(undo) == (("human", None) if by == "person" else ("agent", by))
    restored = one(after[: len(after) - len(entries)], "note.status", "old")
    assert restored["after"] == {"status": "active"} and author(restored) == author(undo)
    assert author(await get(person, "old")) == ("agent", "scribe")
    if by != "person":
        return
    # A person's undo is their word: the supersession they took back is not made again by an
    # agent alone (the edge, connected again; the note, written again under another id).
    if op == "edge.connect":
        again = await planner.http.post(
            "/v1/knowledge/new/connections", json={"type": "supersedes", "targetId": "old"}
        )
    else:
        again = await planner.http.post("/v1/knowledge", json=body(pair, "new", "new-again"))
    assert again.status_code == 202, again.text
    assert (await get(person, "old"))["status"] == "active" and await edges(person) == set()


async def _persons_word(how: str, pair: Pair, person: Caller, scribe: Caller) -> None:
    """The old note as ``how`` makes it the person's: they wrote it, confirmed an agent's
    (a PATCH that restates its content), or corrected an agent's (its title fixed)."""
    if how == "wrote":
        assert (await person.http.post("/v1/knowledge", json=body(pair, "old", "old"))).status_code == 201
        return
    loose = body(pair, "old", "old") | ({"title": "Note"} if how == "corrected" else {})
    assert (await scribe.http.post("/v1/knowledge", json=loose)).status_code == 201
    patch = {"content": pair.old} if how == "confirmed" else {"title": pair.title}
    fixed = await person.http.patch("/v1/knowledge/old", json=patch, headers={"X-Change-Reason": "checked"})
    assert fixed.status_code == 200, fixed.text
    fields = set(fixed.json()["writtenBy"]["personFields"])
    assert fields == ({"content"} if how == "confirmed" else {"title"}), fixed.text
    if how == "corrected":
        [correction] = (await person.http.get("/v1/corrections", params={"targetId": "old"})).json()["items"]
        assert correction["fields"] == ["title"]


@pytest.mark.parametrize("how", ["wrote", "confirmed", "corrected"])
@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
async def test_an_agents_update_of_a_persons_word_waits_for_the_person(
    make_caller: MakeCaller, pair: Pair, how: str
) -> None:
    person, scribe, planner = await user(make_caller)
    await _persons_word(how, pair, person, scribe)
    before_notes, before_journal = await get(person, "old"), await journal(person)

    held = await planner.http.post("/v1/knowledge", json=body(pair, "new", "new"))
    assert held.status_code == 202, held.text
    proposal = held.json()["proposal"]
    assert proposal["status"] == "pending" and proposal["op"] == "note.create"
    assert proposal["payload"].get("supersedes") == "old", proposal
    assert "status" in proposal["fields"] and author({"actor": proposal["proposedBy"]}) == (
        "agent",
        "planner",
    )
    # Nothing changed but the proposal itself.
    assert await get(person, "old") == before_notes
    assert await absent(person, "new") and await edges(person) == set()
    [added] = (await journal(person))[: -len(before_journal)]
    assert added["op"] == "proposal.create" and author(added) == ("agent", "planner")

    approve = (IDS.index(pair.name) + ["wrote", "confirmed", "corrected"].index(how)) % 2 == 0
    if approve:
        done = await person.http.post(f"/v1/proposals/{proposal['id']}/approve")
        assert done.status_code == 200, done.text
        assert (await get(person, "old"))["status"] == "superseded"
        assert await edges(person) == {("new", "supersedes", "old")}
        # Applied as the person's write, naming the proposal: the new note is the person's.
        edge = one(await journal(person), "edge.connect", "new supersedes old")
        assert author(edge) == ("human", None) and edge["proposalId"] == proposal["id"]
        assert author(await get(person, "new")) == ("human", None)
        return
    done = await person.http.post(f"/v1/proposals/{proposal['id']}/reject", json={"reason": "not so"})
    assert done.status_code == 200, done.text
    assert await get(person, "old") == before_notes and await absent(person, "new")
    # A person decides once: the same update again, by either agent, under any id, is refused.
    for agent, note_id in ((planner, "new"), (scribe, "new-again")):
        again = await agent.http.post("/v1/knowledge", json=body(pair, "new", note_id))
        assert again.status_code == 409, again.text
        assert proposal["id"] in again.text
    assert await get(person, "old") == before_notes and await edges(person) == set()
    pending = await person.http.get("/v1/proposals", params={"status": "pending"})
    assert pending.json()["items"] == []


async def test_an_update_the_person_approved_is_theirs_and_holds_the_next(make_caller: MakeCaller) -> None:
    """Approving is a person's word too: an agent's next update of the approved note waits."""
    pair = PAIRS[0]
    person, scribe, planner = await user(make_caller)
    assert (await person.http.post("/v1/knowledge", json=body(pair, "old", "old"))).status_code == 201
    held = await planner.http.post("/v1/knowledge", json=body(pair, "new", "new"))
    assert held.status_code == 202, held.text
    approved = await person.http.post(f"/v1/proposals/{held.json()['proposal']['id']}/approve")
    assert approved.status_code == 200, approved.text
    later = await scribe.http.post("/v1/knowledge", json=body(pair, STANDUP_LATER, "later"))
    assert later.status_code == 202, later.text
    assert later.json()["proposal"]["payload"].get("supersedes") == "new"
    assert (await get(person, "new"))["status"] == "active" and await absent(person, "later")


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
async def test_a_persons_update_of_an_agents_note_is_applied(make_caller: MakeCaller, pair: Pair) -> None:
    person, scribe, _ = await user(make_caller)
    assert (await scribe.http.post("/v1/knowledge", json=body(pair, "old", "old"))).status_code == 201
    made = await person.http.post("/v1/knowledge", json=body(pair, "new", "new"))
    assert made.status_code == 201 and made.json().get("supersedes") == "old", made.text
    assert (await get(person, "old"))["status"] == "superseded"
    entries = await journal(person)
    assert author(one(entries, "edge.connect", "new supersedes old")) == ("human", None)
    assert author(one(entries, "note.create", "old")) == ("agent", "scribe")


@pytest.mark.parametrize("shape", ["two values", "one value"])
async def test_two_agents_updating_one_note_at_once(
    make_caller: MakeCaller, peer_api: ApiProcess, shape: str
) -> None:
    """Two agents of one user post an update of the same note at the same moment, through two
    API processes. The write gate runs one after the other, so the second sees the first:
    the first supersedes the old note, and the second supersedes the first (two new values:
    a chain) or folds into it (the same value); exactly one note is current, each note is
    superseded by at most one edge, each edge is journaled by the agent whose answer names
    it, in the write that made its note, and nothing else is written."""
    pair = PAIRS[0]
    news = [pair.new, STANDUP_LATER] if shape == "two values" else [pair.new, pair.new]
    for _round in range(3):  # the two orders, and more
        person, scribe, planner = await user(make_caller)
        assert (await person.http.post("/v1/knowledge", json=body(pair, "old", "old"))).status_code == 201
        # The person's note: both updates wait for them, side by side, nothing applied.
        racing = await asyncio.gather(
            scribe.http.post("/v1/knowledge", json=body(pair, news[0], "u-scribe")),
            planner.client(peer_api.base_url).post("/v1/knowledge", json=body(pair, news[1], "u-planner")),
        )
        assert [r.status_code for r in racing] == [202, 202], [r.text for r in racing]
        assert (await get(person, "old"))["status"] == "active" and await edges(person) == set()
        pending = (await person.http.get("/v1/proposals", params={"status": "pending"})).json()["items"]
        assert {(p["proposedBy"]["agentId"], p["payload"].get("supersedes")) for p in pending} == {
            ("scribe", "old"),
            ("planner", "old"),
        }

        _, first, second = await user(make_caller)  # agents scribe and planner of another user
        assert (await first.http.post("/v1/knowledge", json=body(pair, "old", "old"))).status_code == 201
        answers = await asyncio.gather(
            first.http.post("/v1/knowledge", json=body(pair, news[0], "u-first")),
            second.client(peer_api.base_url).post("/v1/knowledge", json=body(pair, news[1], "u-second")),
        )
        made = {("u-first", "u-second")[i]: a.json() for i, a in enumerate(answers)}
        codes = sorted(a.status_code for a in answers)
        by_edge = {k: v.get("supersedes") for k, v in made.items()}
        if shape == "one value":
            assert codes == [200, 201], [a.text for a in answers]
            [winner] = [k for k, v in made.items() if v.get("supersedes") == "old"]
            [folded] = [k for k in made if k != winner]
            assert made[folded]["mergedInto"] == winner and "supersedes" not in made[folded]
            chain, current = {(winner, "supersedes", "old")}, winner
        else:
            assert codes == [201, 201], [a.text for a in answers]
            [winner] = [k for k, v in by_edge.items() if v == "old"]
            [later] = [k for k in made if k != winner]
            assert by_edge[later] == winner, made
            chain, current = {(winner, "supersedes", "old"), (later, "supersedes", winner)}, later
        assert await edges(first) == chain
        notes = (await first.http.get("/v1/knowledge", params={"limit": 50})).json()["items"]
        active = [n["id"] for n in notes if n["status"] == "active"]
        assert active == [current] and len(notes) == len(chain) + 1
        targets = [t for _, _, t in chain]
        assert len(targets) == len(set(targets))  # no note superseded twice
        entries = await journal(first)
        for source, _, target in chain:
            edge = one(entries, "edge.connect", f"{source} supersedes {target}")
            assert author(edge) == ("agent", "scribe" if source == "u-first" else "planner")
            assert edge["seq"] == one(entries, "note.create", source)["seq"]
            assert one(entries, "note.status", target)["seq"] == edge["seq"]
        ops = sorted(m["op"] for m in entries)
        expected = ["note.create"] * (len(chain) + 1) + ["edge.connect", "note.status"] * len(chain)
        if shape == "one value":
            expected.append("note.merge")
        assert ops == sorted(expected), ops


async def test_another_users_same_texts_never_touch_this_users_notes(make_caller: MakeCaller) -> None:
    """The same ids and texts under another user: an update alone there finds nothing to
    update (this user's notes are no candidates), a pair there supersedes its own note, and
    this user's notes, a person's among them, are neither superseded nor proposed against."""
    person, scribe, _ = await user(make_caller)
    _, other_scribe, other_planner = await user(make_caller)
    for pair in PAIRS[:5]:
        writer = person if pair.name == "standup" else scribe
        assert (
            await writer.http.post("/v1/knowledge", json=body(pair, "old", "old-" + pair.name))
        ).status_code == 201
    notes_before = (await person.http.get("/v1/knowledge", params={"limit": 50})).json()["items"]
    journal_before = await journal(person)

    for pair in PAIRS[:3]:  # the update alone
        made = await other_planner.http.post("/v1/knowledge", json=body(pair, "new", "new-" + pair.name))
        assert made.status_code == 201, made.text
        assert "supersedes" not in made.json() and "conflictsWith" not in made.json(), made.text
    for pair in PAIRS[3:5]:  # both, by two agents of the other user
        assert (
            await other_scribe.http.post("/v1/knowledge", json=body(pair, "old", "old-" + pair.name))
        ).status_code == 201
        made = await other_planner.http.post("/v1/knowledge", json=body(pair, "new", "new-" + pair.name))
        assert made.status_code == 201 and made.json().get("supersedes") == "old-" + pair.name, made.text

    assert (await person.http.get("/v1/knowledge", params={"limit": 50})).json()["items"] == notes_before
    assert await journal(person) == journal_before and await edges(person) == set()
    assert (await person.http.get("/v1/proposals")).json()["items"] == []
    assert len(await edges(other_planner)) == 2
