"""The OpenAI Agents SDK's ``Session`` as :class:`ContextNetworkSession` over the real API:
the behaviour the SDK's own tests hold its SQLite session to (tests/memory/test_session.py:
items exactly as added, pop, limit, ``session_settings``, ``close()``, several threads and
event loops), plus what this service adds: pop and clear keep the thread's history, every
write is the agent's in its session, a person's message holds, users never meet. No LLM and
no Runner: the session's calls are made directly."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Iterator
from typing import Any, cast

import pytest
from agents.items import TResponseInputItem
from agents.memory import Session, SessionSettings

from ctxnet.integrations.openai_agents import ContextNetworkSession, ItemTooLarge
from graph.core.principals import Role
from tests.integration.conftest import Caller, MakeCaller
from tests.support.doc_examples import example
from tests.support.servers import ApiProcess

#: The OpenAI Agents SDK example of docs/integrations.md (the test below runs it as shown).
OPENAI_AGENTS_EXAMPLE = example("integrations.md", "## OpenAI Agents SDK")

MIXED: list[dict[str, Any]] = [
    {"role": "user", "content": "Hello"},
    {"role": "assistant", "content": "Hi there!"},
    {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city": "Oslo"}'},
    {"type": "function_call_output", "call_id": "call_1", "output": "12 °C, rain"},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Check the weather."}]},
    {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
     "content": [{"type": "output_text", "text": "It rains in Oslo.", "annotations": []}]},
    {"role": "user", "content": [{"type": "input_text", "text": "こんにちは 😊"}, {"type": "input_image",
     "image_url": "https://example.com/a.png", "detail": "auto"}]},
    {"role": "user", "content": "Robert'); DROP TABLE students;--"},
    {"z": 1, "a": [1.5, 2, None, True, {"deep": {"er": "x"}}], "big": 2**62, "float": 0.1, "type": "custom"},
]  # fmt: skip


@pytest.fixture
def sessions(api: ApiProcess) -> Iterator[Any]:
    """Make sessions for a caller's key; close them afterwards."""
    made: list[ContextNetworkSession] = []

    def make(caller: Caller, session_id: str = "s", **more: Any) -> ContextNetworkSession:
        session = ContextNetworkSession(session_id, url=api.base_url, api_key=caller.key, **more)
        made.append(session)
        return session

    yield make
    for session in made:
        session.close()


def items(*texts: str, role: str = "user") -> list[TResponseInputItem]:
    return [cast(TResponseInputItem, {"role": role, "content": text}) for text in texts]


def contents(got: list[TResponseInputItem]) -> list[Any]:
    return [cast(dict[str, Any], item).get("content") for item in got]


async def thread(caller: Caller, session_id: str) -> list[dict[str, Any]]:
    answer = await caller.http.get(f"/v1/threads/openai-agents:{session_id}/messages", params={"limit": 1000})
    assert answer.status_code == 200, answer.text
    messages: list[dict[str, Any]] = answer.json()["items"]
    return messages


@pytest.mark.smoke
async def test_items_come_back_exactly_as_added(make_caller: MakeCaller, sessions: Any) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    session = sessions(agent, "exact")
    assert isinstance(session, Session)
    assert await session.get_items() == [] and await session.pop_item() is None
    await session.add_items(cast(list[TResponseInputItem], MIXED))
    got = await session.get_items()
    assert got == MIXED and [list(cast(dict[str, Any], i)) for i in got] == [
        list(i) for i in MIXED
    ]  # keys in order
    again = await sessions(agent, "exact").get_items()  # another instance, the same session
    assert again == MIXED

    # What a person (or the insight extractor) reads of each item.
    stored = await thread(agent, "exact")
    assert [(m["role"], m["content"]) for m in stored[:6]] == [
        ("user", "Hello"),
        ("assistant", "Hi there!"),
        ("assistant", '[function call] get_weather({"city": "Oslo"})'),
        ("tool", "[function output] 12 °C, rain"),
        ("assistant", "[reasoning] Check the weather."),
        ("assistant", "It rains in Oslo."),
    ]
    assert stored[6]["content"] == "こんにちは 😊\n[input_image]" and stored[8]["content"].startswith(
        "[custom] "
    )
    assert [m["data"] for m in stored] == MIXED


async def test_pop_takes_back_the_newest_and_the_thread_keeps_it(
    make_caller: MakeCaller, sessions: Any
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    session, other = sessions(agent, "pop"), sessions(agent, "pop-other")
    await other.add_items(items("Session 2 message"))
    await session.add_items(items("Hello", "Hi there!", "How are you?"))
    assert contents(await session.get_items()) == ["Hello", "Hi there!", "How are you?"]
    assert contents([await session.pop_item()]) == ["How are you?"]
    assert contents(await session.get_items()) == ["Hello", "Hi there!"]
    assert contents([await session.pop_item(), await session.pop_item()]) == ["Hi there!", "Hello"]
    assert await session.pop_item() is None and await session.get_items() == []
    assert contents(await other.get_items()) == ["Session 2 message"]  # another session untouched

    # Nothing was deleted: each item, and the agent's retraction of it, in order.
    stored = await thread(agent, "pop")
    assert [m["content"] for m in stored] == [
        "Hello", "Hi there!", "How are you?", "[retracted by the agent] How are you?",
        "[retracted by the agent] Hi there!", "[retracted by the agent] Hello",
    ]  # fmt: skip
    await session.add_items(items("After"))
    assert contents(await session.get_items()) == ["After"]


async def test_limit_and_session_settings(make_caller: MakeCaller, sessions: Any) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    session = sessions(agent, "limit")
    assert isinstance(session.session_settings, SessionSettings) and session.session_settings.limit is None
    texts = [f"Message {i}" for i in range(10)]
    await session.add_items(items(*texts))
    assert contents(await session.get_items()) == texts
    assert contents(await session.get_items(limit=2)) == texts[-2:]
    assert contents(await session.get_items(limit=4)) == texts[-4:]
    assert contents(await session.get_items(limit=50)) == texts
    assert await session.get_items(limit=0) == []
    assert contents(await session.get_items(limit=-1)) == texts  # as SQLite's LIMIT -1

    limited = sessions(agent, "limit", session_settings=SessionSettings(limit=3))
    assert contents(await limited.get_items()) == texts[-3:]
    assert contents(await limited.get_items(limit=2)) == texts[-2:]  # the explicit limit wins
    as_dict = sessions(agent, "limit", session_settings={"limit": 0})
    assert isinstance(as_dict.session_settings, SessionSettings) and as_dict.session_settings.limit == 0
    assert await as_dict.get_items() == [] and as_dict.session_settings.resolve({"limit": 4}).limit == 4
    with pytest.raises(TypeError, match="Unknown session settings: limitt"):
        sessions(agent, "limit", session_settings={"limitt": 1})

    # A limit past retractions counts live items only (the window widens as SQLite's does).
    for _ in range(3):
        await session.pop_item()
    assert contents(await session.get_items(limit=3)) == texts[4:7]


async def test_clear_starts_afresh_and_keeps_the_history(make_caller: MakeCaller, sessions: Any) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="assistant", user_id=person.user_id)
    started = await agent.http.post("/v1/sessions", json={"topic": "support"})
    work = started.json()["session"]["id"]
    session = sessions(agent, "clear", ctxnet_session_id=work)
    await session.clear_session()  # nothing to clear: no thread is made
    assert (await agent.http.get("/v1/threads/openai-agents:clear")).status_code == 404
    await session.add_items(items("Hello", "Hi there!"))
    await session.clear_session()
    await session.clear_session()  # already clear: no second marker
    assert await session.get_items() == [] and await sessions(agent, "clear").get_items() == []
    await session.add_items(items("A new start"))
    assert contents(await session.get_items()) == ["A new start"]
    stored = await thread(person, "clear")
    assert [m["content"] for m in stored][:2] == ["Hello", "Hi there!"] and len(stored) == 4

    # Every write is the agent's, in its session of the service.
    journal = (await person.http.get("/v1/mutations", params={"sessionId": work, "limit": 50})).json()[
        "items"
    ]
    appended = [m for m in journal if m["op"] == "message.append"]
    assert len(appended) == 4
    assert {(m["actor"]["role"], m["actor"]["agentId"]) for m in appended} == {("agent", "assistant")}


async def test_a_persons_message_holds_through_the_session(make_caller: MakeCaller, sessions: Any) -> None:
    person = await make_caller(Role.HUMAN)
    agent = await make_caller(Role.AGENT, agent_id="assistant", user_id=person.user_id)
    session = sessions(agent, "held")
    await session.add_items(items("Book the cheapest flight."))
    said = {"role": "user", "content": "Correction from Dana: only direct flights, whatever they cost."}
    added = await person.http.post("/v1/threads/openai-agents:held/messages", json={"messages": [said]})
    assert added.status_code == 201, added.text
    assert await session.get_items() == [
        *items("Book the cheapest flight."),
        said,
    ]  # the agent reads it as said

    assert await session.pop_item() == said  # the agent takes it out of its own context...
    await session.clear_session()
    kept = await thread(person, "held")  # ...but the person's word stays in the memory, verbatim
    assert [m["content"] for m in kept if m["content"] == said["content"]] == [said["content"]]
    history = (await person.http.get("/v1/mutations", params={"limit": 50})).json()["items"]
    by = {m["after"]["content"]: m["actor"]["role"] for m in history if m["op"] == "message.append"}
    assert by[said["content"]] == "human" and by[f"[retracted by the agent] {said['content']}"] == "agent"


async def test_users_never_see_each_others_sessions(make_caller: MakeCaller, sessions: Any) -> None:
    alice = await make_caller(Role.AGENT, agent_id="assistant")
    bob = await make_caller(Role.AGENT, agent_id="assistant")
    hers, his = sessions(alice, "same-id"), sessions(bob, "same-id")
    await hers.add_items(items("Alice's secret plan"))
    assert await his.get_items() == [] and await his.pop_item() is None
    await his.clear_session()
    await his.add_items(items("Bob's lunch order"))
    assert contents(await hers.get_items()) == ["Alice's secret plan"]
    assert contents(await his.get_items()) == ["Bob's lunch order"]


async def test_several_threads_and_event_loops_at_once(make_caller: MakeCaller, sessions: Any) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    session = sessions(agent, "busy")
    texts = [f"Message {i}" for i in range(10)]

    def add_in_own_loop(text: str) -> None:  # as the SDK's concurrent-access test does
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(session.add_items(items(text)))
        finally:
            loop.close()

    with concurrent.futures.ThreadPoolExecutor(max_workers=5) as pool:
        list(pool.map(add_in_own_loop, texts))
    assert sorted(contents(await session.get_items())) == sorted(texts)

    # Pops at once, through this object and another of the same session: each item once.
    twin = sessions(agent, "busy")
    popped = await asyncio.gather(*(s.pop_item() for s in [session, twin] * 6))
    taken = [c for c in contents([p for p in popped if p is not None])]
    assert sorted(taken) == sorted(texts) and popped.count(None) == 2
    assert await session.get_items() == []


async def test_what_the_session_refuses(make_caller: MakeCaller, sessions: Any) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    session = sessions(agent, "refused")
    huge = {"role": "user", "content": "x" * 70_000}
    deep: dict[str, Any] = {"role": "user", "content": "deep"}
    node = deep
    for _ in range(32):
        node["more"] = {}
        node = node["more"]
    for bad, error in [(huge, ItemTooLarge), (deep, ItemTooLarge), ({"content": object()}, TypeError),
                       ({"x": float("nan")}, ValueError)]:  # fmt: skip
        with pytest.raises(error):
            await session.add_items([*items("fine"), cast(TResponseInputItem, bad)])
    assert (await agent.http.get("/v1/threads/openai-agents:refused")).status_code == 404  # nothing written
    session.close()
    for call in (session.add_items([]), session.get_items(), session.pop_item(), session.clear_session()):
        with pytest.raises(RuntimeError, match="closed"):
            await call


async def test_the_documented_example_runs(
    make_caller: MakeCaller, api: ApiProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = await make_caller(Role.AGENT, agent_id="assistant")
    monkeypatch.setenv("CTXNET_API_URL", api.base_url)
    monkeypatch.setenv("CTXNET_API_KEY", agent.key)
    scope: dict[str, Any] = {"__name__": "example"}
    await asyncio.to_thread(exec, compile(OPENAI_AGENTS_EXAMPLE, "docs/integrations.md", "exec"), scope)  # noqa: S102
    assert scope["items"][-1] == {"type": "function_call_output", "call_id": "c1", "output": "eu-west-1"}
    assert len(await thread(agent, "support-user-42")) == 5  # four items and one retraction
