"""Where the update rule is unsure, a model decides, after the create and never in it: the judge
job over real HTTP and the real Neo4j, its model a local OpenAI-compatible stub reached through
the real ``openai`` client (``tests/support/judge.py``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from graph.core.db import Database
from graph.core.principals import Role
from graph.knowledge.dedupe import undecided
from graph.knowledge.subjects import relate
from tests.integration.conftest import Caller, MakeCaller
from tests.support.jobs import finished, run_job
from tests.support.judge import MODEL, JudgeStub, judge_env, judge_jobs, judged
from tests.support.openai_stub import chat_answer
from tests.support.servers import ApiProcess, running_api

OLD = ("Spare key", "The spare key is under the doormat.")
NEW = ("Spare key", "We keep the spare key in the lockbox by the garage.")


@pytest.fixture(scope="module")
def stub() -> Iterator[JudgeStub]:
    with JudgeStub() as server:
        yield server


@pytest.fixture(scope="module")
def judge_api(
    stub: JudgeStub, neo4j_server: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ApiProcess]:
    with running_api(tmp_path_factory.mktemp("judge-api") / "api.log", judge_env(stub)) as process:
        yield process


@pytest.fixture(autouse=True)
def fresh_stub(stub: JudgeStub) -> None:
    stub.verdicts, stub.affected = {}, set()
    stub.script.clear()


def note(text: tuple[str, str], node_id: str) -> dict[str, Any]:
    return {"id": node_id, "title": text[0], "content": text[1], "type": "fact"}


async def write(http: httpx.AsyncClient, text: tuple[str, str], node_id: str, *, left: bool = True) -> None:
    """Create a note; ``left``: the rule changed nothing with it."""
    made = await http.post("/v1/knowledge", json=note(text, node_id))
    assert made.status_code == 201 and "mergedInto" not in made.json(), made.text
    if left:
        assert "supersedes" not in made.json() and "conflictsWith" not in made.json(), made.text


async def status(http: httpx.AsyncClient, node_id: str) -> str:
    return str((await http.get(f"/v1/knowledge/{node_id}")).json()["status"])


async def edges(http: httpx.AsyncClient, node_id: str) -> list[tuple[str, str, str]]:
    got = (await http.get(f"/v1/knowledge/{node_id}/connections")).json()["items"]
    return sorted((e["sourceId"], e["type"], e["targetId"]) for e in got)


async def pair(
    make_caller: MakeCaller, api: ApiProcess, role: Role = Role.AGENT
) -> tuple[Caller, httpx.AsyncClient]:
    """An agent of a fresh user (on the judge's API) who wrote the spare key's old and new place."""
    agent = await make_caller(role, agent_id="scribe" if role is Role.AGENT else None)
    http = agent.client(api.base_url)
    await write(http, OLD, "doormat")
    await write(http, NEW, "lockbox")
    return agent, http


def test_the_rule_leaves_the_spare_key_undecided() -> None:
    relation, _ = relate(*OLD, *NEW, twin=False)
    assert undecided(relation, near_twin=False), relation


async def test_an_update_the_model_sees_supersedes_the_old_note_as_the_llm_and_undo_restores_it(
    stub: JudgeStub, judge_api: ApiProcess, make_caller: MakeCaller, db: Database
) -> None:
    stub.verdicts = {"lockbox": "updates"}
    agent, http = await pair(make_caller, judge_api)
    job = await judged(db, agent, http)
    assert job["status"] == "done", job
    assert job["counts"]["updates"] == 1 and job["counts"]["applied"] == 1, job
    assert (await status(http, "doormat"), await status(http, "lockbox")) == ("superseded", "active")
    assert await edges(http, "doormat") == [("lockbox", "supersedes", "doormat")]
    [report] = job["report"]["pairs"]
    assert (report["older"], report["newer"], report["rule"], report["outcome"]) == (
        "doormat", "lockbox", "restatement", "applied",
    )  # fmt: skip

    # The journal says the model decided it: the judge's pipeline, naming the model.
    listed = (await http.get("/v1/mutations", params={"limit": 5})).json()["items"]
    connect = next(m for m in listed if m["op"] == "edge.connect")
    assert connect["actor"]["role"] == "system" and connect["actor"]["agentId"] == f"judge:llm:{MODEL}"
    assert connect["after"]["note"] == f"judged by llm:{MODEL}: updates"
    flipped = next(m for m in listed if m["op"] == "note.status")
    assert (flipped["targetId"], flipped["after"]) == ("doormat", {"status": "superseded"})

    # A person undoes it: the old note is current again, and the judge does not ask again.
    person = (await make_caller(Role.HUMAN, user_id=agent.user_id)).client(judge_api.base_url)
    undone = await person.post(f"/v1/mutations/{connect['id']}/undo")
    assert undone.status_code == 200, undone.text
    assert (await status(http, "doormat"), await edges(http, "doormat")) == ("active", [])
    await asyncio.sleep(1.5)
    assert len(await judge_jobs(db, agent.user_id)) == 1


async def test_resembles_leaves_both_active_and_contradicts_links_them(
    stub: JudgeStub, judge_api: ApiProcess, make_caller: MakeCaller, db: Database
) -> None:
    agent, http = await pair(make_caller, judge_api)
    job = await judged(db, agent, http)
    assert job["status"] == "done" and job["counts"]["resembles"] == 1 and job["counts"]["applied"] == 0, job
    assert (await status(http, "doormat"), await status(http, "lockbox")) == ("active", "active")
    assert await edges(http, "doormat") == []

    stub.verdicts = {"toolshed": "contradicts"}
    await write(http, ("Spare key", "The spare key hangs on a hook in the toolshed."), "toolshed")
    job = await judged(db, agent, http, count=2)
    assert job["status"] == "done" and job["counts"]["contradicts"] >= 1, job
    assert [o["newer"] for o in job["report"]["pairs"]] == ["toolshed"] * len(job["report"]["pairs"])
    nearest = job["report"]["pairs"][0]["older"]  # the nearest older note it contradicts
    assert await edges(http, "toolshed") == [("toolshed", "conflictsWith", nearest)]
    assert {await status(http, n) for n in ("doormat", "lockbox", "toolshed")} == {"active"}


async def test_over_what_a_person_wrote_the_model_only_proposes(
    stub: JudgeStub, judge_api: ApiProcess, make_caller: MakeCaller, db: Database
) -> None:
    stub.verdicts = {"lockbox": "updates"}
    person = await make_caller(Role.HUMAN)
    mine = person.client(judge_api.base_url)
    await write(mine, OLD, "doormat")
    agent = (await make_caller(Role.AGENT, agent_id="scribe", user_id=person.user_id)).client(
        judge_api.base_url
    )
    await write(agent, NEW, "lockbox")
    job = await judged(db, person, mine)
    assert job["status"] == "done" and job["counts"]["proposed"] == 1 and job["counts"]["applied"] == 0, job
    assert await status(mine, "doormat") == "active" and await edges(mine, "doormat") == []
    [proposal] = (await mine.get("/v1/proposals", params={"status": "pending"})).json()["items"]
    assert proposal["op"] == "edge.connect" and proposal["targetId"] == "doormat"
    assert proposal["proposedBy"]["agentId"] == f"judge:llm:{MODEL}"
    approved = await mine.post(f"/v1/proposals/{proposal['id']}/approve")
    assert approved.status_code == 200, approved.text
    assert await status(mine, "doormat") == "superseded"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("the lockbox one is newer, I think", "it is not JSON"),
        (json.dumps({"answers": [{"id": "q9", "label": "updates"}]}), "ids not asked"),
        (json.dumps({"answers": [{"id": "q1", "label": "supersedes-everything"}]}), "no item of those asked"),
    ],
)
async def test_an_answer_that_does_not_validate_changes_nothing_and_fails_the_job(
    stub: JudgeStub, judge_api: ApiProcess, make_caller: MakeCaller, db: Database, answer: str, reason: str
) -> None:
    stub.script.extend([(200, chat_answer(answer))] * 2)  # asked again once, then it fails
    agent, http = await pair(make_caller, judge_api)
    job = await judged(db, agent, http)
    assert (
        job["status"] == "failed" and "did not validate twice" in job["error"] and reason in job["error"]
    ), job
    assert (await status(http, "doormat"), await edges(http, "doormat")) == ("active", [])
    # Nothing moved on: run again with a model that answers, the pair is judged then.
    stub.verdicts = {"lockbox": "updates"}
    again = await run_job(http, "/v1/maintenance/judge", timeout=60)
    assert again["status"] == "done" and again["counts"]["applied"] == 1, again


async def test_several_creates_at_once_make_one_job_and_another_user_is_never_read(
    stub: JudgeStub, judge_api: ApiProcess, make_caller: MakeCaller, db: Database
) -> None:
    stub.verdicts = {"lockbox": "updates"}
    bob = (await make_caller(Role.AGENT, agent_id="scribe")).client(judge_api.base_url)
    await write(bob, ("Spare key", "The spare key is under the flower pot by the door."), "flowerpot")
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    http = agent.client(judge_api.base_url)
    await write(http, OLD, "doormat")
    await asyncio.sleep(1.0)  # its judging found nothing to ask: no job, the watermark moved on
    assert await judge_jobs(db, agent.user_id) == []
    places = [
        "in the lockbox by the garage",
        "in the lockbox by the back gate",
        "in the lockbox on the porch",
    ]
    await asyncio.gather(
        *(
            write(http, ("Spare key", f"We keep the spare key {p}."), f"new-{i}", left=False)
            for i, p in enumerate(places)
        )
    )
    job = await judged(db, agent, http)
    assert job["status"] == "done", job
    await asyncio.sleep(1.5)
    assert len(await judge_jobs(db, agent.user_id)) == 1  # one job for the three creates
    assert await status(http, "doormat") == "superseded"
    assert "flower pot" not in stub.asked()  # bob's note was never put to the model
    assert await status(bob, "flowerpot") == "active"


async def test_offline_nothing_runs_and_the_dry_run_lists_the_pairs(
    make_caller: MakeCaller, db: Database
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    await write(agent.http, OLD, "doormat")
    await write(agent.http, NEW, "lockbox")
    assert await judge_jobs(db, agent.user_id) == []
    refused = await agent.http.post("/v1/maintenance/judge")
    assert refused.status_code == 409 and "CTXNET_LLM_MODEL" in refused.json()["error"]["message"]
    started = await agent.http.post("/v1/maintenance/judge", json={"dryRun": True})
    assert started.status_code == 202, started.text
    dry = await finished(agent.http, started.json()["jobId"])
    assert dry["status"] == "done" and dry["counts"] == {"notes": 2, "pairs": 1, "threads": 0}, dry
    assert [(p["older"], p["newer"]) for p in dry["report"]["pairs"]] == [("doormat", "lockbox")]
    assert (await status(agent.http, "doormat"), await status(agent.http, "lockbox")) == ("active", "active")


async def test_a_note_created_with_dedupe_off_is_compared_by_no_one(make_caller: MakeCaller) -> None:
    """``dedupe: false`` (an export read back in, say) opts out of every comparison: the
    create's, and the judge's later."""
    agent = await make_caller(Role.AGENT, agent_id="scribe")
    await write(agent.http, OLD, "doormat")
    made = await agent.http.post("/v1/knowledge", json=note(NEW, "lockbox") | {"dedupe": False})
    assert made.status_code == 201, made.text
    started = await agent.http.post("/v1/maintenance/judge", json={"dryRun": True})
    dry = await finished(agent.http, started.json()["jobId"])
    assert dry["status"] == "done" and dry["counts"] == {"notes": 2, "pairs": 0, "threads": 0}, dry
