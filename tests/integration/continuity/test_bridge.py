"""The context bridge over HTTP against the real Neo4j: what a session starts with.

One API process for the module, with an agents file: `assistant` (the last 2 sessions,
the profile), `private` (no profile), `importer` (bridge disabled).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from graph.continuity.tokens import TokenCounter
from graph.core.db import Database
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.integration.conversations.test_insights import open_thread, run_job
from tests.support.openai_stub import OpenAIStub
from tests.support.plans import explained
from tests.support.servers import ApiProcess

AGENTS = """
defaults:
  contextBridge: {enabled: true, recentSessions: 3, includeProfile: true, tokenBudget: 2000}
agents:
  - id: assistant
    contextBridge: {enabled: true, recentSessions: 2, includeProfile: true, tokenBudget: 3000}
  - id: private
    contextBridge: {enabled: true, recentSessions: 2, includeProfile: false}
  - id: importer
    contextBridge: {enabled: false}
"""

COUNTER = TokenCounter()


@pytest.fixture(scope="module")
def bridge_api(neo4j_server: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    folder = tmp_path_factory.mktemp("bridge-api")
    (folder / "agents.yml").write_text(AGENTS)
    api = ApiProcess(folder / "api.log", {"CTXNET_AGENTS_FILE": str(folder / "agents.yml")}).start()
    try:
        api.wait_ready()
        yield api
    finally:
        api.stop()


async def agent(
    make_caller: MakeCaller, api: ApiProcess, agent_id: str, user_id: str | None = None
) -> Caller:
    """A caller with an agent key, talking to the module's API."""
    caller = await make_caller(Role.AGENT, agent_id=agent_id, user_id=user_id)
    caller.http = caller.client(api.base_url)
    return caller


async def session(caller: Caller, topic: str | None = None, **end: Any) -> dict[str, Any]:
    """Start a session; end it with ``end`` when given. Returns the start's answer."""
    started = await caller.http.post("/v1/sessions", json={"topic": topic} if topic else {})
    assert started.status_code == 201, started.text
    body: dict[str, Any] = started.json()
    if end:
        ended = await caller.http.post(f"/v1/sessions/{body['session']['id']}/end", json=end)
        assert ended.status_code == 200, ended.text
        body["ended"] = ended.json()
    return body


async def note(caller: Caller, title: str, content: str, **more: Any) -> None:
    answer = await caller.http.post(
        "/v1/knowledge", json={"title": title, "content": content, "type": "fact", **more}
    )
    assert answer.status_code == 201, answer.text


async def bridge(caller: Caller, **request: Any) -> dict[str, Any]:
    answer = await caller.http.post("/v1/context/bridge", json=request)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


async def test_the_last_n_sessions_of_this_agent_with_this_user_newest_first(
    make_caller: MakeCaller, bridge_api: ApiProcess
) -> None:
    alice = await agent(make_caller, bridge_api, "assistant")
    helper = await agent(make_caller, bridge_api, "private", alice.user_id)
    bob = await agent(make_caller, bridge_api, "assistant")
    for n in (1, 2, 3):
        await session(alice, f"part {n}", summary=f"We planned part {n} of the cache rollout.",
                      keyDecisions=[f"Ship part {n} behind a flag"], topics=[f"rollout-{n}"])  # fmt: skip
    await session(helper, summary="The helper reviewed invoices with the user.")
    await session(bob, summary="Bob and the assistant talked about billing.")

    started = await session(alice, "part 4")
    block = started["bridge"]
    assert block["enabled"] is True and block["agentId"] == "assistant"
    recent = block["sections"]["recentSessions"]
    assert [s["summary"] for s in recent] == [
        "We planned part 3 of the cache rollout.",
        "We planned part 2 of the cache rollout.",
    ]  # N = 2, newest first; the session just started (open) is not among them
    assert recent[0]["keyDecisions"] == ["Ship part 3 behind a flag"] and recent[0]["topics"] == ["rollout-3"]
    text = block["text"]
    assert text.index("part 3 of the cache") < text.index("part 2 of the cache")
    assert "part 1 of the cache" not in text
    day = recent[0]["startedAt"][:10]
    assert f"On {day}" in text and "Decided then: Ship part 3 behind a flag." in text  # dated, past tense
    assert "invoices" not in text and "billing" not in text  # another agent, another user
    assert block["tokens"] == COUNTER.count(text) and block["tokens"] <= block["tokenBudget"] == 3000
    assert block["tokenizer"].startswith("o200k_base")

    # The other agent of the same user gets its own chain only.
    other = await bridge(helper)
    assert [s["summary"] for s in other["sections"]["recentSessions"]] == [
        "The helper reviewed invoices with the user."
    ]


async def test_pending_actions_surface_until_cleared_and_carry_across_three_sessions(
    make_caller: MakeCaller, bridge_api: ApiProcess
) -> None:
    alice = await agent(make_caller, bridge_api, "assistant")
    first = await session(
        alice,
        summary="We reviewed PR #42.",
        pendingActions=["Follow up on PR #42", "Revisit caching strategy"],
    )
    follow_up, revisit = (p["id"] for p in first["ended"]["pendingActions"])

    second = await session(alice, "PR review")
    pending = second["bridge"]["sections"]["pendingActions"]
    assert [p["text"] for p in pending] == ["Follow up on PR #42", "Revisit caching strategy"]
    text = second["bridge"]["text"]
    assert text.index("## Open pending actions (2)") < text.index("## Earlier sessions")  # at the top
    assert "Follow up on PR #42 (left open today" in text

    second_id = second["session"]["id"]
    carried = await alice.http.post(f"/v1/pending-actions/{follow_up}/carry", json={"sessionId": second_id})
    assert carried.status_code == 200, carried.text
    cleared = await alice.http.post(f"/v1/pending-actions/{revisit}/ack", json={"resolution": "Kept LRU."})
    assert cleared.status_code == 200, cleared.text
    ended = await alice.http.post(
        f"/v1/sessions/{second_id}/end",
        json={"summary": "PR #42 still waits.", "pendingActions": ["Ping Dana"]},
    )
    assert ended.status_code == 200

    third = await session(alice, "next")
    pending = third["bridge"]["sections"]["pendingActions"]
    assert [(p["text"], p["carriedCount"]) for p in pending] == [("Follow up on PR #42", 1), ("Ping Dana", 0)]
    assert pending[0]["sessionId"] == second_id and pending[0]["originSessionId"] == first["session"]["id"]
    assert "Revisit caching strategy" not in third["bridge"]["text"]
    assert "carried forward 1 time" in third["bridge"]["text"]

    # Another agent of the user does not get the assistant's open items.
    helper = await agent(make_caller, bridge_api, "private", alice.user_id)
    assert (await bridge(helper))["sections"]["pendingActions"] == []


async def test_the_profile_is_included_only_where_configured(
    make_caller: MakeCaller, bridge_api: ApiProcess
) -> None:
    alice = await agent(make_caller, bridge_api, "assistant")
    private = await agent(make_caller, bridge_api, "private", alice.user_id)
    put = await alice.http.put(
        "/v1/profile", json={"preferences": {"editor theme": "dark", "units": "metric"}, "background": "SRE."}
    )
    assert put.status_code == 200, put.text

    included = await bridge(alice)
    assert included["sections"]["profile"]["preferences"] == {"editor theme": "dark", "units": "metric"}
    assert (
        "## The user\nBackground: SRE.\nPreferences:\n- editor theme: dark\n- units: metric"
        in included["text"]
    )
    excluded = await bridge(private)
    assert "profile" not in excluded["sections"]
    assert "SRE." not in excluded["text"] and "editor theme" not in excluded["text"]


async def test_memory_on_the_opening_topic_comes_from_notes_and_insights(
    make_caller: MakeCaller, bridge_api: ApiProcess
) -> None:
    alice = await agent(make_caller, bridge_api, "assistant")
    await note(alice, "Session cache", "The session cache runs on Redis with a 30 minute TTL.", id="redis")
    await note(alice, "Cache eviction", "Cache entries are evicted least recently used first.", id="lru")
    await note(alice, "Gardening", "Tulip bulbs are planted in autumn, pointy end up.", id="tulips")
    await open_thread(alice, "t", "Caching", [
        {"id": "m1", "role": "user", "content": "I prefer Redis over Memcached for every cache we run."},
    ])  # fmt: skip
    assert (await run_job(alice.http, "/v1/threads/t/extract"))["status"] == "done"

    block = await bridge(alice, topic="How should we configure the Redis cache?")
    memory = block["sections"]["memory"]
    kinds = {(m["kind"], m["id"]) for m in memory}
    assert ("note", "redis") in kinds and ("note", "lru") in kinds
    assert any(kind == "insight" for kind, _ in kinds)
    assert ("note", "tulips") not in kinds  # not close to the topic: no filler
    assert '## What you know about "How should we configure the Redis cache?"' in block["text"]
    assert "[insight, preference, from a conversation of" in block["text"]
    assert [m["relevance"] for m in memory] == sorted((m["relevance"] for m in memory), reverse=True)

    none = await bridge(alice)  # no topic: no memory section
    assert none["sections"]["memory"] == [] and "## What you know" not in none["text"]


async def test_the_budget_is_respected_and_what_was_dropped_is_reported(
    make_caller: MakeCaller, bridge_api: ApiProcess
) -> None:
    alice = await agent(make_caller, bridge_api, "assistant")
    for n in (1, 2):
        await session(alice, summary=f"Session {n}: we tuned the cache for the checkout service at length.",
                      pendingActions=[f"Load-test the checkout cache, round {n}"])  # fmt: skip
    await alice.http.put("/v1/profile", json={"preferences": {"editor theme": "dark"}})
    facts = [
        "The checkout cache keeps carts for thirty minutes.",
        "Checkout cache misses fall back to the Postgres replica.",
        "The checkout cache is warmed from last week's top products at 6am.",
        "Cache keys for checkout include the currency and the region.",
        "Tuning the checkout cache halved the payment page latency.",
    ]
    for n, fact in enumerate(facts):
        await note(alice, f"Checkout cache fact {n}", fact)

    full = await bridge(alice, topic="checkout cache tuning", tokenBudget=5000)
    assert full["dropped"] == [] and len(full["sections"]["memory"]) == 5
    everything = {(s, item["id"]) for s in ("recentSessions", "pendingActions", "memory")
                  for item in full["sections"][s]} | {("profile", "profile")}  # fmt: skip
    previous_kept = everything
    for budget in (400, 300, 200, 120):
        block = await bridge(alice, topic="checkout cache tuning", tokenBudget=budget)
        assert block["tokenBudget"] == budget
        assert block["tokens"] == COUNTER.count(block["text"]) <= budget, (budget, block["text"])
        kept = {(s, item["id"]) for s in ("recentSessions", "pendingActions", "memory")
                for item in block["sections"][s]}  # fmt: skip
        if block["sections"].get("profile"):
            kept.add(("profile", "profile"))
        dropped = [(d["section"], d["id"]) for d in block["dropped"]]
        assert kept | set(dropped) == everything and not kept & set(dropped), budget
        assert kept <= previous_kept  # a smaller budget keeps a subset
        previous_kept = kept
        sections = [s for s, _ in dropped]
        order = ["memory", "recentSessions", "profile", "pendingActions"]
        assert sections == sorted(sections, key=order.index), sections  # memory goes first
        if "recentSessions" in sections:
            assert not block["sections"]["memory"]
        assert all(d["tokens"] > 0 for d in block["dropped"])
    # At 200 tokens the open items and the profile are still whole.
    small = await bridge(alice, topic="checkout cache tuning", tokenBudget=200)
    assert len(small["sections"]["pendingActions"]) == 2 and small["sections"]["profile"]

    default = await bridge(alice, topic="checkout cache tuning")
    assert default["tokenBudget"] == 3000  # the agent's own budget
    refused = await alice.http.post("/v1/context/bridge", json={"tokenBudget": 10})
    assert refused.status_code == 422 and "tokenBudget" in refused.text


async def test_a_disabled_agent_gets_no_block_and_is_told_so(
    make_caller: MakeCaller, bridge_api: ApiProcess
) -> None:
    importer = await agent(make_caller, bridge_api, "importer")
    await session(importer, summary="Imported 1,000 notes.", pendingActions=["Import the rest"])
    started = await session(importer, "more imports")
    block = started["bridge"]
    assert block["enabled"] is False and "text" not in block and block["tokens"] == 0
    assert "disabled" in block["reason"] and "importer" in block["reason"]
    assert block["sections"]["recentSessions"] == [] and block["sections"]["pendingActions"] == []
    assert (await bridge(importer))["enabled"] is False


async def test_a_brand_new_user_gets_an_honest_short_block(
    make_caller: MakeCaller, bridge_api: ApiProcess
) -> None:
    veteran = await agent(make_caller, bridge_api, "assistant")
    await note(veteran, "Redis", "The cache runs on Redis.")
    await session(veteran, summary="We set up the Redis cache.", pendingActions=["Check Redis memory"])

    newcomer = await agent(make_caller, bridge_api, "assistant")
    started = await session(newcomer, "Redis cache")
    block = started["bridge"]
    assert block["sections"] == {"recentSessions": [], "pendingActions": [], "memory": []}
    assert "first session of agent `assistant` with this user" in block["text"]
    assert "no earlier sessions, no open pending actions" in block["text"]
    assert "Redis" not in block["text"].replace('nothing stored about "Redis cache"', "")  # nobody else's
    assert block["tokens"] < 80


async def test_the_block_never_appears_among_a_threads_messages(
    make_caller: MakeCaller, bridge_api: ApiProcess
) -> None:
    alice = await agent(make_caller, bridge_api, "assistant")
    await session(alice, summary="We talked about deploys.", pendingActions=["Write the runbook"])
    await open_thread(alice, "t", "Deploys", [{"id": "m1", "role": "user", "content": "Hello again."}])
    started = await alice.http.post("/v1/sessions", json={"topic": "deploys", "threadId": "t"})
    assert started.status_code == 201 and "Write the runbook" in started.json()["bridge"]["text"]
    messages = (await alice.http.get("/v1/threads/t/messages")).json()["items"]
    assert [m["id"] for m in messages] == ["m1"]


async def test_users_never_see_each_others_bridge(make_caller: MakeCaller, bridge_api: ApiProcess) -> None:
    alice = await agent(make_caller, bridge_api, "assistant")
    mallory = await agent(make_caller, bridge_api, "assistant")
    await session(alice, summary="Alice's secret plan for the merger.", pendingActions=["Call the bank"])
    await alice.http.put("/v1/profile", json={"background": "Alice is the CFO."})
    await note(alice, "Merger", "The merger closes in March.")
    before = await bridge(mallory, topic="the merger")

    # What alice stores never shows up in, nor changes, what mallory gets.
    texts = [
        (await bridge(mallory, topic="the merger"))["text"],
        (await session(mallory, "the merger"))["bridge"]["text"],
    ]
    for text in texts:
        for secret in ("secret plan", "Call the bank", "CFO", "closes in March"):
            assert secret not in text
    after = await bridge(mallory, topic="the merger")
    assert after["sections"] == before["sections"] and after["tokens"] == before["tokens"]


async def test_sessions_started_at_once_each_get_a_bridge(
    make_caller: MakeCaller, bridge_api: ApiProcess
) -> None:
    alice = await agent(make_caller, bridge_api, "assistant")
    await session(alice, summary="We sketched the API.", pendingActions=["Write the OpenAPI file"])
    answers = await asyncio.gather(
        *(alice.http.post("/v1/sessions", json={"id": f"s{i}", "topic": "API"}) for i in range(6))
    )
    assert [a.status_code for a in answers] == [201] * 6
    for answer in answers:
        block = answer.json()["bridge"]
        assert [p["text"] for p in block["sections"]["pendingActions"]] == ["Write the OpenAPI file"]
        assert [s["summary"] for s in block["sections"]["recentSessions"]] == ["We sketched the API."]


async def test_a_key_without_an_agent_names_one(make_caller: MakeCaller, bridge_api: ApiProcess) -> None:
    person = await make_caller(Role.HUMAN)
    http = person.client(bridge_api.base_url)
    refused = await http.post("/v1/context/bridge", json={})
    assert refused.status_code == 403 and refused.json()["error"]["field"] == "agentId"
    assert refused.json()["error"]["message"] == "a person's key names the agent the session is for: agentId"
    assert (await http.post("/v1/context/bridge", json={"agentId": "assistant"})).json()["enabled"] is True
    assert httpx.post(f"{bridge_api.base_url}/v1/context/bridge", json={}).status_code == 401


async def test_open_sessions_in_between_do_not_hide_the_last_ended_ones(
    make_caller: MakeCaller, bridge_api: ApiProcess
) -> None:
    alice = await agent(make_caller, bridge_api, "assistant")
    await session(alice, summary="We shipped the release.")
    for _ in range(5):
        await session(alice)  # started, never ended (an agent that crashed)
    recent = (await bridge(alice))["sections"]["recentSessions"]
    assert [s["summary"] for s in recent] == ["We shipped the release."]


async def test_the_history_is_read_in_index_order_not_sorted(db: Database) -> None:
    """However long an agent's history, a start and a bridge read only its newest sessions:
    an ordered index seek and a limit, no sort over every session."""
    params = {
        "userId": "u", "agentId": "a", "recentSessions": 3, "maxPending": 500, "includeProfile": True,
        "id": "s", "topic": None, "openingMessage": None, "threadId": None,
    }  # fmt: skip
    for name in ("queries/continuity/bridge_context", "queries/continuity/session_start"):
        operators = await explained(db, name, params)
        assert any("Session(userId, agentId, startedAt)" in details for _, details in operators), operators
        sorts = [d for op, d in operators if op in ("Sort", "Top", "PartialTop", "PartialSort")]
        assert not [d for d in sorts if "startedAt" in d], sorts


async def test_a_session_starts_warm_even_when_the_embedder_fails(
    make_caller: MakeCaller, neo4j_server: None, tmp_path: Path
) -> None:
    with OpenAIStub(dimension=384) as stub:
        env = {
            "CTXNET_EMBEDDER": "openai",
            "CTXNET_EMBEDDING_MODEL": "stub",
            "CTXNET_EMBEDDING_BASE_URL": stub.base_url,
            "CTXNET_EMBEDDING_API_KEY": "test",
            "CTXNET_EMBEDDING_DIMENSION": "384",
            "CTXNET_EMBEDDING_MAX_RETRIES": "0",
            # The suite's other users hold the local model's vectors; this one's are the stub's.
            "CTXNET_SERVE_FOREIGN_VECTORS": "true",
        }
        api = ApiProcess(tmp_path / "api.log", env).start()
        try:
            api.wait_ready()
            alice = await agent(make_caller, api, "assistant")
            await session(alice, summary="We set up the cache.", pendingActions=["Load-test the cache"])
            stub.script.append((503, {"error": {"message": "embedder overloaded"}}))
            started = await alice.http.post("/v1/sessions", json={"topic": "the cache"})
            assert started.status_code == 201, started.text
            block = started.json()["bridge"]
            assert [p["text"] for p in block["sections"]["pendingActions"]] == ["Load-test the cache"]
            assert [s["summary"] for s in block["sections"]["recentSessions"]] == ["We set up the cache."]
            assert block["sections"]["memory"] == []
            assert any("embedder failed" in w for w in block["warnings"]), block
            healthy = await bridge(alice, topic="the cache")  # the embedder answers again
            assert healthy["warnings"] == []
        finally:
            api.stop()
