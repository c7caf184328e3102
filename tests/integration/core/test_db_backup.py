"""``ctxnet db backup`` / ``ctxnet db restore`` on a Neo4j of the test's own (a restore replaces
the whole database, so not the one the runtime tests share): a backup taken while writes go
on keeps every write acknowledged before it began; after a wipe, a restore gives back the
database, and the API answers as before."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from ctxnet.neo4j_server import LocalNeo4j
from graph.core.db import Database
from graph.core.principals import ApiKeys, Role
from graph.core.schema import migrate
from graph.core.settings import Settings
from graph.core.users import forget_user
from tests.integration.core.conftest import private_api_env
from tests.support.servers import ApiProcess, free_port


def ctxnet(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI, pointed at the private Neo4j."""
    env = os.environ | private_api_env(settings) | {
        "CTXNET_NEO4J_HTTP_PORT": str(settings.neo4j_http_port),
        "CTXNET_NEO4J_DIST_DIR": str(settings.neo4j_dist_dir),
        "CTXNET_NEO4J_HEAP": settings.neo4j_heap,
        "CTXNET_NEO4J_PAGECACHE": settings.neo4j_pagecache,
    }  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "ctxnet", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )


@pytest.fixture
def own_settings(tmp_path: Path, private_settings: Settings) -> Settings:
    """A fresh folder and free ports, the runtime tests' small heap."""
    update = {"data_dir": tmp_path / "neo4j", "neo4j_bolt_port": free_port(), "neo4j_http_port": free_port()}
    return private_settings.model_copy(update=update)


@pytest_asyncio.fixture
async def own_neo4j(own_settings: Settings, neo4j_server: None) -> AsyncIterator[tuple[LocalNeo4j, Database]]:
    """That Neo4j, started, and a database on it; stopped afterwards."""
    local = LocalNeo4j(own_settings)
    local.start()
    db = Database.from_settings(own_settings)
    try:
        await db.wait_until_reachable(60)
        yield local, db
    finally:
        await db.close()
        local.stop()


async def test_backup_under_writes_wipe_restore_and_the_api_answers_as_before(
    own_neo4j: tuple[LocalNeo4j, Database], own_settings: Settings, tmp_path: Path
) -> None:
    private_neo4j, private_db = own_neo4j
    private_settings = own_settings
    await migrate(private_db, 384)
    user = "backup-user"
    _, key = await ApiKeys(private_db).create(user, Role.HUMAN)
    api = ApiProcess(tmp_path / "api.log", private_api_env(private_settings)).start()
    acknowledged: dict[str, float] = {}  # note id -> when its 201 came back
    stop = asyncio.Event()

    async def writer(http: httpx.AsyncClient, name: str) -> None:
        n = 0
        while not stop.is_set():
            body = {"id": f"{name}-{n}", "title": f"Note {n}", "type": "fact", "dedupe": False,
                    "content": f"Backup test note {name} {n} about the staging database."}  # fmt: skip
            try:
                answer = await http.post("/v1/knowledge", json=body)
            except httpx.TransportError:
                await asyncio.sleep(0.2)
                continue
            if answer.status_code in (200, 201):
                acknowledged[body["id"]] = time.time()
                n += 1
            else:  # Neo4j stopped for the dump: refused, tried again with the same id
                assert answer.status_code == 503, answer.text
                await asyncio.sleep(0.2)

    dump = tmp_path / "backups" / "before.dump"
    try:
        api.wait_ready()
        auth = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(base_url=api.base_url, headers=auth, timeout=60) as http:
            writers = [asyncio.create_task(writer(http, f"w{i}")) for i in range(2)]
            while len(acknowledged) < 20:
                await asyncio.sleep(0.1)
            began = time.time()
            done = await asyncio.to_thread(ctxnet, private_settings, "db", "backup", "--to", str(dump))
            assert done.returncode == 0, done.stderr
            assert "stopping the local Neo4j" in done.stdout and f"backup: {dump}" in done.stdout
            stop.set()
            await asyncio.gather(*writers)
            before = sorted(i for i, at in acknowledged.items() if at < began)
            assert oct(dump.stat().st_mode & 0o777) == "0o600"

            # A note written after the backup, then the user wiped.
            late = await http.post("/v1/knowledge", json={"id": "late", "title": "Late", "type": "fact",
                                                          "content": "After the backup."})  # fmt: skip
            assert late.status_code == 201, late.text
            await forget_user(private_db, user)
            assert (await http.get("/v1/me")).status_code == 401  # its key went with it

            refused = await asyncio.to_thread(ctxnet, private_settings, "db", "restore", str(dump))
            assert refused.returncode == 1 and "--yes" in refused.stderr
            restored = await asyncio.to_thread(ctxnet, private_settings, "db", "restore", str(dump), "--yes")
            assert restored.returncode == 0, restored.stderr
            deadline = time.monotonic() + 60
            while (await http.get("/v1/me")).status_code != 200:
                assert time.monotonic() < deadline, "the API did not answer after the restore"
                await asyncio.sleep(0.5)
            held = set()
            cursor = None
            while True:
                page = await http.get(
                    "/v1/knowledge", params={"limit": 500, **({"cursor": cursor} if cursor else {})}
                )
                held |= {n["id"] for n in page.json()["items"]}
                cursor = page.json().get("nextCursor")
                if not cursor:
                    break
            assert set(before) <= held, sorted(set(before) - held)[:5]
            assert "late" not in held
            found = await http.post("/v1/search", json={"query": "staging database backup test", "topK": 3})
            assert found.status_code == 200 and len(found.json()["hits"]) == 3
    finally:
        stop.set()
        api.stop()
    assert private_neo4j.status().bolt_open  # started again, as it was
    # This process's own connection saw transactions the restored database no longer has:
    # its first call answers "unavailable" once and starts its bookmarks anew, as the API's did.
    await private_db.wait_until_reachable(60)
