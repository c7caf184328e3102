"""The judge decides the threads a new decision's notice nearly reached, after the record and
never in it: over real HTTP and the real Neo4j, its model the local OpenAI-compatible stub
(``tests/support/judge.py``) through the real ``openai`` client."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.project.test_decision_notices import (
    NOTICE,
    POSTGRES,
    billing_meetup_and_others,
    decide,
)
from tests.support.judge import MODEL, JudgeStub, judge_env, judged
from tests.support.servers import ApiProcess, running_api


@pytest.fixture(scope="module")
def stub() -> Iterator[JudgeStub]:
    with JudgeStub() as server:
        yield server


@pytest.fixture(scope="module")
def notices_api(
    stub: JudgeStub, neo4j_server: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ApiProcess]:
    """The judge's API with every thread below the line put to the model (a wide margin), so the
    test does not hang on where each thread stands."""
    env = judge_env(stub) | {"CTXNET_LLM_JUDGE_NOTICE_MARGIN": "10"}
    with running_api(tmp_path_factory.mktemp("notice-judge-api") / "api.log", env) as process:
        yield process


async def told(caller: Caller, thread_id: str) -> list[str]:
    items = (await caller.http.get(f"/v1/threads/{thread_id}/messages")).json()["items"]
    return [m["content"] for m in items if m["content"].startswith(NOTICE)]


async def test_a_thread_the_model_calls_affected_is_told_and_the_others_are_not(
    stub: JudgeStub, notices_api: ApiProcess, make_caller: MakeCaller, db: Database
) -> None:
    made = await make_caller(Role.HUMAN)
    person = Caller(made.user_id, made.key, made.key_id, made.client(notices_api.base_url), [])
    await billing_meetup_and_others(person, db)
    stub.affected = {"On-call swap"}  # a reason no word shares: the model's call

    by_rule = await decide(person, "adr-pg", POSTGRES)
    assert set(by_rule) == {"billing"}, by_rule
    job = await judged(db, person, person.http)
    assert job["status"] == "done", job
    assert job["counts"]["told"] == 1 and job["counts"]["threads"] >= 2, job
    assert [t["threadId"] for t in job["report"]["told"]] == ["other-1"]

    [notice] = await told(person, "other-1")
    assert notice == f"{NOTICE}{POSTGRES['title']} (judged affected by llm:{MODEL})"
    assert await told(person, "meetup") == []  # asked, and unaffected
    assert len(await told(person, "billing")) == 1  # the rule's notice, not asked again
    assert "We need to move billing off MySQL" not in stub.asked()
    # The notice points at its decision, as the rule's do, and is journaled as the judge's.
    listed = (await person.http.get("/v1/mutations", params={"limit": 10})).json()["items"]
    appended = [m for m in listed if m["actor"].get("agentId") == f"judge:llm:{MODEL}"]
    assert appended and {m["targetType"] for m in appended} <= {"Thread", "Message"}, appended
