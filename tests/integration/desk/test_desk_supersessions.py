"""The desk's timeline shows a supersession a create made as a supersession: both notes
linked, who wrote the old one and who superseded it (a person approving an agent's proposal
named as such), the undo of it too, with what agents wrote escaped."""

from __future__ import annotations

import re
from typing import Any

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.support.desk import desk_client
from tests.support.servers import ApiProcess

#: Markup in a title an agent wrote: the desk shows it as text (the titles keep the pairs
#: updates: ``relate`` reads them as the same subject).
HOSTILE = "Dana's standup <script>alert(1)</script>"
DANA = ("Dana's standup is at 9:30 every weekday.", "Dana moved her daily standup to 10:15.")
REVIEW = ("The design review is held in room 4B.", "The design review moved to room 6A.")
CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')


def note(note_id: str, title: str, content: str) -> dict[str, Any]:
    return {"id": note_id, "title": title, "content": content, "type": "fact"}


async def entry(caller: Caller, op: str, target: str) -> dict[str, Any]:
    """The newest journal entry of ``op`` on ``target``."""
    got = await caller.http.get("/v1/mutations", params={"limit": 100})
    assert got.status_code == 200, got.text
    found = [m for m in got.json()["items"] if m["op"] == op and m["targetId"] == target]
    assert found, (op, target, got.json()["items"])
    return dict(found[0])


def card(html: str, mutation_id: str) -> str:
    """One entry of the timeline, as the page shows it."""
    match = re.search(rf'<li class="card" id="m-{mutation_id}".*?</li>', html, re.DOTALL)
    assert match is not None, (mutation_id, html[-3000:])
    return " ".join(match.group(0).split())


async def test_the_timeline_shows_a_supersession_with_both_authors(
    api: ApiProcess, make_caller: MakeCaller
) -> None:
    person = await make_caller()
    scribe = await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)
    planner = await make_caller(Role.AGENT, agent_id="planner", user_id=person.user_id)
    assert (await scribe.http.post("/v1/knowledge", json=note("old", HOSTILE, DANA[0]))).status_code == 201
    made = await planner.http.post("/v1/knowledge", json=note("new", HOSTILE, DANA[1]))
    assert made.status_code == 201 and made.json().get("supersedes") == "old", made.text
    # A person's note, an agent's update of it held for them, and their approval.
    title = "Design review"
    assert (await person.http.post("/v1/knowledge", json=note("p-old", title, REVIEW[0]))).status_code == 201
    held = await planner.http.post("/v1/knowledge", json=note("p-new", title, REVIEW[1]))
    assert held.status_code == 202, held.text
    approved = await person.http.post(f"/v1/proposals/{held.json()['proposal']['id']}/approve")
    assert approved.status_code == 200, approved.text

    edge = await entry(person, "edge.connect", "new supersedes old")
    status = await entry(person, "note.status", "old")
    approved_edge = await entry(person, "edge.connect", "p-new supersedes p-old")
    async with desk_client(api.base_url, person.key) as desk:
        page = await desk.get("/desk/timeline")
        assert page.status_code == 200, page.text[:500]
        shown = card(page.text, edge["id"])
        assert "<strong>Supersession</strong>" in shown, shown
        assert 'href="/desk/notes/new"' in shown and 'href="/desk/notes/old"' in shown, shown
        # Who wrote each note, and who superseded the old one.
        assert re.search(
            r'/desk/notes/new".*?written by agent <strong>planner</strong>.*? supersedes ', shown
        )
        old_part = shown.split('href="/desk/notes/old"', 1)[1]
        assert "written by agent <strong>scribe</strong>" in old_part, shown
        assert "superseded by agent <strong>planner</strong>." in old_part, shown
        # What agents wrote is text, never markup.
        assert "<script>alert(1)</script>" not in page.text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
        # The old note's own entry of the same write says what superseded it.
        assert 'Superseded by <a href="/desk/notes/new"' in card(page.text, status["id"])
        # The approval: a person superseded the person's note, approving what an agent proposed.
        approval = card(page.text, approved_edge["id"])
        assert "<strong>Supersession</strong>" in approval
        assert "written by a person" in approval.split('href="/desk/notes/p-old"', 1)[1], approval
        assert "superseded by a person, approving what agent <strong>planner</strong> proposed." in approval

        # The agent's view shows its supersession; another agent's view does not show it.
        assert edge["id"] in (await desk.get("/desk/timeline", params={"agent": "planner"})).text
        assert edge["id"] not in (await desk.get("/desk/timeline", params={"agent": "scribe"})).text

        # Undo from the timeline (with this session's CSRF token): the old note is current again,
        # and the undo shows as a supersession undone, by a person.
        token = CSRF.search(page.text)
        assert token is not None
        undone = await desk.post(f"/desk/mutations/{edge['id']}/undo", data={"csrf": token.group(1)})
        assert undone.status_code == 200 and "Undone" in undone.text, undone.text
        refused = await desk.post(f"/desk/mutations/{status['id']}/undo", data={"csrf": "0" * 64})
        assert refused.status_code == 403
    old = await person.http.get("/v1/knowledge/old")
    assert old.json()["status"] == "active", old.text
    removal = await entry(person, "edge.disconnect", "new supersedes old")
    assert removal["undoes"] == edge["id"]
    async with desk_client(api.base_url, person.key) as desk:
        shown = card((await desk.get("/desk/timeline")).text, removal["id"])
        assert "<strong>Supersession undone</strong>" in shown, shown
        assert "no longer supersedes" in shown and "undone by a person." in shown, shown
