"""The forget's rules on the shapes the review found them broken on (issue 46; review
findings N4 and N6): notes that supersede one another, criteria that bound the traces too,
a ``limit`` that counts them, text in a decision's fields, an edge's note and an
invalidation's reason, and history kept while its thing still holds the text."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller


async def ok(answer: Any, *codes: int) -> dict[str, Any]:
    assert answer.status_code in (codes or (200, 201)), (answer.request.url, answer.status_code, answer.text)
    return answer.json() if answer.content else {}


async def forget(person: Caller, match: dict[str, Any], **run: Any) -> dict[str, Any]:
    return await ok(await person.http.post("/v1/forget", json={"match": match, **run}))


async def note(caller: Caller, body: dict[str, Any]) -> str:
    """Create a note; its id."""
    made = await ok(await caller.http.post("/v1/knowledge", json=body))
    return str(made["node"]["id"])


async def entries(person: Caller, target: str) -> list[dict[str, Any]]:
    return (await ok(await person.http.get("/v1/mutations", params={"targetId": target, "limit": 100})))[
        "items"
    ]


async def test_notes_that_supersede_one_another_are_forgotten_by_every_criterion(
    make_caller: MakeCaller,
) -> None:
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="helper", user_id=person.user_id)
    for criterion in ("tags", "ids", "query"):
        word = f"vault{uuid.uuid4().hex[:6]}"
        ids = []
        for n in range(3):  # one hint, a new number each time: each later one supersedes the one before
            said = f"The {word} passphrase hint is number {n}."
            body = {"title": f"The {word} passphrase hint", "content": said, "type": "fact", "tags": [word]}
            ids.append(await note(agent, body))
        statuses = [(await ok(await person.http.get(f"/v1/knowledge/{i}")))["status"] for i in ids]
        assert statuses.count("superseded") >= 1, statuses  # the shape the review found: a chain
        match = (
            {"tags": [word]}
            if criterion == "tags"
            else {"ids": ids}
            if criterion == "ids"
            else {"query": word}
        )
        done = await forget(person, match, dryRun=False, limit=1_000)
        assert done["counts"]["notes"] == 3, (criterion, done)
        for note_id in ids:
            assert (await person.http.get(f"/v1/knowledge/{note_id}")).status_code == 404


async def test_before_and_after_bound_the_traces_and_a_persons_deletion_stays(
    make_caller: MakeCaller,
) -> None:
    """N4: a run whose match reaches nothing takes nothing, the person's correction included."""
    person = await make_caller()
    agent = await make_caller(Role.AGENT, agent_id="helper", user_id=person.user_id)
    fact = {
        "title": "Portal hint",
        "content": "The rv4 vendor portal password hint is blue heron.",
        "type": "fact",
    }
    made = await note(agent, fact)
    await ok(await person.http.delete(f"/v1/knowledge/{made}"), 204)
    assert (await agent.http.post("/v1/knowledge", json=fact)).status_code == 202  # held for the person
    long_ago = "2000-01-01T00:00:00Z"
    for query in ("portal", "e"):
        dry = await forget(person, {"query": query, "before": long_ago})
        assert dry["matched"] == 0 and not any(dry["counts"].values()), dry
        run = await forget(person, {"query": query, "before": long_ago}, dryRun=False, limit=1)
        assert run["matched"] == 0, run
    assert (await agent.http.post("/v1/knowledge", json=fact)).status_code == 202, "the deletion must stay"
    assert not any(e.get("scrubbed") for e in await entries(person, made))


async def test_limit_counts_the_traces_too(make_caller: MakeCaller) -> None:
    person = await make_caller()
    word = f"lim{uuid.uuid4().hex[:6]}"
    made = await note(person, {"title": word, "content": f"{word} one.", "type": "fact"})
    await ok(await person.http.patch(f"/v1/knowledge/{made}", json={"content": f"{word} two."}))
    dry = await forget(person, {"query": word})
    assert dry["counts"]["notes"] == 1 and dry["counts"]["journalEntries"] == 2, dry
    assert dry["matched"] == 3, dry
    refused = await person.http.post(
        "/v1/forget", json={"match": {"query": word}, "dryRun": False, "limit": 2}
    )
    assert refused.status_code == 409 and refused.json()["error"]["field"] == "limit", refused.text
    await forget(person, {"query": word}, dryRun=False, limit=3)


async def test_text_in_a_decision_an_edge_note_and_an_invalidation_is_forgotten(
    make_caller: MakeCaller,
) -> None:
    """N6: the text leaves every field that held it, and what stays keeps its history."""
    person = await make_caller()
    name = f"Quillfeather Kessler {uuid.uuid4().hex[:4]}"
    decision = {
        "title": "Move builds to the new runner", "context": f"Because {name} left, nobody runs the old one.",
        "decision": "We build on the new runner.", "consequences": ["Old jobs stop."],
    }  # fmt: skip
    adr = await ok(await person.http.post("/v1/decisions", json=decision))
    a = await note(person, {"title": "Runner A", "content": "Runner A builds.", "type": "fact"})
    b = await note(person, {"title": "Runner B", "content": "Runner B deploys.", "type": "fact"})
    edge = {"type": "dependsOn", "targetId": b, "note": f"{name} set both up."}
    await ok(await person.http.post(f"/v1/knowledge/{a}/connections", json=edge))
    old = await note(person, {"title": "Old CI", "content": "Jenkins runs CI.", "type": "fact"})
    await ok(
        await person.http.post(f"/v1/knowledge/{old}/invalidate", json={"reason": f"{name} replaced it."})
    )

    dry = await forget(person, {"query": name.upper()})
    assert dry["counts"]["notes"] == 2 and dry["counts"]["changedEdges"] == 1, dry
    await forget(person, {"query": name.upper()}, dryRun=False, limit=1_000)
    assert (await person.http.get(f"/v1/decisions/{adr['decision']['id']}")).status_code == 404
    assert (await person.http.get(f"/v1/knowledge/{old}")).status_code == 404
    links = await ok(await person.http.get(f"/v1/knowledge/{a}/connections"))
    assert name.lower() not in str(links).lower() and b in str(links), links  # the edge stays, its note gone
    for kept in (a, b):  # the notes the edge joins stay, with their own history
        assert (await person.http.get(f"/v1/knowledge/{kept}")).status_code == 200
        assert any(e["op"] == "note.create" and not e.get("scrubbed") for e in await entries(person, kept))


async def test_history_stays_while_its_thing_still_holds_the_text(make_caller: MakeCaller) -> None:
    """A trace within the window whose note is outside it and still holds the text is kept:
    no live text has its history taken."""
    person = await make_caller()
    word = f"zed{uuid.uuid4().hex[:6]}"
    made = await note(person, {"title": "Zed", "content": f"{word} one.", "type": "fact"})
    since = datetime.now(UTC).isoformat()
    await ok(await person.http.patch(f"/v1/knowledge/{made}", json={"content": f"{word} two."}))
    run = await forget(person, {"query": word, "after": since}, dryRun=False, limit=1_000)
    assert run["matched"] == 0, run  # the note was made before `after`; its change since holds the text
    assert (await person.http.get(f"/v1/knowledge/{made}")).status_code == 200
    assert not any(e.get("scrubbed") for e in await entries(person, made))


async def test_names_with_accented_and_non_latin_capitals_leave_the_journal(make_caller: MakeCaller) -> None:
    """N5: journal states hold text as written, and the match is caseless in any script."""
    person = await make_caller()
    for name, query in (("Émile Dubreuil", "émile dubreuil"), ("Øystein Иванов", "øYSTEIN иВАНОВ")):
        first = await note(person, {"title": "Pay", "content": f"{name} earns 91k per year.", "type": "fact"})
        between = datetime.now(UTC).isoformat()  # when the note still said it
        await ok(await person.http.patch(f"/v1/knowledge/{first}", json={"content": "Someone earns 91k."}))
        second = await note(
            person, {"title": "Home", "content": f"{name} lives at 12 Rue Haute.", "type": "fact"}
        )
        await ok(await person.http.delete(f"/v1/knowledge/{second}"), 204)
        dry = await forget(person, {"query": query})
        assert dry["counts"]["notes"] == 0 and dry["counts"]["journalEntries"] >= 4, (name, dry)
        await forget(person, {"query": query}, dryRun=False, limit=1_000)
        for target in (first, second):
            said = str(await entries(person, target))
            assert name not in said and "Dubreuil" not in said and "Иванов" not in said, said
        past = await person.http.get(f"/v1/knowledge/{first}", params={"asKnownAt": between})
        assert name not in past.text, past.text
        assert (await person.http.get(f"/v1/knowledge/{first}")).status_code == 200  # the note stays
