"""Insight extraction jobs, the feedback loop, consolidation and recall, over real HTTP.

The default API runs the offline rule extractor; a second API process is pointed at a
local OpenAI-compatible stub (through the real openai client) for the LLM path.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from graph.core.db import Database
from graph.core.embeddings import embedder_dimension
from graph.core.principals import ApiKeys, Role
from graph.core.schema import migrate
from graph.core.settings import Settings
from graph.core.users import forget_user
from tests.integration.conftest import Caller, MakeCaller
from tests.support.jobs import run_job
from tests.support.openai_stub import OpenAIStub, chat_answer
from tests.support.servers import ApiProcess, running_api

CONVERSATION = [
    {"id": "m1", "role": "user", "content": "I prefer dark mode in every editor."},
    {"id": "m2", "role": "assistant", "content": "Noted, dark mode it is."},
    {"id": "m3", "role": "user", "content": "I work at TechCorp as a data engineer."},
    {"id": "m4", "role": "user", "content": "We decided to use Postgres for billing."},
    {"id": "m5", "role": "user", "content": "How should we back up the billing database?"},
]


async def open_thread(caller: Caller, thread_id: str, topic: str, messages: list[dict[str, Any]]) -> None:
    await caller.http.post("/v1/threads", json={"id": thread_id, "topic": topic, "contextType": "planning"})
    response = await caller.http.post(f"/v1/threads/{thread_id}/messages", json={"messages": messages})
    assert response.status_code == 201, response.text


async def test_extraction_is_a_job_and_idempotent(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await open_thread(alice, "t", "Billing platform", CONVERSATION)
    job = await run_job(alice.http, "/v1/threads/t/extract")
    assert job["status"] == "done", job
    assert job["counts"] == {"messages": 5, "extracted": 4, "stored": 4}
    insights = (await alice.http.get("/v1/insights", params={"threadId": "t"})).json()["items"]
    assert {i["type"] for i in insights} == {"preference", "fact", "decision", "question"}
    assert {i["messageId"] for i in insights} == {"m1", "m3", "m4", "m5"}
    assert {i["extractor"] for i in insights} == {"rules-v1"}

    again = await run_job(alice.http, "/v1/threads/t/extract")
    assert again["counts"]["stored"] == 0
    assert len((await alice.http.get("/v1/insights", params={"threadId": "t"})).json()["items"]) == 4
    decisions = (await alice.http.get("/v1/insights", params={"type": "decision"})).json()["items"]
    assert [i["messageId"] for i in decisions] == ["m4"]

    assert (await alice.http.post("/v1/threads/missing/extract")).status_code == 404


async def test_feedback_loop_updates_or_creates_knowledge_with_provenance(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    # A note that already says what the decision insight will say: it must be updated, not twinned.
    existing = await alice.http.post(
        "/v1/knowledge",
        json={
            "id": "billing-db",
            "title": "Postgres for billing",
            "content": "We decided to use Postgres for billing.",
            "type": "decision",
            "source": "decision",
            "confidence": 0.6,
        },
    )
    assert existing.status_code == 201
    await open_thread(alice, "t", "Billing platform", CONVERSATION)
    job = await run_job(alice.http, "/v1/threads/t/feedback-loop")
    assert job["status"] == "done", job
    # preference .75, fact .72, decision .75 pass > 0.7; the question (.65) does not.
    assert job["counts"] == {"extracted": 4, "valid": 3, "created": 2, "updated": 1, "unchanged": 0}

    note = (await alice.http.get("/v1/knowledge/billing-db")).json()
    # A person's note: the insight is folded in as a record of agreement; its confidence
    # stays the person's (the insight's own is on the merge record).
    assert note["confidence"] == 0.6 and note["mergeCount"] == 1
    assert note["merges"][0]["confidence"] == 0.75
    insights = (await alice.http.get("/v1/insights", params={"threadId": "t"})).json()["items"]
    fed = {i["type"]: i["knowledgeIds"] for i in insights}
    assert fed["decision"] == ["billing-db"]
    assert len(fed["preference"]) == 1 and len(fed["fact"]) == 1 and fed["question"] == []
    created = (await alice.http.get(f"/v1/knowledge/{fed['preference'][0]}")).json()
    assert created["source"] == "conversation" and "dark mode" in created["content"]
    assert created["sourceRef"] == "thread:t"  # the thread it came from
    assert "sourceRef" not in note  # a note the loop updated keeps its own (none)

    before = {n["id"]: n for n in (await alice.http.get("/v1/knowledge")).json()["items"]}
    rerun = await run_job(alice.http, "/v1/threads/t/feedback-loop")
    # Nothing new was said: nothing is created, updated, or touched.
    assert rerun["counts"] == {"extracted": 4, "valid": 3, "created": 0, "updated": 0, "unchanged": 3}
    listed = (await alice.http.get("/v1/knowledge")).json()["items"]
    assert {n["id"]: n for n in listed} == before


async def test_recall_across_sessions(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await open_thread(alice, "older", "Editor setup", CONVERSATION[:2])
    await open_thread(alice, "newer", "Billing platform", CONVERSATION[2:])
    for thread in ("older", "newer"):
        assert (await run_job(alice.http, f"/v1/threads/{thread}/extract"))["status"] == "done"
    context = (
        await alice.http.post("/v1/context/user", json={"query": "which database do we use for billing?"})
    ).json()
    top_two = [i["content"] for i in context["insights"][:2]]
    assert "We decided to use Postgres for billing." in top_two
    assert {i["threadId"] for i in context["insights"][:2]} == {"newer"}
    editor = (await alice.http.post("/v1/context/user", json={"query": "editor colour theme"})).json()
    assert editor["insights"][0]["content"] == "I prefer dark mode in every editor."
    assert editor["insights"][0]["threadId"] == "older"
    assert editor["insights"][0]["score"] > editor["insights"][-1]["score"]
    assert [t["topic"] for t in context["recentTopics"]] == ["Billing platform", "Editor setup"]
    few = (
        await alice.http.post("/v1/context/user", json={"query": "editor", "limit": 1, "topics": 1})
    ).json()
    assert len(few["insights"]) == 1 and len(few["recentTopics"]) == 1


async def test_recall_finds_an_insight_by_its_words_too(
    make_caller: MakeCaller, db: Database, settings: Settings
) -> None:
    """Recall fuses a keyword half with the vector half, as search does: an insight whose
    rare word the query names comes back with its textScore; another user's never does, nor
    does storing the same insights move the first user's scores. An insight stored before
    insights carried their tenant key is given one by migrate."""
    alice, mallory = await make_caller(), await make_caller()
    said = [{"id": "z1", "role": "user", "content": "We decided to name the staging bucket zanzibar."}]

    async def recalled(caller: Caller) -> list[dict[str, Any]]:
        answer = await caller.http.post("/v1/context/user", json={"query": "zanzibar", "limit": 3})
        assert answer.status_code == 200, answer.text
        return list(answer.json()["insights"])

    await open_thread(alice, "t", "Buckets", said)
    assert (await run_job(alice.http, "/v1/threads/t/extract"))["status"] == "done"
    [hit] = await recalled(alice)
    assert "zanzibar" in hit["content"] and hit["textScore"] > 0 and -1 <= hit["score"] <= 1
    more = [
        {"id": f"z{n}", "role": "user", "content": f"Zanzibar bucket {n} was decided for logs."}
        for n in range(2, 8)
    ]
    await open_thread(mallory, "t", "Buckets", said + more)
    assert (await run_job(mallory.http, "/v1/threads/t/extract"))["status"] == "done"
    assert await recalled(alice) == [hit]  # Lucene's statistics moved; Alice's scores did not
    theirs = await recalled(mallory)
    assert theirs and hit["id"] not in {t["id"] for t in theirs}

    await db.driver.execute_query(  # as an older build stored it
        "MATCH (i:Insight {userId: $userId}) REMOVE i.tenantKey", userId=alice.user_id, database_=db.database
    )
    assert "textScore" not in (await recalled(alice))[0]  # the keyword half cannot see it
    await migrate(db, embedder_dimension(settings))
    assert (await recalled(alice))[0]["textScore"] > 0


async def test_recall_shows_each_insight_as_the_listing_does(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await open_thread(alice, "t", "Billing platform", CONVERSATION)
    assert (await run_job(alice.http, "/v1/threads/t/feedback-loop"))["status"] == "done"
    listed = {i["id"]: i for i in (await alice.http.get("/v1/insights")).json()["items"]}
    assert sum(1 for i in listed.values() if i["knowledgeIds"]) == 3, "notes of the 3 valid ones"
    recalled = (
        await alice.http.post("/v1/context/user", json={"query": "billing database", "limit": 10})
    ).json()["insights"]
    assert {i["id"] for i in recalled} == set(listed)
    for insight in recalled:
        expected = listed[insight["id"]]
        for field in ("messageId", "knowledgeIds", "extractedAt", "threadId", "content"):
            assert insight[field] == expected[field], (field, insight)


async def test_insights_and_jobs_are_private(make_caller: MakeCaller) -> None:
    alice, mallory = await make_caller(), await make_caller()
    await open_thread(alice, "t", "Private", CONVERSATION)
    job = await alice.http.post("/v1/threads/t/extract")
    job_id = job.json()["jobId"]
    assert (await mallory.http.get(f"/v1/jobs/{job_id}")).status_code == 404
    assert (await mallory.http.post("/v1/threads/t/extract")).status_code == 404
    assert (await mallory.http.post("/v1/threads/t/consolidate")).status_code == 404
    await run_job(alice.http, "/v1/threads/t/extract")
    assert (await mallory.http.get("/v1/insights")).json()["items"] == []
    recalled = (await mallory.http.post("/v1/context/user", json={"query": "dark mode"})).json()
    assert recalled == {"insights": [], "recentTopics": []}


# --- the LLM extractor through the stub --------------------------------------------------------------
@pytest.fixture(scope="module")
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


@pytest.fixture(scope="module")
def llm_api(
    stub: OpenAIStub, neo4j_server: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ApiProcess]:
    env = {
        "CTXNET_API_KEY_CACHE_SECONDS": "0",
        "CTXNET_LLM_MODEL": "stub-model",
        "CTXNET_LLM_BASE_URL": stub.base_url,
        "CTXNET_LLM_API_KEY": "test",
        "CTXNET_LLM_MAX_RETRIES": "2",
    }
    with running_api(tmp_path_factory.mktemp("llm-api") / "api.log", env) as process:
        yield process


def answer(*insights: tuple[str, str, float, str]) -> dict[str, Any]:
    return chat_answer(
        json.dumps(
            {
                "insights": [
                    {"type": t, "content": c, "confidence": p, "messageId": m} for t, c, p, m in insights
                ]
            }
        )
    )


async def test_llm_pipeline_scripted_answers(stub: OpenAIStub, llm_api: ApiProcess, db: Database) -> None:
    user = f"llm-pipeline-{uuid.uuid4().hex[:12]}"  # a fresh user, as make_caller makes
    _, key = await ApiKeys(db).create(user, Role.AGENT, agent_id="planner")
    async with httpx.AsyncClient(
        base_url=llm_api.base_url, headers={"Authorization": f"Bearer {key}"}
    ) as http:
        caller = Caller(user, key, "", http, [])
        try:
            await open_thread(caller, "t", "Billing platform", CONVERSATION)
            good = answer(
                ("preference", "Prefers dark mode in editors", 0.92, "m1"),
                ("decision", "Uses Postgres for billing", 0.85, "m4"),
            )
            # good JSON
            stub.script.append((200, good))
            job = await run_job(http, "/v1/threads/t/extract")
            assert job["status"] == "done" and job["counts"]["stored"] == 2, job
            insights = (await http.get("/v1/insights", params={"threadId": "t"})).json()["items"]
            assert {i["extractor"] for i in insights} == {"llm:stub-model"}
            # invalid JSON, then good: re-asked once, nothing duplicated
            stub.script.extend([(200, chat_answer("{oops")), (200, good)])
            assert (await run_job(http, "/v1/threads/t/extract"))["counts"] == {
                "messages": 5,
                "extracted": 2,
                "stored": 0,
            }
            # 429, then good
            stub.script.extend([(429, {"error": {"message": "slow down"}}), (200, good)])
            assert (await run_job(http, "/v1/threads/t/extract"))["status"] == "done"
            # 500 until the retries run out: the job fails with the reason, nothing is written
            await open_thread(
                caller, "t2", "Other", [{"id": "n1", "role": "user", "content": "I prefer tea."}]
            )
            stub.script.extend([(500, {"error": {"message": "boom"}})] * 3)
            failed = await run_job(http, "/v1/threads/t2/extract")
            assert failed["status"] == "failed" and "LLM endpoint failed" in failed["error"], failed
            assert (await http.get("/v1/insights", params={"threadId": "t2"})).json()["items"] == []

            # Consolidation: > 0.8 insights become knowledge with provenance; twice changes nothing.
            first = (await http.post("/v1/threads/t/consolidate")).json()
            assert first == {"consolidated": 2, "created": 2, "updated": 0}
            second = (await http.post("/v1/threads/t/consolidate")).json()
            assert second == {"consolidated": 0, "created": 0, "updated": 0}
            notes = (await http.get("/v1/knowledge", params={"source": "conversation"})).json()["items"]
            assert sorted(n["content"] for n in notes) == [
                "Prefers dark mode in editors",
                "Uses Postgres for billing",
            ]
        finally:
            await forget_user(db, user)


async def test_a_fact_from_a_conversation_is_true_from_when_it_was_said_and_recall_drops_it_once_ended(
    make_caller: MakeCaller,
) -> None:
    alice = await make_caller()
    said = [m | {"createdAt": f"2026-03-0{i + 1}T10:00:00Z"} for i, m in enumerate(CONVERSATION)]
    await open_thread(alice, "t", "Billing platform", said)
    assert (await run_job(alice.http, "/v1/threads/t/feedback-loop"))["status"] == "done"
    insights = (await alice.http.get("/v1/insights", params={"threadId": "t"})).json()["items"]
    [decision] = [i for i in insights if i["type"] == "decision"]
    [note_id] = decision["knowledgeIds"]
    note = (await alice.http.get(f"/v1/knowledge/{note_id}")).json()
    assert note["validFrom"] == "2026-03-04T10:00:00.000+00:00"  # when m4 was said

    async def recalled() -> list[str]:
        body = {"query": "which database do we use for billing?", "limit": 10}
        return [i["id"] for i in (await alice.http.post("/v1/context/user", json=body)).json()["insights"]]

    assert decision["id"] in await recalled()
    ended = await alice.http.post(f"/v1/knowledge/{note_id}/invalidate", json={"reason": "moved to MySQL"})
    assert ended.status_code == 200, ended.text
    assert decision["id"] not in await recalled()
