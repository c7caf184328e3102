"""``python -m bench.integrations_cost_store``: what the LangGraph store and Claude's memory tool
(ctxnet/integrations) add over the plain client: p50 of one get, put and search through each
adapter beside the same work through :class:`ctxnet.client.Client`, and the LangGraph store's put
and search beside LangGraph's own ``InMemoryStore``, taking turns in the same run, against one
API process on the shared Neo4j (to join ``bench/integrations_cost.py``'s ``PARTS`` once that
is on main: each part has its shape, ``(url, key) -> {call: {side: [seconds]}}``).

Not measured: LangGraph's Postgres store (its package and a PostgreSQL server are not set up
by this project; PostgreSQL 15 is on the machine, unconfigured).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from bench.common import save, summary_ms
from ctxnet.client import Client
from graph.core.db import Database
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings
from graph.core.users import forget_user
from tests.support.servers import running_api

RUNS = 30
TEXT = "Production deploys go to the eu-west-1 region, on weekdays between 9:00 and 15:00 UTC."
Sides = dict[str, Callable[[int], Any]]


def turns(runs: int, sides: Sides) -> dict[str, list[float]]:
    """Seconds of each side's call, taking turns (the order rotates), after one untimed call each."""
    for call in sides.values():
        call(-1)
    took: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for n in range(runs):
        for name in names[n % len(names) :] + names[: n % len(names)]:
            t0 = time.perf_counter()
            sides[name](n)
            took[name].append(time.perf_counter() - t0)
    return took


def langgraph(url: str, key: str) -> dict[str, dict[str, list[float]]]:
    """The store's get, put (an existing key: PATCH) and search by meaning beside the plain
    client's GET, PATCH and POST /v1/search of one note, and ``InMemoryStore`` (no embedder:
    its search is a filtered scan; put and search with a small local embedder are not timed)."""
    from langgraph.store.memory import InMemoryStore

    from ctxnet.integrations.langgraph import ContextNetworkStore, note_id

    store, memory = ContextNetworkStore(url=url, api_key=key), InMemoryStore()
    ns = ("bench", "deploys")
    for i in range(20):
        value = {"text": f"{TEXT} ({i})", "n": i}
        store.put(ns, f"k{i}", value)
        memory.put(ns, f"k{i}", value)
    with Client(url, key) as cn:
        cn.create_note({"id": "p1", "title": "plain", "content": TEXT, "type": "fact", "dedupe": False})
        search = {"query": "where do deploys go?", "topK": 10, "mode": "vector", "expandConnections": False}
        figures = {
            "get": turns(RUNS, {
                "adapter": lambda n: store.get(ns, "k1"),
                "plain": lambda n: cn.request_json("GET", f"/v1/knowledge/{note_id(ns, 'k2')}"),
                "inmemory": lambda n: memory.get(ns, "k1"),
            }),
            "put": turns(RUNS, {
                "adapter": lambda n: store.put(ns, "k1", {"text": f"{TEXT} [{n}]", "n": n}),
                "plain": lambda n: cn.request_json("PATCH", "/v1/knowledge/p1", {"content": f"{TEXT}{n}"}),
                "inmemory": lambda n: memory.put(ns, "k1", {"text": f"{TEXT} [{n}]", "n": n}),
            }),
            "search": turns(RUNS, {
                "adapter": lambda n: store.search(ns, query="where do deploys go?", limit=10),
                "plain": lambda n: cn.request_json("POST", "/v1/search", search),
                "inmemory": lambda n: memory.search(ns, query="where do deploys go?", limit=10),
            }),
        }  # fmt: skip
    asyncio.run(store.aclose())
    return figures


def claude_memory(url: str, key: str) -> dict[str, dict[str, list[float]]]:
    """The tool's view of a file (its get), str_replace (its put: read, edit, PATCH) and view
    of a directory (its nearest to a search: a listing by tag) beside the plain client's GET by
    id, PATCH, and one listing page by tag."""
    from ctxnet.integrations.anthropic_memory import ContextNetworkMemoryTool, dir_tag

    tool = ContextNetworkMemoryTool(url=url, api_key=key)
    for i in range(10):
        tool.call(
            {"command": "create", "path": f"/memories/deploys/{i}.md", "file_text": f"{TEXT}\nrun -2\n"}
        )
    folder = dir_tag("/memories/deploys")
    with Client(url, key) as cn:
        cn.create_note({"id": "plain-2", "title": "plain", "content": TEXT, "type": "fact", "dedupe": False})
        figures = {
            "get": turns(RUNS, {
                "adapter": lambda n: tool.call({"command": "view", "path": "/memories/deploys/1.md"}),
                "plain": lambda n: cn.request_json("GET", "/v1/knowledge/plain-2"),
            }),
            "put": turns(RUNS, {
                "adapter": lambda n: tool.call({"command": "str_replace", "path": "/memories/deploys/1.md",
                                                "old_str": f"run {n - 1}", "new_str": f"run {n}"}),
                "plain": lambda n: cn.request_json("PATCH", "/v1/knowledge/plain-2", {"content": f"{n}"}),
            }),
            "search": turns(RUNS, {
                "adapter": lambda n: tool.call({"command": "view", "path": "/memories/deploys"}),
                "plain": lambda n: cn.request_json("GET", "/v1/knowledge", params={"tag": folder}),
            }),
        }  # fmt: skip
    tool.close()
    return figures


PARTS = {"langgraph": langgraph, "claude-memory": claude_memory}


async def _user(settings: Settings, user: str, *, forget: bool = False) -> str:
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        if forget:
            await forget_user(db, user)
            return user
        _, secret = await ApiKeys(db).create(user, Role.AGENT, agent_id="bench")
        return secret
    finally:
        await db.close()


def main() -> dict[str, Any]:
    """Run both parts; print and save ``integrations_cost_store``."""
    settings = Settings()
    figures: dict[str, Any] = {"runs": RUNS}
    with TemporaryDirectory() as folder, running_api(Path(folder) / "api.log") as api:
        for name, part in PARTS.items():
            user = f"bench-integrations-{uuid.uuid4().hex[:8]}"
            key = asyncio.run(_user(settings, user))
            try:
                taken = part(api.base_url, key)
            finally:
                asyncio.run(_user(settings, user, forget=True))
            figures[name] = {
                call: {s: summary_ms(t) for s, t in sides.items()} for call, sides in taken.items()
            }
            for call, sides in figures[name].items():
                shown = "   ".join(f"{side} {v['p50_ms']:7.2f} ms" for side, v in sides.items())
                print(f"{name:14} {call:6} p50: {shown}")
    save("integrations_cost_store", figures)
    return figures


if __name__ == "__main__":
    main()
