"""``python -m bench.integrations_cost_store``: what the LangGraph store and Claude's memory tool
(ctxnet/integrations) add over the plain client: p50 of one get, put and search through each
adapter beside the same work through :class:`ctxnet.client.Client`, and the LangGraph store's put
and search beside LangGraph's own ``InMemoryStore``, taking turns in the same run, against one
API process on the shared Neo4j (to join ``bench/integrations_cost.py``'s ``PARTS`` once that
is on main: each part has its shape, ``(url, key) -> {call: {side: [seconds]}}``).

``--postgres`` (off by default: a machine may have no PostgreSQL) adds LangGraph's
``PostgresStore`` to the LangGraph part, as a fourth side taking turns with the same items and
calls as ``InMemoryStore``: the bench starts a throwaway PostgreSQL server itself (``initdb``
and ``pg_ctl`` from PATH or /usr/lib/postgresql/<v>/bin, a temporary directory, trust auth on
127.0.0.1, a free port, default settings; as root it runs as the ``postgres`` user) and stops
and removes it at the end, also on error. Neither LangGraph store has a vector index, as
``InMemoryStore`` had none before: their search is a scan of the namespace (``PostgresStore``
then ignores the query and returns the newest items), ours is by meaning. It needs
``langgraph-checkpoint-postgres`` and ``psycopg[binary]`` (not among the project's
dependencies; imported only with the option). One run on 2026-12-04 (2 cores, shared, load
average about 1.4; langgraph-checkpoint-postgres 3.2.0, psycopg 3.3.9, PostgreSQL 15.18), p50:
get 5.5 ms through the adapter, 5.4 plain, 0.01 ``InMemoryStore``, 0.5 ``PostgresStore``; put
53, 54, 0.04, 1.1 ms; search 13.9, 13.7, 0.04, 0.8 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
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


def _pg_bin(name: str) -> str:
    """Path of a PostgreSQL program: on PATH, else in Debian's /usr/lib/postgresql/<v>/bin."""
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None
    )
    if found is None:
        raise SystemExit(f"--postgres: no {name} on PATH nor in /usr/lib/postgresql/*/bin")
    return found


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """A throwaway PostgreSQL server (initdb and pg_ctl in a temporary directory, trust auth,
    listening on 127.0.0.1 only, a free port); yields its connection string, and stops it and
    removes its directory on the way out, also on error. PostgreSQL refuses to run as root: as
    root, it runs as the ``postgres`` user (``runuser``), which must exist."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    as_user: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="ctxnet-bench-pg-"))
    if os.geteuid() == 0:
        import pwd

        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(folder)
            raise SystemExit("--postgres as root needs a postgres user (useradd -m postgres)") from None
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    data, started = folder / "data", False
    try:

        def run(command: list[str]) -> None:
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode:
                raise RuntimeError(f"{' '.join(command)}: {done.stderr or done.stdout}")

        run([*as_user, initdb, "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"])
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"
        started = True
        run([*as_user, pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start"])
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        if started:
            subprocess.run(
                [*as_user, pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"], capture_output=True
            )
        shutil.rmtree(folder, ignore_errors=True)


def langgraph(url: str, key: str, postgres: str | None = None) -> dict[str, dict[str, list[float]]]:
    """The store's get, put (an existing key: PATCH) and search by meaning beside the plain
    client's GET, PATCH and POST /v1/search of one note, and ``InMemoryStore`` (no embedder:
    its search is a filtered scan; put and search with a small local embedder are not timed);
    with ``postgres`` (a connection string), LangGraph's ``PostgresStore`` on it too, with the
    same items and calls and no index either (its search is then a filtered scan by
    namespace, newest first)."""
    from langgraph.store.memory import InMemoryStore

    from ctxnet.integrations.langgraph import ContextNetworkStore, note_id

    with contextlib.ExitStack() as stack:
        store, memory = ContextNetworkStore(url=url, api_key=key), InMemoryStore()
        stack.callback(lambda: asyncio.run(store.aclose()))
        others: dict[str, Any] = {"inmemory": memory}
        if postgres is not None:
            from langgraph.store.postgres import PostgresStore

            pg = stack.enter_context(PostgresStore.from_conn_string(postgres))
            pg.setup()
            others["postgres"] = pg
        ns = ("bench", "deploys")
        for i in range(20):
            value = {"text": f"{TEXT} ({i})", "n": i}
            store.put(ns, f"k{i}", value)
            for other in others.values():
                other.put(ns, f"k{i}", value)
        cn = stack.enter_context(Client(url, key))
        cn.create_note({"id": "p1", "title": "plain", "content": TEXT, "type": "fact", "dedupe": False})
        search = {"query": "where do deploys go?", "topK": 10, "mode": "vector", "expandConnections": False}

        def sides(
            adapter: Callable[[int], Any], plain: Callable[[int], Any], call: Callable[[Any, int], Any]
        ) -> Sides:
            """The adapter, the plain client, then each of LangGraph's own stores doing ``call``."""
            return {
                "adapter": adapter,
                "plain": plain,
                **{name: functools.partial(call, other) for name, other in others.items()},
            }

        return {
            "get": turns(RUNS, sides(
                lambda n: store.get(ns, "k1"),
                lambda n: cn.request_json("GET", f"/v1/knowledge/{note_id(ns, 'k2')}"),
                lambda other, n: other.get(ns, "k1"),
            )),
            "put": turns(RUNS, sides(
                lambda n: store.put(ns, "k1", {"text": f"{TEXT} [{n}]", "n": n}),
                lambda n: cn.request_json("PATCH", "/v1/knowledge/p1", {"content": f"{TEXT}{n}"}),
                lambda other, n: other.put(ns, "k1", {"text": f"{TEXT} [{n}]", "n": n}),
            )),
            "search": turns(RUNS, sides(
                lambda n: store.search(ns, query="where do deploys go?", limit=10),
                lambda n: cn.request_json("POST", "/v1/search", search),
                lambda other, n: other.search(ns, query="where do deploys go?", limit=10),
            )),
        }  # fmt: skip


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


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run both parts; print and save ``integrations_cost_store``."""
    parser = argparse.ArgumentParser(prog="python -m bench.integrations_cost_store")
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="also time LangGraph's PostgresStore on a throwaway PostgreSQL server started here "
        "(needs initdb/pg_ctl, langgraph-checkpoint-postgres and psycopg)",
    )
    args = parser.parse_args(argv)
    settings = Settings()
    figures: dict[str, Any] = {"runs": RUNS}
    with contextlib.ExitStack() as stack:
        folder = stack.enter_context(TemporaryDirectory())
        parts: dict[str, Callable[[str, str], dict[str, dict[str, list[float]]]]] = dict(PARTS)
        if args.postgres:
            conn = stack.enter_context(postgres_server())
            parts["langgraph"] = functools.partial(langgraph, postgres=conn)
        api = stack.enter_context(running_api(Path(folder) / "api.log"))
        for name, part in parts.items():
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
