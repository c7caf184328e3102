"""The user profile over HTTP: read, replace, patch, promote from insights, every change
journaled with who made it."""

from __future__ import annotations

import asyncio
import json

import pytest

from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import MakeCaller, inspect
from tests.integration.conversations.test_insights import CONVERSATION, open_thread, run_job


async def journal(db: Database, user_id: str) -> list[dict[str, object]]:
    """The user's profile mutations, oldest first, with what they are linked to."""
    return await inspect(
        db,
        "MATCH (m:Mutation {userId: $u}) WHERE m.targetType = 'Profile' "
        "OPTIONAL MATCH (m)-[:CHANGED]->(p:Profile) "
        "RETURN m.op AS op, m.role AS role, m.agentId AS agentId, m.seq AS seq, m.before AS before, "
        "m.after AS after, m.targetType AS targetType, p.userId AS profileOf ORDER BY m.seq",
        u=user_id,
    )


async def test_read_replace_and_patch_with_who_changed_what(make_caller: MakeCaller, db: Database) -> None:
    person = await make_caller(Role.HUMAN)
    assistant = await make_caller(Role.AGENT, agent_id="assistant", user_id=person.user_id)
    empty = (await person.http.get("/v1/profile")).json()
    assert empty == {"preferences": {}, "sources": {}}

    put = await person.http.put(
        "/v1/profile",
        json={"preferences": {"theme": "dark", "units": "metric", "verbose": False}, "background": "An SRE."},
    )
    assert put.status_code == 200, put.text
    assert put.json()["preferences"] == {"theme": "dark", "units": "metric", "verbose": False}
    assert put.json()["sources"]["theme"]["setByRole"] == "human"

    # An agent's removal of what the person wrote waits for them (test_profile_trust.py).
    held = await assistant.http.patch("/v1/profile", json={"preferences": {"units": None}})
    assert held.status_code == 202, held.text
    patched = await assistant.http.patch(
        "/v1/profile", json={"preferences": {"editor": "vim", "theme": "dark"}}
    )
    assert patched.status_code == 200, patched.text
    body = patched.json()
    assert body["preferences"] == {"editor": "vim", "theme": "dark", "units": "metric", "verbose": False}
    assert body["background"] == "An SRE."  # not given: unchanged
    assert body["sources"]["editor"] == {
        **body["sources"]["editor"],
        "setByRole": "agent",
        "setByAgent": "assistant",
    }
    assert body["sources"]["theme"]["setByRole"] == "human"  # the same value: still the person's
    assert (await person.http.get("/v1/profile")).json() == body

    cleared = await person.http.patch("/v1/profile", json={"background": None})
    assert "background" not in cleared.json()
    replaced = await person.http.put("/v1/profile", json={"preferences": {"theme": "light"}})
    assert replaced.json()["preferences"] == {"theme": "light"}
    left = await inspect(db, "MATCH (p:Preference {userId: $u}) RETURN p.name AS name", u=person.user_id)
    assert [r["name"] for r in left] == ["theme"]  # replaced ones are gone from the graph

    unchanged = await person.http.put("/v1/profile", json={"preferences": {"theme": "light"}})
    assert unchanged.status_code == 200
    changes = await journal(db, person.user_id)
    assert [(c["op"], c["role"], c["agentId"]) for c in changes] == [
        ("profile.replace", "human", None),
        ("profile.patch", "agent", "assistant"),
        ("profile.patch", "human", None),
        ("profile.replace", "human", None),
    ]  # the last PUT changed nothing and is not journaled
    assert {c["profileOf"] for c in changes} == {person.user_id}
    assert "editor" not in json.loads(str(changes[1]["before"]))["preferences"]
    assert json.loads(str(changes[1]["after"]))["preferences"]["editor"] == "vim"
    seqs = [int(str(c["seq"])) for c in changes]
    assert seqs == sorted(seqs) and len(set(seqs)) == 4


@pytest.mark.smoke
async def test_bad_profiles_get_a_422_naming_the_field(make_caller: MakeCaller) -> None:
    person = await make_caller()
    for body, field in [
        ({"preferences": {"": "x"}}, "preferences"),
        ({"preferences": {"theme": {"nested": 1}}}, "preferences"),
        ({"preferences": {"theme": "x" * 2_001}}, "preferences"),
        ({"preferences": {f"p{i}": i for i in range(201)}}, "preferences"),
        ({"background": "x" * 8_001}, "background"),
        ({"preference": {}}, "preference"),
    ]:
        answer = await person.http.put("/v1/profile", json=body)
        assert answer.status_code == 422, (body, answer.text)
        assert answer.json()["error"]["field"].startswith(field), answer.text
    assert (await person.http.get("/v1/profile")).json()["preferences"] == {}  # nothing half-written


async def test_preference_insights_are_promoted_with_their_source(
    make_caller: MakeCaller, db: Database
) -> None:
    alice = await make_caller()
    mallory = await make_caller()
    await open_thread(alice, "t", "Editors", CONVERSATION)
    assert (await run_job(alice.http, "/v1/threads/t/extract"))["status"] == "done"
    insights = (await alice.http.get("/v1/insights", params={"threadId": "t"})).json()["items"]
    preference = next(i for i in insights if i["type"] == "preference")
    fact = next(i for i in insights if i["type"] == "fact")

    promoted = await alice.http.post("/v1/profile/promote", json={"insightIds": [preference["id"]]})
    assert promoted.status_code == 200, promoted.text
    body = promoted.json()
    assert body["preferences"] == {"dark mode in every editor": "I prefer dark mode in every editor."}
    source = body["sources"]["dark mode in every editor"]
    assert source["insightId"] == preference["id"] and source["threadId"] == "t"
    linked = await inspect(
        db,
        "MATCH (:Profile {userId: $u})-[:PREFERS]->(p:Preference)-[:PROMOTED_FROM]->(i:Insight) "
        "RETURN p.name AS name, i.id AS insight",
        u=alice.user_id,
    )
    assert linked == [{"name": "dark mode in every editor", "insight": preference["id"]}]

    again = await alice.http.post("/v1/profile/promote", json={"insightIds": [preference["id"]]})
    assert again.json() == body  # the same promotion again changes nothing
    named = await alice.http.post(
        "/v1/profile/promote", json={"insightIds": [preference["id"]], "names": {preference["id"]: "theme"}}
    )
    assert named.json()["preferences"]["theme"] == "I prefer dark mode in every editor."

    not_a_preference = await alice.http.post("/v1/profile/promote", json={"insightIds": [fact["id"]]})
    assert not_a_preference.status_code == 422 and not_a_preference.json()["error"]["field"] == "insightIds"
    theirs = await mallory.http.post("/v1/profile/promote", json={"insightIds": [preference["id"]]})
    assert theirs.status_code == 404 and theirs.json()["error"]["field"] == "insightIds"
    assert (await mallory.http.get("/v1/profile")).json()["preferences"] == {}
    stray = await alice.http.post(
        "/v1/profile/promote", json={"insightIds": [preference["id"]], "names": {"other": "x"}}
    )
    assert stray.status_code == 409 and stray.json()["error"]["field"] == "names"


async def test_patches_at_once_all_land_and_twins_change_once(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller()
    bob = await make_caller()
    await bob.http.put("/v1/profile", json={"preferences": {"theme": "bob's"}})
    answers = await asyncio.gather(
        *(alice.http.patch("/v1/profile", json={"preferences": {f"p{i}": i}}) for i in range(6)),
        *(alice.http.patch("/v1/profile", json={"preferences": {"twin": "same"}}) for _ in range(4)),
    )
    assert [a.status_code for a in answers] == [200] * 10
    final = (await alice.http.get("/v1/profile")).json()["preferences"]
    assert final == {**{f"p{i}": i for i in range(6)}, "twin": "same"}
    changes = await journal(db, alice.user_id)
    assert len(changes) == 7  # six different patches, and the twins' first one
    assert (await bob.http.get("/v1/profile")).json()["preferences"] == {"theme": "bob's"}
