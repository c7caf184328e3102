"""``ctxnet db backup`` / ``ctxnet db restore`` on a Neo4j of the test's own (a restore replaces
the whole database, so not the one the runtime tests share): a backup taken while writes go
on keeps every write acknowledged before it began; after a wipe, a restore gives back the
database, and the API answers as before. A restore carries out again what the ledger holds
since the dump (a revoked key, a user and a text forgotten stay so), while the API's worker
processes run on and answer within seconds, restore after restore; a dump the ledger does
not know is refused until forced."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import LiteralString

import httpx
import pytest
import pytest_asyncio

from ctxnet.neo4j_home import ADMIN_TOOL
from ctxnet.neo4j_server import LocalNeo4j
from graph.core.db import Database
from graph.core.errors import Unauthenticated
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
            # A wipe, as a loss would be: not `ctxnet users forget`, which the ledger would
            # carry out again on the restored database.
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
    # This process's own pooled connections went with the server it knew: it connects anew.
    await private_db.wait_until_reachable(60)


#: What a person wrote and then forgot through ``POST /v1/forget``; the match names only part of it.
SECRET = "The rendezvous is at the blue lighthouse on Tuesday at dawn."
#: A part of it the match did not name: found anywhere, the text came back.
TRACE = "Tuesday at dawn"


def _client(api: ApiProcess, key: str, fresh: bool = False) -> httpx.AsyncClient:
    """The API with this key; ``fresh``: a new connection for every call, so that either worker
    process may take each."""
    limits = httpx.Limits(max_keepalive_connections=0) if fresh else httpx.Limits()
    auth = {"Authorization": f"Bearer {key}"}
    return httpx.AsyncClient(base_url=api.base_url, headers=auth, timeout=30, limits=limits)


async def _write(http: httpx.AsyncClient, name: str, count: int) -> None:
    for n in range(count):
        body = {"id": f"{name}-{n}", "title": f"{name} {n}", "type": "fact", "dedupe": False,
                "content": f"Note {n} of {name}, about the staging database."}  # fmt: skip
        answer = await http.post("/v1/knowledge", json=body)
        assert answer.status_code == 201, answer.text


async def _desk_session(api: ApiProcess, key: str) -> tuple[str, str]:
    """Sign in at the desk with this person's key: the session's secret (its cookie) and the
    CSRF token its forms carry."""
    async with httpx.AsyncClient(base_url=api.base_url, timeout=30) as browser:
        form = await browser.get("/desk/sign-in")
        signed = await browser.post("/desk/sign-in", data={"key": key, "csrf": _csrf(form.text)})
        assert signed.status_code == 303, signed.text
        inbox = await browser.get("/desk/inbox")
        return browser.cookies["desk_session"], _csrf(inbox.text)


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', html)
    assert found is not None, html[:300]
    return found.group(1)


async def _serving_again(api: ApiProcess, key: str, round_: int) -> tuple[float, float]:
    """Seconds until ``/ready`` first answers 200, and until it did and a read and a write
    succeeded six times over on new connections (both worker processes take some); fails on
    an answer that is not a success 10 s after the restore."""
    began = time.monotonic()
    first_ready: float | None = None
    async with _client(api, key, fresh=True) as http:
        for n in range(6):
            while True:
                ready = await http.get("/ready")
                if ready.status_code == 200 and first_ready is None:
                    first_ready = time.monotonic() - began
                read = await http.get("/v1/knowledge/kept")
                body = {
                    "id": f"back-{round_}-{n}",
                    "title": "Back",
                    "type": "fact",
                    "content": f"Back {round_} {n}.",
                }
                write = await http.post("/v1/knowledge", json=body)
                answers = (ready.status_code, read.status_code, write.status_code)
                if answers in ((200, 200, 201), (200, 200, 200)):  # 200: a retried create, already made
                    break
                assert time.monotonic() - began < 10, f"not serving 10 s after the restore: {answers}"
                await asyncio.sleep(0.2)
    assert first_ready is not None
    return first_ready, time.monotonic() - began


async def _nodes_of(db: Database, user: str, where: LiteralString = "") -> int:
    """How many nodes carry the user's id. Without the driver's default bookmarks
    (``inspect``'s): this process's are older than the restored database, and Neo4j would
    wait on them in vain."""
    records, _, _ = await db.driver.execute_query(
        "MATCH (n) WHERE n.userId = $u " + where + " RETURN count(n) AS n",
        {"u": user}, database_=db.database, bookmark_manager_=None,
    )  # fmt: skip
    return int(records[0]["n"])


async def _nothing_came_back(
    me: httpx.AsyncClient, spare_key: str, desk: str, victim: str, db: Database
) -> None:
    """The revoked key, the desk session signed out, the forgotten user and the forgotten
    text stay as they were left."""
    async with httpx.AsyncClient(base_url=str(me.base_url), cookies={"desk_session": desk}) as browser:
        assert (await browser.get("/desk/inbox")).headers.get("location") == "/desk/sign-in"
    async with httpx.AsyncClient(
        base_url=str(me.base_url), headers={"Authorization": f"Bearer {spare_key}"}
    ) as spare:
        assert (await spare.get("/v1/me")).status_code == 401
    assert await _nodes_of(db, victim, "AND NOT n:Tenant") == 0, "the forgotten user's nodes came back"
    assert (await me.get("/v1/knowledge/rendezvous")).status_code == 404
    for mode in ("hybrid", "vector", "fulltext"):
        found = await me.post("/v1/search", json={"query": "rendezvous blue lighthouse Tuesday dawn",
                                                  "mode": mode, "topK": 20})  # fmt: skip
        assert found.status_code == 200 and TRACE not in found.text, mode
    cursor = None
    while True:  # the whole journal
        page = await me.get("/v1/mutations", params={"limit": 500, **({"cursor": cursor} if cursor else {})})
        assert page.status_code == 200 and TRACE not in page.text
        cursor = page.json().get("nextCursor")
        if not cursor:
            break
    assert (await me.get("/v1/knowledge/kept")).status_code == 200  # the dump's other notes are back


async def test_a_restore_carries_out_the_ledger_again_and_running_apis_recover_each_time(
    own_neo4j: tuple[LocalNeo4j, Database], own_settings: Settings, tmp_path: Path
) -> None:
    _, db = own_neo4j
    await migrate(db, 384)
    keys = ApiKeys(db)
    _, person = await keys.create("restore-person", Role.HUMAN)
    spare, spare_key = await keys.create("restore-person", Role.AGENT, agent_id="spare")
    _, victim_key = await keys.create("restore-victim", Role.HUMAN)
    # Two worker processes, as `make run` serves; they run through both restores.
    api = ApiProcess(tmp_path / "api.log", private_api_env(own_settings), workers=2).start()
    dump = tmp_path / "backups" / "before.dump"
    try:
        api.wait_ready()
        async with _client(api, person) as me, _client(api, victim_key) as victim:
            kept = {"id": "kept", "title": "Staging", "type": "fact", "content": "Staging runs Postgres 16."}
            for body in ({"id": "rendezvous", "title": "Meeting", "type": "fact", "content": SECRET}, kept):
                assert (await me.post("/v1/knowledge", json=body)).status_code == 201
            diary = {"id": "diary", "title": "Diary", "type": "fact", "content": "A private diary entry."}
            assert (await victim.post("/v1/knowledge", json=diary)).status_code == 201
            desk, csrf = await _desk_session(api, person)
            done = await asyncio.to_thread(ctxnet, own_settings, "db", "backup", "--to", str(dump))
            assert done.returncode == 0, done.stderr

            # After the dump: writes the restored database never saw, a key revoked, a desk
            # session signed out, a user forgotten, a text forgotten.
            await _write(me, "after-dump", 30)
            async with httpx.AsyncClient(base_url=api.base_url, cookies={"desk_session": desk}) as browser:
                assert (await browser.post("/desk/sign-out", data={"csrf": csrf})).status_code == 303
            revoked = await asyncio.to_thread(ctxnet, own_settings, "keys", "revoke", spare.id)
            assert revoked.returncode == 0, revoked.stderr
            forgot = await asyncio.to_thread(
                ctxnet, own_settings, "users", "forget", "--user", "restore-victim", "--yes"
            )
            assert forgot.returncode == 0, forgot.stderr
            assert (await victim.get("/v1/me")).status_code == 401
            _, late_key = await keys.create("restore-late", Role.HUMAN)  # a user the dump never held
            async with _client(api, late_key) as late:
                await _write(late, "late", 1)
            forgot = await asyncio.to_thread(
                ctxnet, own_settings, "users", "forget", "--user", "restore-late", "--yes"
            )
            assert forgot.returncode == 0, forgot.stderr
            run = await me.post("/v1/forget", json={"match": {"query": "blue lighthouse"}, "dryRun": False})
            assert run.status_code == 200 and run.json()["matched"] >= 1, run.text
            await _nothing_came_back(me, spare_key, desk, "restore-victim", db)

            for round_ in (1, 2):  # two restores in a row, writes between them
                restored = await asyncio.to_thread(ctxnet, own_settings, "db", "restore", str(dump), "--yes")
                assert restored.returncode == 0, restored.stderr
                assert "5 entries of the ledger carried out again" in restored.stdout, restored.stdout
                assert f"key {spare.id} of user restore-person revoked" in restored.stdout
                ready, serving = await _serving_again(api, person, round_)
                last = restored.stdout.splitlines()[-1]
                print(f"restore {round_}: {last}; /ready 200 after {ready:.1f} s, 6 calls {serving:.1f} s")
                assert (await victim.get("/v1/me")).status_code == 401
                # A user the dump never held, forgotten after it: not made again, not even the
                # Tenant node the write gate would give them.
                assert await _nodes_of(db, "restore-late") == 0
                await _nothing_came_back(me, spare_key, desk, "restore-victim", db)
                await _write(me, f"between-{round_}", 20)
    finally:
        api.stop()


def _dump_by_hand(local: LocalNeo4j, folder: Path) -> Path:
    """A dump made with neo4j-admin itself, as an operator might (the ledger never hears of it)."""
    local.stop()
    try:
        done = subprocess.run(  # noqa: S603 - fixed argv
            [local.java_command(), "-cp", f"{local.lib}/*", ADMIN_TOOL, "database", "dump", "neo4j",
             f"--to-path={folder}"],
            capture_output=True, text=True, env=local.java_env(), check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    finally:
        local.start()
    return folder / "neo4j.dump"


async def test_a_dump_the_ledger_does_not_know_is_refused_until_forced(
    own_neo4j: tuple[LocalNeo4j, Database], own_settings: Settings, tmp_path: Path
) -> None:
    local, db = own_neo4j
    await migrate(db, 384)
    leaked, leaked_key = await ApiKeys(db).create("by-hand", Role.HUMAN)
    _, kept_key = await ApiKeys(db).create("by-hand", Role.AGENT, agent_id="kept")
    dump = _dump_by_hand(local, tmp_path)
    await db.wait_until_reachable(60)
    _, late_key = await ApiKeys(db).create("by-hand", Role.HUMAN)  # not in the dump
    revoked = await asyncio.to_thread(ctxnet, own_settings, "keys", "revoke", leaked.id)
    assert revoked.returncode == 0, revoked.stderr

    refused = await asyncio.to_thread(ctxnet, own_settings, "db", "restore", str(dump), "--yes")
    assert refused.returncode == 1
    assert "does not know this dump" in refused.stderr and "--force" in refused.stderr
    assert f"key {leaked.id} of user by-hand revoked" in refused.stderr  # what would come back
    assert local.status().bolt_open  # nothing stopped, nothing loaded
    await db.wait_until_reachable(60)
    resolve = ApiKeys(db, cache_seconds=0).resolve
    assert (await resolve(late_key)).user_id == "by-hand"

    forced = await asyncio.to_thread(ctxnet, own_settings, "db", "restore", str(dump), "--yes", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "1 entry of the ledger carried out again" in forced.stdout, forced.stdout
    await db.wait_until_reachable(60)
    for gone in (late_key, leaked_key):  # one not in the dump, one the ledger revoked again
        with pytest.raises(Unauthenticated):
            await resolve(gone)
    assert (await resolve(kept_key)).agent_id == "kept"
