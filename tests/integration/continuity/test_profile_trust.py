"""A person's word holds in the profile (review 2026-12-01 row 7), over HTTP: an agent's
PATCH, PUT, promote or undo over a preference or background a person wrote, corrected or
removed becomes a proposal (202) that a person approves (applied then) or rejects; a
person's fix of an agent's preference is a correction kept with the preference."""

from __future__ import annotations

from typing import Any

from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.conversations.test_insights import CONVERSATION, open_thread, run_job


async def profile(caller: Caller) -> dict[str, Any]:
    answer = await caller.http.get("/v1/profile")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


async def corrections(person: Caller) -> list[dict[str, Any]]:
    answer = await person.http.get("/v1/corrections", params={"targetId": person.user_id})
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    return items


async def latest_mutation(person: Caller) -> dict[str, Any]:
    params = {"limit": 1, "targetId": person.user_id}
    [mutation] = (await person.http.get("/v1/mutations", params=params)).json()["items"]
    assert mutation["targetType"] == "Profile", mutation
    return mutation  # type: ignore[no-any-return]


async def test_a_persons_fix_of_an_agents_preference_holds_against_patch_put_and_undo(
    make_caller: MakeCaller,
) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="assistant", user_id=person.user_id)
    # The review's reproduction: the agent writes emacs, the person fixes it to vim.
    assert (
        await agent.http.patch("/v1/profile", json={"preferences": {"editor": "emacs"}})
    ).status_code == 200
    fixed = await person.http.patch("/v1/profile", json={"preferences": {"editor": "vim"}})
    assert fixed.status_code == 200, fixed.text
    source = fixed.json()["sources"]["editor"]
    assert source["setByRole"] == "human" and source["correctionId"]
    fix = await latest_mutation(person)
    [correction] = (await person.http.get("/v1/corrections", params={"targetId": person.user_id})).json()[
        "items"
    ]
    assert correction["id"] == source["correctionId"] and correction["fields"] == ["preferences.editor"]
    assert (correction["before"], correction["after"]) == (
        {"preferences.editor": "emacs"}, {"preferences.editor": "vim"},
    )  # fmt: skip

    # The agent's undo of the person's fix: a proposal, nothing changes.
    undo = await agent.http.post(f"/v1/mutations/{fix['id']}/undo")
    assert undo.status_code == 202, undo.text
    held_undo = undo.json()["proposal"]
    assert held_undo["op"] == "profile.undo" and held_undo["payload"] == {"mutationId": fix["id"]}
    assert held_undo["fields"] == ["preferences.editor"] and held_undo["correctionIds"] == [correction["id"]]
    # The agent's PATCH and PUT over it: proposals too, the profile is the person's.
    patch = await agent.http.patch("/v1/profile", json={"preferences": {"editor": "emacs"}})
    assert patch.status_code == 202, patch.text
    assert patch.json()["proposal"]["op"] == "profile.patch"
    removal = await agent.http.patch("/v1/profile", json={"preferences": {"editor": None}})
    assert removal.status_code == 202, removal.text
    put = await agent.http.put("/v1/profile", json={"preferences": {"editor": "nano"}})
    assert put.status_code == 202 and put.json()["proposal"]["op"] == "profile.replace"
    again = await agent.http.patch("/v1/profile", json={"preferences": {"editor": "emacs"}})
    assert again.json()["proposal"]["id"] == patch.json()["proposal"]["id"]  # asked once
    now = await profile(person)
    assert now["preferences"] == {"editor": "vim"} and now["sources"]["editor"]["setByRole"] == "human"

    # What the agent wrote beside it is its own to change.
    mine = await agent.http.patch("/v1/profile", json={"preferences": {"theme": "dark"}})
    assert mine.status_code == 200 and mine.json()["preferences"] == {"editor": "vim", "theme": "dark"}
    assert (
        await agent.http.patch("/v1/profile", json={"preferences": {"theme": "light"}})
    ).status_code == 200

    # Only a person decides; rejecting changes nothing, approving applies it as theirs.
    assert (await agent.http.post(f"/v1/proposals/{put.json()['proposal']['id']}/approve")).status_code == 403
    rejected = await person.http.post(f"/v1/proposals/{put.json()['proposal']['id']}/reject")
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    assert (await profile(person))["preferences"] == {"editor": "vim", "theme": "light"}
    approved = await person.http.post(f"/v1/proposals/{patch.json()['proposal']['id']}/approve")
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "approved" and len(approved.json()["decision"]["mutationIds"]) == 1
    after = await profile(person)
    assert after["preferences"] == {"editor": "emacs", "theme": "light"}
    assert after["sources"]["editor"]["setByRole"] == "human"  # the person applied it
    applied = await latest_mutation(person)
    assert (applied["op"], applied["actor"]["role"], applied["proposalId"]) == (
        "profile.patch", "human", patch.json()["proposal"]["id"],
    )  # fmt: skip
    # The undo proposal is blocked now: the profile changed after the fix (409, still pending).
    blocked = await person.http.post(f"/v1/proposals/{held_undo['id']}/approve")
    assert blocked.status_code == 409, blocked.text
    assert (await person.http.get(f"/v1/proposals/{held_undo['id']}")).json()["status"] == "pending"


async def test_what_a_person_wrote_or_removed_and_their_background_wait_for_them(
    make_caller: MakeCaller,
) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="assistant", user_id=person.user_id)
    put = await person.http.put(
        "/v1/profile", json={"preferences": {"units": "metric", "tz": "UTC"}, "background": "An SRE."}
    )
    assert put.status_code == 200, put.text
    assert put.json()["backgroundSource"]["setByRole"] == "human"

    # A preference a person wrote, and their background: held.
    held = await agent.http.patch("/v1/profile", json={"preferences": {"units": "imperial"}})
    assert held.status_code == 202 and held.json()["proposal"]["fields"] == ["preferences.units"]
    background = await agent.http.patch("/v1/profile", json={"background": "A frontend developer."})
    assert background.status_code == 202 and background.json()["proposal"]["fields"] == ["background"]
    cleared = await agent.http.patch("/v1/profile", json={"background": None})
    assert cleared.status_code == 202
    # The person removes a preference an agent set: the agent does not bring it back alone.
    assert (await agent.http.patch("/v1/profile", json={"preferences": {"pager": "on"}})).status_code == 200
    removed = await person.http.patch("/v1/profile", json={"preferences": {"pager": None}})
    assert removed.status_code == 200 and "pager" not in removed.json()["preferences"]
    [correction] = (await person.http.get("/v1/corrections", params={"targetId": person.user_id})).json()[
        "items"
    ]
    assert correction["kind"] == "delete" and correction["fields"] == ["preferences.pager"]
    back = await agent.http.patch("/v1/profile", json={"preferences": {"pager": "on"}})
    assert back.status_code == 202, back.text
    assert back.json()["proposal"]["fields"] == ["preferences.pager"]
    assert (await profile(person))["preferences"] == {"tz": "UTC", "units": "metric"}

    # An agent's own new preference and its own background are its to write.
    free = await agent.http.patch("/v1/profile", json={"preferences": {"lang": "en"}})
    assert free.status_code == 200 and free.json()["sources"]["lang"]["setByRole"] == "agent"
    # The person writes the name again: an agent may change it only by proposal, as before.
    assert (await person.http.patch("/v1/profile", json={"preferences": {"pager": "off"}})).status_code == 200
    assert (await agent.http.patch("/v1/profile", json={"preferences": {"pager": "on"}})).status_code == 202

    # Approving the background proposal applies it as the person's.
    ok = await person.http.post(f"/v1/proposals/{background.json()['proposal']['id']}/approve")
    assert ok.status_code == 200, ok.text
    now = await profile(person)
    assert now["background"] == "A frontend developer." and now["backgroundSource"]["setByRole"] == "human"


async def test_an_agents_fresh_profile_and_its_promote_over_a_persons_preference(
    make_caller: MakeCaller,
) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="assistant", user_id=person.user_id)
    await open_thread(person, "t", "Editors", CONVERSATION)
    assert (await run_job(person.http, "/v1/threads/t/extract"))["status"] == "done"
    insights = (await person.http.get("/v1/insights", params={"threadId": "t"})).json()["items"]
    pref = next(i for i in insights if i["type"] == "preference")
    # The agent promotes over nothing of a person's: applied at once.
    promote = {"insightIds": [pref["id"]], "names": {pref["id"]: "ui"}}
    made = await agent.http.post("/v1/profile/promote", json=promote)
    assert made.status_code == 200, made.text
    assert made.json()["sources"]["ui"]["setByRole"] == "agent"
    # A person sets "ui"; the agent's promote onto that name again is a proposal.
    assert (await person.http.patch("/v1/profile", json={"preferences": {"ui": "light"}})).status_code == 200
    held = await agent.http.post("/v1/profile/promote", json=promote)
    assert held.status_code == 202, held.text
    proposal = held.json()["proposal"]
    assert proposal["op"] == "profile.promote" and proposal["payload"]["insightIds"] == [pref["id"]]
    assert (await profile(person))["preferences"] == {"ui": "light"}
    ok = await person.http.post(f"/v1/proposals/{proposal['id']}/approve")
    assert ok.status_code == 200, ok.text
    after = await profile(person)
    assert after["preferences"]["ui"] == pref["content"] and after["sources"]["ui"]["insightId"] == pref["id"]
