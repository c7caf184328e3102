"""LlamaIndex's ``Memory`` with :class:`ContextNetworkMemoryBlock` over the real API: what the
Memory flushes lands in a thread of the service, in order and attributed to the agent and
its session; a get serves a brief (or the bridge) on the latest messages within the budget,
and the Memory's own budget truncates it the way LlamaIndex's tests hold for their blocks; a
person's correction is what the block serves; users never meet; several callers at once.
No LLM: the frameworks' classes are driven directly."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory import Memory
from llama_index.core.memory.memory import InsertMethod
from llama_index.core.storage.chat_store.base_db import MessageStatus
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from ctxnet.client import Client, Forbidden, Proposed, Unauthenticated
from ctxnet.integrations.llamaindex import ContextNetworkMemoryBlock, MessageTooLarge, offline_tokenizer
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.support.doc_examples import example
from tests.support.servers import ApiProcess

TOKENS = offline_tokenizer()
REPLY = "let me look at the notes."
DEPLOY_NOTES = [
    ("Deploy region", "Production deploys go to the eu-west-1 region, never to another one."),
    ("Deploy window", "Production deploys happen on weekdays between 9:00 and 15:00 UTC."),
    ("Deploy approval", "Every production deploy needs one approval from the on-call engineer."),
    ("Deploy rollback", "A failed production deploy is rolled back by redeploying the previous tag."),
]

#: The LlamaIndex example of docs/integrations.md (the test below runs it as the page shows it).
LLAMAINDEX_EXAMPLE = example("integrations.md", "## LlamaIndex")


@pytest_asyncio.fixture
async def made() -> AsyncIterator[list[ContextNetworkMemoryBlock | AsyncEngine]]:
    """What a test made: blocks and the Memories' chat-store engines, closed afterwards."""
    things: list[ContextNetworkMemoryBlock | AsyncEngine] = []
    yield things
    for thing in things:
        if isinstance(thing, ContextNetworkMemoryBlock):
            thing.close()
        else:
            await thing.dispose()


def block_for(made: list[Any], api: ApiProcess, caller: Caller, **more: Any) -> ContextNetworkMemoryBlock:
    given: dict[str, Any] = {"url": api.base_url, "api_key": caller.key, "tokenizer_fn": TOKENS} | more
    block = ContextNetworkMemoryBlock(**given)
    made.append(block)
    return block


def memory_with(made: list[Any], block: ContextNetworkMemoryBlock, session: str, **more: Any) -> Memory:
    """A Memory whose short-term queue flushes after a few turns (100 tokens of chat)."""
    settings: dict[str, Any] = {"token_limit": 1_000, "chat_history_token_ratio": 0.1, "token_flush_size": 50}
    engine = create_async_engine("sqlite+aiosqlite:///:memory:")
    made.append(engine)
    return Memory.from_defaults(
        session_id=session,
        memory_blocks=[block],
        tokenizer_fn=TOKENS,
        async_engine=engine,
        **(settings | more),
    )


async def chat(memory: Memory, turns: int, topic: str = "where do production deploys go") -> None:
    for n in range(turns):
        await memory.aput(ChatMessage(role="user", content=f"Question {n}: {topic}?"))
        await memory.aput(ChatMessage(role="assistant", content=f"Answer {n}: {REPLY}"))


async def thread_messages(caller: Caller, thread_id: str) -> list[dict[str, Any]]:
    answer = await caller.http.get(f"/v1/threads/{thread_id}/messages", params={"limit": 1000})
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    return items


async def seed_notes(caller: Caller) -> None:
    notes = [{"title": t, "content": c, "type": "fact", "dedupe": False} for t, c in DEPLOY_NOTES]
    made = await caller.http.post("/v1/knowledge/batch", json={"items": notes})
    assert made.status_code in (200, 201), made.text


async def open_session(agent: Caller) -> str:
    started = await agent.http.post("/v1/sessions", json={"topic": "deploy questions"})
    assert started.status_code == 201, started.text
    session_id: str = started.json()["session"]["id"]
    return session_id


def system_text(messages: list[ChatMessage]) -> str:
    [system] = [m for m in messages if m.role == "system"]
    return system.content or ""


@pytest.mark.smoke
async def test_a_memory_flushes_into_a_thread_and_serves_a_brief(
    make_caller: MakeCaller, api: ApiProcess, made: list[Any]
) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="assistant", user_id=person.user_id)
    await seed_notes(person)
    session = await open_session(agent)
    block = block_for(made, api, agent, ctxnet_session_id=session, token_budget=400)
    memory = memory_with(made, block, "chat-1")
    await chat(memory, 8)

    flushed = await memory.aget_all(status=MessageStatus.ARCHIVED)
    stored = await thread_messages(agent, "llamaindex:chat-1")
    assert flushed and [(m["role"], m["content"]) for m in stored] == [
        (m.role.value, m.content) for m in flushed
    ]
    assert [m.content for m in await memory.aget_all(status=MessageStatus.ACTIVE)][-1] == f"Answer 7: {REPLY}"

    # Every appended message is the agent's, in its session.
    journal = await agent.http.get("/v1/mutations", params={"sessionId": session, "limit": 500})
    appended = [m for m in journal.json()["items"] if m["op"] == "message.append"]
    assert len(appended) == len(flushed)
    assert {(m["actor"]["role"], m["actor"]["agentId"], m["actor"]["sessionId"]) for m in appended} == {
        ("agent", "assistant", session)
    }

    # The block's text rides in the system message, as LlamaIndex formats a text block.
    text = system_text(await memory.aget())
    assert "<context_network>" in text and "eu-west-1" in text
    served = await block.aget([ChatMessage(role="user", content="where do production deploys go?")])
    assert len(TOKENS(served)) <= 400 and "eu-west-1" in served
    # A budget given to the Memory's get reaches the block (LlamaIndex passes block kwargs on).
    small = await block.aget([ChatMessage(role="user", content="production deploys")], token_budget=200)
    assert len(TOKENS(small)) <= 200 < len(TOKENS(served))
    # insert_method=USER puts the block into the latest user message instead.
    into_user = memory_with(made, block, "chat-1", insert_method=InsertMethod.USER)
    await into_user.aput(ChatMessage(role="user", content="where do production deploys go?"))
    got = await into_user.aget()
    assert [m.role for m in got] == ["user"] and "eu-west-1" in (got[-1].content or "")


async def test_the_memorys_budget_truncates_the_block_to_its_leading_lines(
    make_caller: MakeCaller, api: ApiProcess, made: list[Any]
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    await seed_notes(agent)
    block = block_for(made, api, agent, token_budget=2_000)
    asked = [ChatMessage(role="user", content="Tell me everything about production deploys")]
    whole = await block.aget(asked)
    assert len(TOKENS(whole)) > 250

    memory = memory_with(made, block, "tight", token_limit=250)
    await memory.aput(asked[0])
    served = system_text(await memory.aget())
    inner = served.split("<context_network>", 1)[1].split("</context_network>", 1)[0].strip()
    assert (
        inner and whole.startswith(inner) and len(TOKENS(inner)) <= 250 - len(TOKENS(asked[0].content or ""))
    )
    assert await block.atruncate(whole, len(TOKENS(whole))) is None  # nothing left: the block drops out

    # priority 0 is LlamaIndex's "never truncate": the block then comes whole.
    kept = memory_with(
        made, block_for(made, api, agent, token_budget=2_000, priority=0), "tight-0", token_limit=250
    )
    await kept.aput(asked[0])
    assert whole in system_text(await kept.aget())


async def test_the_bridge_carries_the_agents_last_sessions(
    make_caller: MakeCaller, api: ApiProcess, made: list[Any]
) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="assistant", user_id=person.user_id)
    session = await open_session(agent)
    ended = await agent.http.post(
        f"/v1/sessions/{session}/end", json={"summary": "We moved deploys to eu-west-1."}
    )
    assert ended.status_code == 200, ended.text

    asked = [ChatMessage(role="user", content="where do deploys go?")]
    block = block_for(made, api, agent, source="bridge", token_budget=300)
    text = await block.aget(asked)
    assert "We moved deploys to eu-west-1." in text and len(TOKENS(text)) <= 300
    assert "We moved deploys" in (
        await block_for(made, api, person, source="bridge", agent_id="assistant").aget(asked)
    )
    with pytest.raises(Forbidden):  # a person's key names the agent whose bridge it reads
        await block_for(made, api, person, source="bridge").aget(asked)


async def test_a_persons_correction_is_what_the_block_serves(
    make_caller: MakeCaller, api: ApiProcess, made: list[Any]
) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="assistant", user_id=person.user_id)
    wrong = {"id": "deploy-region", "title": "Deploy region", "type": "fact", "dedupe": False,
             "content": "Production deploys go to the us-east-1 region."}  # fmt: skip
    assert (await agent.http.post("/v1/knowledge", json=wrong)).status_code == 201
    right = {"content": "Production deploys go to the eu-west-1 region."}
    assert (await person.http.patch("/v1/knowledge/deploy-region", json=right)).status_code == 200
    with Client(api.base_url, agent.key) as cn, pytest.raises(Proposed) as held:
        cn.update_note("deploy-region", {"content": wrong["content"]})  # the agent's write waits
    assert held.value.proposal.id

    block = block_for(made, api, agent)
    memory = memory_with(made, block, "chat-2")
    await chat(memory, 8, "production deploys go to us-east-1, right")  # flushed: the agent's claim
    assert any("us-east-1" in m["content"] for m in await thread_messages(agent, "llamaindex:chat-2"))
    text = await block.aget([ChatMessage(role="user", content="which region do production deploys go to?")])
    assert "eu-west-1" in text and "us-east-1" not in text


async def test_users_never_see_each_others_memory(
    make_caller: MakeCaller, api: ApiProcess, made: list[Any]
) -> None:
    alice = await make_caller(Role.AGENT, agent_id="assistant")
    bob = await make_caller(Role.AGENT, agent_id="assistant")
    await seed_notes(alice)
    alices, bobs = block_for(made, api, alice), block_for(made, api, bob)
    await chat(memory_with(made, alices, "same-chat"), 8)
    await chat(memory_with(made, bobs, "same-chat"), 8, "what should I cook tonight")

    asked = [ChatMessage(role="user", content="where do production deploys go?")]
    assert "eu-west-1" in await alices.aget(asked)
    assert await bobs.aget(asked) == ""  # nothing of bob's is relevant, nothing of alice's shows
    theirs = {m["content"] for m in await thread_messages(bob, "llamaindex:same-chat")}
    assert theirs and all("cook" in c or "notes" in c for c in theirs)
    assert not {m["content"] for m in await thread_messages(alice, "llamaindex:same-chat")} & {
        c for c in theirs if "cook" in c
    }


async def test_several_callers_at_once_keep_every_message_once(
    make_caller: MakeCaller, api: ApiProcess, made: list[Any]
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    block = block_for(made, api, agent, thread_id="shared-thread")

    def batch(who: str) -> list[ChatMessage]:
        return [ChatMessage(role="user", content=f"{who} message {n}") for n in range(5)]

    def in_own_loop(who: str) -> None:
        asyncio.run(block.aput(batch(who)))  # its own thread, its own event loop

    workers = [threading.Thread(target=in_own_loop, args=(f"thread-{n}",)) for n in range(4)]
    for worker in workers:
        worker.start()
    await asyncio.gather(*(block.aput(batch(f"task-{n}")) for n in range(4)))
    for worker in workers:
        worker.join()

    stored = [m["content"] for m in await thread_messages(agent, "shared-thread")]
    senders = [f"thread-{n}" for n in range(4)] + [f"task-{n}" for n in range(4)]
    assert sorted(stored) == sorted(f"{who} message {n}" for who in senders for n in range(5))
    for who in senders:  # each put's messages in their order
        assert [c for c in stored if c.startswith(f"{who} ")] == [f"{who} message {n}" for n in range(5)]


async def test_what_the_block_refuses(make_caller: MakeCaller, api: ApiProcess, made: list[Any]) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    block = block_for(made, api, agent, thread_id="refused")
    with pytest.raises(MessageTooLarge, match="100000"):
        await block.aput(
            [ChatMessage(role="user", content="fine"), ChatMessage(role="user", content="x" * 100_001)]
        )
    assert (await agent.http.get("/v1/threads/refused")).status_code == 404  # nothing was written
    with pytest.raises(ValueError, match="thread_id"):
        await block_for(made, api, agent).aput([ChatMessage(role="user", content="no Memory, no thread")])
    with pytest.raises(ValueError, match="200"):
        block_for(made, api, agent, token_budget=100)
    with pytest.raises(Unauthenticated):
        await block_for(made, api, agent, api_key="nope").aget([ChatMessage(role="user", content="anything")])


async def test_the_documented_example_runs(
    make_caller: MakeCaller, api: ApiProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    monkeypatch.setenv("CTXNET_API_URL", api.base_url)
    monkeypatch.setenv("CTXNET_API_KEY", agent.key)
    scope: dict[str, Any] = {"__name__": "example"}
    await asyncio.to_thread(exec, compile(LLAMAINDEX_EXAMPLE, "docs/integrations.md", "exec"), scope)  # noqa: S102
    assert "eu-west-1" in (scope["messages"][0].content or "")
    assert await thread_messages(agent, "llamaindex:support-chat-1")
