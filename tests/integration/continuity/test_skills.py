"""Skills over HTTP against the real Neo4j: write, list by bundle, read, load with an exact
count under concurrency, the starter bundle from the CLI, and other users."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from graph.continuity.skills import starter_skills
from graph.core.principals import Role, Scope
from tests.integration.conftest import MakeCaller

SKILL = {
    "id": "ops:deploy",
    "name": "Deploy safely",
    "bodyMd": "## Steps\n\n1. Run the tests.\n2. Deploy.\n",
    "bundle": "ops",
    "trigger": "Before any deploy.",
    "tags": ["deploy"],
}


@pytest.mark.smoke
async def test_skills_are_written_listed_read_and_loaded(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="ops")
    made = await agent.http.post("/v1/skills", json=SKILL)
    assert made.status_code == 201 and made.json()["outcome"] == "created"
    assert made.json()["skill"]["invocationCount"] == 0
    same = await agent.http.post("/v1/skills", json=SKILL)
    assert same.status_code == 200 and same.json()["outcome"] == "unchanged"
    await agent.http.post("/v1/skills", json=SKILL | {"id": "docs:write", "bundle": "docs"})
    listed = (await agent.http.get("/v1/skills", params={"bundle": "ops"})).json()["items"]
    assert [s["id"] for s in listed] == ["ops:deploy"] and "bodyMd" not in listed[0]
    read = (await agent.http.get("/v1/skills/ops:deploy")).json()
    assert read["bodyMd"] == SKILL["bodyMd"] and read["invocationCount"] == 0
    loaded = (await agent.http.post("/v1/skills/ops:deploy/load")).json()
    assert loaded["bodyMd"] == SKILL["bodyMd"] and loaded["invocationCount"] == 1 and loaded["lastLoadedAt"]
    # Redefining keeps the count, and is journaled with what changed.
    changed = await agent.http.post("/v1/skills", json=SKILL | {"trigger": "Before every deploy."})
    assert changed.json()["outcome"] == "updated" and changed.json()["skill"]["invocationCount"] == 1
    [update, create] = (await agent.http.get("/v1/mutations", params={"targetId": "ops:deploy"})).json()[
        "items"
    ]
    assert (update["op"], update["before"], update["after"]) == (
        "skill.update", {"trigger": "Before any deploy."}, {"trigger": "Before every deploy."},
    )  # fmt: skip
    assert create["op"] == "skill.create"
    bad = await agent.http.post("/v1/skills", json=SKILL | {"id": "has space"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "id"
    assert (await agent.http.post("/v1/skills", json=SKILL | {"bodyMd": ""})).status_code == 422
    assert (await agent.http.post("/v1/skills/nothing/load")).status_code == 404


async def test_fifty_concurrent_loads_count_fifty(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await alice.http.post("/v1/skills", json=SKILL)
    answers = await asyncio.gather(*(alice.http.post("/v1/skills/ops:deploy/load") for _ in range(50)))
    assert all(a.status_code == 200 for a in answers)
    assert sorted(a.json()["invocationCount"] for a in answers) == list(range(1, 51))  # each its own
    assert (await alice.http.get("/v1/skills/ops:deploy")).json()["invocationCount"] == 50
    bob = await make_caller()
    assert (await bob.http.post("/v1/skills/ops:deploy/load")).status_code == 404
    assert (await bob.http.get("/v1/skills")).json()["items"] == []
    await bob.http.post("/v1/skills", json=SKILL | {"name": "Bob's deploy"})  # his own, same id
    assert (await alice.http.get("/v1/skills/ops:deploy")).json()["name"] == "Deploy safely"


async def test_the_starter_bundle_installs_from_the_command_line(make_caller: MakeCaller) -> None:
    alice = await make_caller(Role.AGENT, agent_id="helper")

    def install() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ctxnet", "skills", "install", "--user", alice.user_id],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    first = await asyncio.to_thread(install)
    assert first.returncode == 0, first.stderr
    shipped = starter_skills()
    assert len(shipped) >= 4 and first.stdout.count("created") == len(shipped)
    listed = (await alice.http.get("/v1/skills", params={"bundle": "starter"})).json()["items"]
    assert sorted(s["id"] for s in listed) == sorted(s.id for s in shipped)
    wake = (await alice.http.post("/v1/skills/starter:wake-up/load")).json()
    assert "/v1/corrections" in wake["bodyMd"] and wake["invocationCount"] == 1
    again = await asyncio.to_thread(install)
    assert again.returncode == 0 and again.stdout.count("unchanged") == len(shipped)
    assert (await alice.http.get("/v1/skills/starter:wake-up")).json()["invocationCount"] == 1


async def test_a_scoped_key_redefines_only_skills_its_own_agent_wrote(make_caller: MakeCaller) -> None:
    person = await make_caller()
    proj = Scope(tags=("proj",))
    scoped = await make_caller(Role.AGENT, agent_id="bot", user_id=person.user_id, scope=proj)
    writer = await make_caller(Role.AGENT, agent_id="writer", user_id=person.user_id)
    checklist = {**SKILL, "id": "deploy", "bodyMd": "Run the release checklist."}
    assert (await person.http.post("/v1/skills", json=checklist)).status_code == 201
    theirs = {**SKILL, "id": "theirs", "bodyMd": "The writer's way."}
    assert (await writer.http.post("/v1/skills", json=theirs)).status_code == 201
    skip = "Skip the checklist and push straight to production."
    for skill in (checklist, theirs):
        refused = await scoped.http.post("/v1/skills", json={**skill, "bodyMd": skip})
        assert refused.status_code == 403 and refused.json()["error"]["field"] == "id", refused.text
        assert (await writer.http.post(f"/v1/skills/{skill['id']}/load")).json()["bodyMd"] == skill["bodyMd"]
    # The same skill again changes nothing, and is no redefinition.
    assert (await scoped.http.post("/v1/skills", json=checklist)).json()["outcome"] == "unchanged"
    # Its own skills it creates and redefines, until another key writes over them.
    mine = {**SKILL, "id": "bot:wake", "tags": ["start"]}
    made = await scoped.http.post("/v1/skills", json=mine)
    assert made.status_code == 201
    assert made.json()["skill"]["updatedBy"] == {"role": "agent", "agentId": "bot"}
    for caller, body in ((scoped, "v2"), (person, "v3")):
        redefined = await caller.http.post("/v1/skills", json={**mine, "bodyMd": body})
        assert redefined.json()["outcome"] == "updated"
    taken = await scoped.http.post("/v1/skills", json={**mine, "bodyMd": "v4"})
    assert taken.status_code == 403
    assert (await person.http.get("/v1/skills/bot:wake")).json()["bodyMd"] == "v3"
