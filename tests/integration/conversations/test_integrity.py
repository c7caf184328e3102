"""Conversation memory under concurrent callers and against people's edits, over real HTTP:
ordered appends, a feedback loop that never overrides or resurrects what a person changed,
one extraction per thread at a time, and jobs that end even when their process dies."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from graph.core.db import Database
from graph.core.principals import ApiKeys, Role
from graph.core.users import forget_user
from tests.integration.conftest import MakeCaller, inspect
from tests.integration.conversations.test_insights import CONVERSATION, open_thread, run_job
from tests.support.openai_stub import OpenAIStub
from tests.support.servers import ApiProcess


async def test_concurrent_appends_keep_one_order(
    make_caller: MakeCaller, peer_api: ApiProcess, db: Database
) -> None:
    alice = await make_caller()
    clients = [alice.http, alice.client(peer_api.base_url)]
    await alice.http.post("/v1/threads", json={"id": "chat", "topic": "Standup"})
    answers = await asyncio.gather(
        *(
            clients[i % 2].post(
                "/v1/threads/chat/messages", json={"messages": [{"role": "user", "content": f"message {i}"}]}
            )
            for i in range(8)
        )
    )
    assert [r.status_code for r in answers] == [201] * 8, [r.text for r in answers]
    messages = (await alice.http.get("/v1/threads/chat/messages")).json()["items"]
    assert [m["seq"] for m in messages] == list(range(1, 9))
    assert sorted(m["content"] for m in messages) == sorted(f"message {i}" for i in range(8))
    # Each answer reports the seq its own message got.
    assert sorted(r.json()["items"][0]["seq"] for r in answers) == list(range(1, 9))
    thread = (await alice.http.get("/v1/threads/chat")).json()
    assert thread["messageCount"] == 8
    # In the graph: one chain of NEXT from seq 1 to seq 8, and one LAST_MESSAGE to seq 8.
    [chain] = await db.read(
        "queries/conversations/thread_messages_all", userId=alice.user_id, threadId="chat"
    )
    assert [r["content"] for r in chain["rows"]] == [m["content"] for m in messages]
    [shape] = await inspect(
        db,
        """MATCH (t:Thread {userId: $userId, id: 'chat'})
           RETURN COUNT { (t)-[:HAS_MESSAGE]->(:Message)-[:NEXT]->(:Message) } AS next,
                  [(t)-[:LAST_MESSAGE]->(m) | m.seq] AS last,
                  COUNT { (t)-[:HAS_MESSAGE]->(m:Message) WHERE NOT EXISTS { ()-[:NEXT]->(m) } } AS heads""",
        userId=alice.user_id,
    )
    assert shape == {"next": 7, "last": [8], "heads": 1}


async def test_the_loop_never_overrides_nor_resurrects_a_persons_change(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await open_thread(alice, "t", "Billing platform", CONVERSATION)
    first = await run_job(alice.http, "/v1/threads/t/feedback-loop")
    assert first["status"] == "done" and first["counts"]["created"] == 3, first
    derived = {
        i["type"]: i["knowledgeIds"][0]
        for i in (await alice.http.get("/v1/insights", params={"threadId": "t"})).json()["items"]
        if i["knowledgeIds"]
    }
    edited, deleted = derived["preference"], derived["fact"]
    patch = {"content": "I prefer light mode, actually (corrected by hand)."}
    assert (await alice.http.patch(f"/v1/knowledge/{edited}", json=patch)).status_code == 200
    assert (await alice.http.delete(f"/v1/knowledge/{deleted}")).status_code == 204

    rerun = await run_job(alice.http, "/v1/threads/t/feedback-loop")
    assert rerun["status"] == "done", rerun
    assert rerun["counts"] == {"extracted": 4, "valid": 3, "created": 0, "updated": 0, "unchanged": 3}
    assert (await alice.http.get(f"/v1/knowledge/{edited}")).json()["content"] == patch["content"]
    assert (await alice.http.get(f"/v1/knowledge/{deleted}")).status_code == 404
    assert len((await alice.http.get("/v1/knowledge")).json()["items"]) == 2


@pytest.mark.smoke
async def test_pipeline_writes_carry_the_system_role(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller(role=Role.HUMAN)
    await open_thread(alice, "t", "Billing platform", CONVERSATION)
    assert (await run_job(alice.http, "/v1/threads/t/feedback-loop"))["status"] == "done"
    rows = await inspect(
        db,
        "MATCH (n:Knowledge {userId: $userId}) RETURN n.createdByRole AS role, n.createdByAgent AS agent",
        userId=alice.user_id,
    )
    assert len(rows) == 3 and {(r["role"], r["agent"]) for r in rows} == {("system", "extractor:rules-v1")}


async def test_one_extraction_per_thread_at_a_time(make_caller: MakeCaller, peer_api: ApiProcess) -> None:
    alice = await make_caller()
    peer = alice.client(peer_api.base_url)
    # A long thread (200 insights to embed and store), so the job is still live when the last
    # of the four simultaneous starts arrives: a short one can end in between, and then a
    # second job may rightly start.
    long = [
        {**m, "id": f"{m['id']}-{k}", "content": f"{m['content']} ({k})"}
        for k in range(50)
        for m in CONVERSATION
    ]
    await open_thread(alice, "t", "Billing platform", long)
    started = await asyncio.gather(
        *(http.post("/v1/threads/t/extract") for http in (alice.http, peer, alice.http, peer))
    )
    assert [r.status_code for r in started] == [202] * 4
    [job_id] = {r.json()["jobId"] for r in started}
    for _ in range(600):
        job = (await alice.http.get(f"/v1/jobs/{job_id}")).json()
        if job["status"] != "running" and job["status"] != "queued":
            break
        await asyncio.sleep(0.05)
    assert job["status"] == "done" and job["counts"]["stored"] == 200, job
    again = await run_job(alice.http, "/v1/threads/t/extract")  # once it ended, a new one starts
    assert again["id"] != job_id and again["status"] == "done" and again["counts"]["stored"] == 0


async def test_recall_through_the_index_plan_is_exact_and_private(
    make_caller: MakeCaller, peer_api: ApiProcess
) -> None:
    alice, mallory = await make_caller(), await make_caller()
    for caller in (alice, mallory):
        await open_thread(caller, "t", "Billing platform", CONVERSATION)
        assert (await run_job(caller.http, "/v1/threads/t/extract"))["status"] == "done"
    query = {"query": "which database do we use for billing?", "limit": 4}
    exact = (await alice.http.post("/v1/context/user", json=query)).json()["insights"]
    indexed = (await alice.client(peer_api.base_url).post("/v1/context/user", json=query)).json()["insights"]
    assert [i["id"] for i in indexed] == [i["id"] for i in exact] and len(exact) == 4
    assert [round(i["score"], 5) for i in indexed] == [round(i["score"], 5) for i in exact]
    mine = {i["id"] for i in (await alice.http.get("/v1/insights")).json()["items"]}
    assert {i["id"] for i in indexed} <= mine


async def test_search_and_dedupe_through_the_index_plan(
    make_caller: MakeCaller, peer_api: ApiProcess
) -> None:
    alice, bob = await make_caller(), await make_caller()
    body = {"title": "Deploys", "content": "Deploys go out on Tuesdays after the review.", "type": "fact"}
    bob_note = (await bob.http.post("/v1/knowledge", json=body)).json()["node"]["id"]
    peer = alice.client(peer_api.base_url)
    first = await peer.post("/v1/knowledge", json=body)
    assert first.status_code == 201, first.text  # bob's identical note is no twin of alice's
    twin = await peer.post("/v1/knowledge", json={**body, "content": body["content"] + "!"})
    assert twin.status_code == 200 and twin.json()["mergedInto"] == first.json()["node"]["id"]
    found = (
        await peer.post("/v1/search", json={"query": "when do deploys go out?", "mode": "vector"})
    ).json()
    assert found["plan"].startswith("index(")
    assert [h["node"]["id"] for h in found["hits"]] == [first.json()["node"]["id"]]
    assert bob_note not in {h["node"]["id"] for h in found["hits"]}


async def test_forgetting_a_user_refuses_what_would_write_them_back(
    make_caller: MakeCaller, peer_api: ApiProcess, db: Database
) -> None:
    alice = await make_caller()
    peer = alice.client(peer_api.base_url)
    await open_thread(alice, "t", "Billing platform", CONVERSATION)
    assert (await peer.get("/v1/me")).status_code == 200  # the peer now trusts the key for 5 s
    await forget_user(db, alice.user_id)
    late = await peer.post(
        "/v1/knowledge", json={"title": "Late", "content": "Written after.", "type": "fact"}
    )
    assert late.status_code == 401, late.text
    left = await inspect(db, "MATCH (n {userId: $userId}) RETURN labels(n) AS labels", userId=alice.user_id)
    assert left == [{"labels": ["Tenant"]}], "only the tombstone is left"
    # A new key for the id starts the user again from nothing.
    _, secret = await ApiKeys(db).create(alice.user_id, Role.HUMAN)
    async with httpx.AsyncClient(
        base_url=peer.base_url, headers={"Authorization": f"Bearer {secret}"}
    ) as http:
        again = await http.post(
            "/v1/knowledge", json={"title": "New", "content": "A fresh start.", "type": "fact"}
        )
        assert again.status_code == 201, again.text


# --- jobs whose process dies ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def slow_llm() -> Iterator[OpenAIStub]:
    with OpenAIStub(dimension=384) as stub:
        stub.chat_delay_seconds = 30.0
        yield stub


async def test_a_job_whose_process_dies_is_failed_within_its_lease(
    slow_llm: OpenAIStub, db: Database, tmp_path: Path, api: ApiProcess
) -> None:
    user = f"job-lease-{uuid.uuid4().hex[:12]}"  # a fresh user, as make_caller makes
    _, key = await ApiKeys(db).create(user, Role.AGENT, agent_id="planner")
    env = {
        "CTXNET_EXTRACTOR": "llm",
        "CTXNET_LLM_MODEL": "stub",
        "CTXNET_LLM_BASE_URL": slow_llm.base_url,
        "CTXNET_LLM_API_KEY": "test",
        "CTXNET_JOB_LEASE_SECONDS": "3",
    }
    doomed = ApiProcess(tmp_path / "doomed.log", env).start()
    headers = {"Authorization": f"Bearer {key}"}
    try:
        doomed.wait_ready()
        async with httpx.AsyncClient(base_url=doomed.base_url, headers=headers, timeout=30) as http:
            await http.post("/v1/threads", json={"id": "t", "topic": "Billing"})
            await http.post("/v1/threads/t/messages", json={"messages": CONVERSATION})
            job_id = (await http.post("/v1/threads/t/extract")).json()["jobId"]
            await asyncio.sleep(1.0)  # the job is waiting on the LLM
        assert doomed.process is not None
        os.kill(doomed.process.pid, signal.SIGKILL)
        doomed.process.wait()
        async with httpx.AsyncClient(base_url=api.base_url, headers=headers, timeout=30) as http:
            deadline = time.monotonic() + 15
            while True:
                job = (await http.get(f"/v1/jobs/{job_id}")).json()
                if job["status"] == "failed" or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.5)
            assert job["status"] == "failed", job
            assert "stopped or hung" in job["error"]
            # The thread is free for a new extraction at once.
            again = (await http.post("/v1/threads/t/extract")).json()["jobId"]
            assert again != job_id
    finally:
        doomed.stop()
        await forget_user(db, user)
