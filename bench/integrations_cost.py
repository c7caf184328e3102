"""``python -m bench.integrations_cost``: what each framework adapter (ctxnet/integrations) adds
over the plain client: p50 of one get, put and search (or the adapter's nearest call) through
the adapter beside the same work through :class:`ctxnet.client.Client`, taking turns in the
same run, against one API process on the shared Neo4j (a minute or so on 2 cores).

One part per adapter in :data:`PARTS`: a function ``(url, key) -> {call: {adapter, plain}}``
that times its adapter's calls and the plain client's, :data:`RUNS` times each. A part is
given a fresh user (a person's key and an agent's key of that user), forgotten afterwards.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any, TypeVar

from bench.common import save, summary_ms
from ctxnet.client import Client
from graph.core.db import Database
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings
from graph.core.users import forget_user
from tests.support.servers import running_api

T = TypeVar("T")
RUNS = 50
NOTES = [
    ("Deploy region", "Production deploys go to the eu-west-1 region."),
    ("Deploy window", "Production deploys happen on weekdays between 9:00 and 15:00 UTC."),
    ("Deploy approval", "Every production deploy needs one approval from the on-call engineer."),
]
#: A part: (url, agent key) -> {call: {"adapter": [seconds], "plain": [seconds]}}.
Part = Callable[[str, str], dict[str, dict[str, list[float]]]]


_LOOP = asyncio.new_event_loop()


def run(work: Coroutine[Any, Any, T]) -> T:
    """``work`` run to its end on the one event loop the adapters' calls share (as in an
    application: no loop made per call)."""
    return _LOOP.run_until_complete(work)


def turns(runs: int, adapter: Callable[[int], Any], plain: Callable[[int], Any]) -> dict[str, list[float]]:
    """Seconds of ``adapter(n)`` and ``plain(n)``, taking turns (which goes first alternates),
    after one untimed call of each."""
    adapter(-1)
    plain(-1)
    took: dict[str, list[float]] = {"adapter": [], "plain": []}
    for n in range(runs):
        pair = [("adapter", adapter), ("plain", plain)]
        for name, call in pair[:: 1 if n % 2 else -1]:
            t0 = time.perf_counter()
            call(n)
            took[name].append(time.perf_counter() - t0)
    return took


# --- LlamaIndex -------------------------------------------------------------------------------
def llamaindex(url: str, key: str) -> dict[str, dict[str, list[float]]]:
    """The memory block's get (a brief on the latest messages; the block's search by meaning)
    and put (a flushed message appended to the Memory session's thread) beside
    ``Client.brief`` and ``Client.append_messages``."""
    from llama_index.core.base.llms.types import ChatMessage

    from ctxnet.integrations.llamaindex import ContextNetworkMemoryBlock, offline_tokenizer

    block = ContextNetworkMemoryBlock(
        url=url, api_key=key, token_budget=1_000, tokenizer_fn=offline_tokenizer()
    )
    task = "where do production deploys go?"
    asked = [ChatMessage(role="user", content=task)]
    with Client(url, key) as cn:
        cn.create_thread({"id": "bench-plain", "topic": "bench"})
        figures = {
            "get": turns(
                RUNS,
                lambda n: asyncio.run(block.aget(asked)),
                lambda n: cn.brief(asked[0].content or "", 1_000),
            ),
            "put": turns(
                RUNS,
                lambda n: asyncio.run(
                    block.aput([ChatMessage(role="user", content=f"turn {n}")], session_id="b")
                ),
                lambda n: cn.append_messages("bench-plain", [{"role": "user", "content": f"turn {n}"}]),
            ),
        }
    block.close()
    return figures


# --- OpenAI Agents SDK ------------------------------------------------------------------------
def openai_agents(url: str, key: str) -> dict[str, dict[str, list[float]]]:
    """The session's get_items (the last 20), add_items (one item) and pop_item (the
    protocol has no search) beside the plain client's call a hand-written session would make:
    one page of the thread's messages, one append, one append."""
    from ctxnet.integrations.openai_agents import ContextNetworkSession

    session = ContextNetworkSession("bench", url=url, api_key=key)
    item = {"role": "user", "content": "Where do production deploys go?"}
    path = "/v1/threads/bench-raw/messages"
    with Client(url, key) as cn:
        cn.create_thread({"id": "bench-raw", "topic": "bench"})
        for n in range(40):
            run(session.add_items([dict(item, content=f"item {n}")]))  # type: ignore[list-item]
            cn.append_messages("bench-raw", [{"role": "user", "content": f"item {n}", "data": item}])

        def appended(n: int) -> None:
            cn.append_messages(
                "bench-raw", [{"id": uuid.uuid4().hex, "role": "user", "content": "x", "data": item}]
            )

        figures = {
            "get": turns(
                RUNS,
                lambda n: run(session.get_items(limit=20)),
                lambda n: cn.request_json("GET", path, params={"limit": 100}),
            ),
            "put": turns(RUNS, lambda n: run(session.add_items([item])), appended),  # type: ignore[list-item]
            "pop": turns(RUNS, lambda n: run(session.pop_item()), appended),
        }
    session.close()
    return figures


#: Each adapter's part; another engineer's adapters add theirs here.
PARTS: dict[str, Part] = {"llamaindex": llamaindex, "openai-agents": openai_agents}


async def _user(settings: Settings, user: str) -> str:
    """An agent's key of a new ``user``, with a few notes for the reads to find."""
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        _, secret = await ApiKeys(db).create(user, Role.AGENT, agent_id="bench")
        return secret
    finally:
        await db.close()


async def _forget(settings: Settings, user: str) -> None:
    db = Database.from_settings(settings)
    try:
        await forget_user(db, user)
    finally:
        await db.close()


def main(parts: list[str] | None = None) -> dict[str, Any]:
    """Run the parts named (all by default); print and save ``integrations_cost``."""
    settings = Settings()
    figures: dict[str, Any] = {"runs": RUNS}
    with TemporaryDirectory() as folder, running_api(Path(folder) / "api.log") as api:
        for name in parts or list(PARTS):
            user = f"bench-integrations-{uuid.uuid4().hex[:8]}"
            key = asyncio.run(_user(settings, user))
            try:
                with Client(api.base_url, key) as cn:
                    cn.create_notes([{"title": t, "content": c, "type": "fact"} for t, c in NOTES])
                taken = PARTS[name](api.base_url, key)
            finally:
                asyncio.run(_forget(settings, user))
            figures[name] = {
                call: {side: summary_ms(s) for side, s in sides.items()} for call, sides in taken.items()
            }
            for call, sides in figures[name].items():
                a, p = sides["adapter"]["p50_ms"], sides["plain"]["p50_ms"]
                print(f"{name:14} {call:4} adapter {a:7.2f} ms  plain client {p:7.2f} ms  {a - p:+.2f} ms")
    save("integrations_cost", figures)
    return figures


if __name__ == "__main__":
    main()
