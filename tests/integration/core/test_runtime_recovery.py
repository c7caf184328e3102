"""A private Neo4j (own folder, own ports) to test first start and outages.

The API must wait for Neo4j at start-up (bounded), answer 503 while Neo4j is gone, recover
by itself when it returns, and lose no acknowledged write when Neo4j is killed under load.
Schema mismatch (an index of the wrong size, vectors of another model): ``test_runtime_migrate.py``.
The private Neo4j is ``conftest.py``'s, shared by both.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import stat
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from ctxnet.neo4j_server import LocalNeo4j
from graph.core.db import Database
from graph.core.principals import ApiKeys, Role
from graph.core.schema import migrate
from graph.core.settings import Settings
from graph.core.users import forget_user
from tests.integration.conftest import inspect
from tests.integration.core.conftest import private_api_env
from tests.support.servers import ApiProcess, free_port


def test_first_start_generates_a_private_password(
    private_neo4j: LocalNeo4j, private_settings: Settings
) -> None:
    password_file = private_settings.local_password_file
    assert password_file.is_file()
    assert stat.S_IMODE(password_file.stat().st_mode) == 0o600
    assert len(password_file.read_text().strip()) >= 24


def test_everything_the_server_writes_is_private(private_neo4j: LocalNeo4j) -> None:
    home = private_neo4j.home
    exposed = []
    for folder, folders, files in os.walk(home):
        if Path(folder) == home:
            folders[:] = [f for f in folders if Path(home, f) != private_neo4j.lib]
        for name in [*folders, *files]:
            path = Path(folder, name)
            if not path.is_symlink() and stat.S_IMODE(path.stat().st_mode) & 0o077:
                exposed.append(f"{oct(stat.S_IMODE(path.stat().st_mode))} {path.relative_to(home)}")
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert not exposed, exposed
    store = list((private_neo4j.data / "databases" / "neo4j").iterdir())
    assert store, "the store exists and was checked"


def test_two_starts_at_once_run_one_server(
    tmp_path_factory: pytest.TempPathFactory, private_settings: Settings
) -> None:
    settings = private_settings.model_copy(
        update={
            "data_dir": tmp_path_factory.mktemp("race"),
            "neo4j_bolt_port": free_port(),
            "neo4j_http_port": free_port(),
        }
    )
    first, second = LocalNeo4j(settings), LocalNeo4j(settings)
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda local: local.start(), (first, second)))
    try:
        assert sorted(results) == [False, True]
        assert first.pid() == second.pid() is not None
        assert first.status().bolt_open
    finally:
        first.stop()
    assert second.pid() is None
    # Whichever started the server, its Popen knows the server is gone (stopped through the
    # other object), so collecting it later warns of no "subprocess still running".
    for local in (first, second):
        assert local._process is None or local._process.returncode is not None


def test_browser_is_served_and_advertises_bolt(private_neo4j: LocalNeo4j, private_settings: Settings) -> None:
    browser = httpx.get(private_neo4j.browser_url, timeout=10)
    assert browser.status_code == 200
    assert "<html" in browser.text.lower()
    discovery = httpx.get(f"http://127.0.0.1:{private_settings.neo4j_http_port}/", timeout=10).json()
    assert discovery["neo4j_version"].startswith("5.26")
    assert discovery["bolt_direct"] == f"bolt://127.0.0.1:{private_settings.neo4j_bolt_port}"


def test_bolt_port_accepts_websockets_as_browser_needs(private_neo4j: LocalNeo4j) -> None:
    # Neo4j Browser speaks Bolt over a WebSocket to the Bolt port.
    import socket

    port = private_neo4j.settings.neo4j_bolt_port
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            (
                f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                "Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1\r\n\r\n"
            ).encode()
        )
        answer = sock.recv(1024).decode("latin-1")
    assert answer.startswith("HTTP/1.1 101"), answer


def test_wrong_password_is_refused(private_neo4j: LocalNeo4j, private_settings: Settings) -> None:
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError

    with (
        GraphDatabase.driver(private_neo4j.bolt_url, auth=("neo4j", "wrong-password")) as driver,
        pytest.raises(AuthError),
    ):
        driver.verify_connectivity()


def test_api_exits_with_a_clear_message_when_neo4j_never_answers(tmp_path: Path) -> None:
    env = {
        "CTXNET_NEO4J_URI": f"bolt://127.0.0.1:{free_port()}",
        "CTXNET_NEO4J_PASSWORD": "irrelevant",
        "CTXNET_NEO4J_STARTUP_WAIT_SECONDS": "3",
    }
    api = ApiProcess(tmp_path / "api.log", env).start()
    assert api.exit_code(timeout=60) != 0
    assert "did not answer within 3s" in api.log()


async def test_ready_goes_503_while_neo4j_is_down_and_recovers_without_restart(
    private_neo4j: LocalNeo4j, private_db: Database, private_settings: Settings, tmp_path: Path
) -> None:
    await migrate(private_db, 384)
    _, key = await ApiKeys(private_db).create("outage-user", Role.HUMAN)
    api = ApiProcess(tmp_path / "api.log", private_api_env(private_settings)).start()
    try:
        api.wait_ready()
        assert api.process is not None
        pid = api.process.pid
        auth = {"Authorization": f"Bearer {key}"}
        assert httpx.get(f"{api.base_url}/v1/me", headers=auth).status_code == 200

        private_neo4j.stop()
        ready = httpx.get(f"{api.base_url}/ready", timeout=30)
        assert ready.status_code == 503
        assert "unavailable" in ready.json()["reason"]
        me = httpx.get(f"{api.base_url}/v1/me", headers=auth, timeout=30)
        assert me.status_code == 503
        assert me.json()["error"]["code"] == "database_unavailable"
        # Where Neo4j runs is in the log, not in what clients get; they get a request id.
        port = str(private_settings.neo4j_bolt_port)
        assert port not in ready.text and port not in me.text, (ready.text, me.text)
        assert me.headers["x-request-id"] and port in api.log()

        private_neo4j.start()
        deadline = time.monotonic() + 60
        while httpx.get(f"{api.base_url}/ready", timeout=30).status_code != 200:
            assert time.monotonic() < deadline, "API did not recover after Neo4j came back"
            time.sleep(0.5)
        assert httpx.get(f"{api.base_url}/v1/me", headers=auth).status_code == 200
        assert api.process.poll() is None and api.process.pid == pid
        assert os.path.exists(f"/proc/{pid}")
    finally:
        api.stop()


async def test_neo4j_killed_under_write_load_loses_no_acknowledged_note_and_duplicates_none(
    private_neo4j: LocalNeo4j, private_db: Database, private_settings: Settings, tmp_path: Path
) -> None:
    """``kill -9`` of Neo4j while batches and single creates with client ids are in flight.

    Each writer retries a refused or cut-off write with the same ids until it is
    acknowledged (as a client should); a write whose commit landed but whose answer was lost
    must then come back as "existed" (200), not as a second note.
    """
    await migrate(private_db, 384)
    user = "fault-user"
    _, key = await ApiKeys(private_db).create(user, Role.HUMAN)
    api = ApiProcess(tmp_path / "api.log", private_api_env(private_settings)).start()
    rng = random.Random(11)
    acknowledged: set[str] = set()
    attempted: set[str] = set()
    refused: list[int] = []  # statuses other than 200/201, retried
    stop = asyncio.Event()

    def note(note_id: str, with_vector: bool) -> dict[str, object]:
        body: dict[str, object] = {
            "id": note_id, "title": f"note {note_id}", "type": "fact",
            "content": f"fault test note {note_id}: {rng.random()}", "dedupe": False,
        }  # fmt: skip
        if with_vector:
            body["embedding"] = [rng.uniform(-1, 1) for _ in range(384)]
        return body

    async def until_acknowledged(http: httpx.AsyncClient, path: str, body: object, ids: list[str]) -> None:
        attempted.update(ids)
        while True:
            try:
                answer = await http.post(path, json=body)
            except httpx.TransportError:
                await asyncio.sleep(0.2)
                continue
            if answer.status_code in (200, 201):
                acknowledged.update(ids)
                return
            refused.append(answer.status_code)
            assert answer.status_code == 503, answer.text  # Neo4j away: nothing else is expected
            await asyncio.sleep(0.2)

    async def batch_writer(http: httpx.AsyncClient, name: str) -> None:
        round_ = 0
        while not stop.is_set():
            ids = [f"{name}-{round_}-{i}" for i in range(50)]
            batch = {"items": [note(i, with_vector=True) for i in ids]}
            await until_acknowledged(http, "/v1/knowledge/batch", batch, ids)
            round_ += 1

    async def single_writer(http: httpx.AsyncClient, name: str) -> None:
        round_ = 0
        while not stop.is_set():
            note_id = f"{name}-{round_}"
            # Half of them embedded by the service, half with a vector of their own.
            await until_acknowledged(http, "/v1/knowledge", note(note_id, round_ % 2 == 0), [note_id])
            round_ += 1

    try:
        api.wait_ready()
        auth = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(base_url=api.base_url, headers=auth, timeout=60) as http:
            writers = [asyncio.create_task(batch_writer(http, f"batch{i}")) for i in range(2)]
            writers += [asyncio.create_task(single_writer(http, f"single{i}")) for i in range(4)]
            started = time.monotonic()
            while len(acknowledged) < 200:
                assert time.monotonic() - started < 60, "the load did not get going"
                await asyncio.sleep(0.1)
            before_kill = len(acknowledged)
            pid = private_neo4j.pid()
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            await asyncio.sleep(2)  # writes are refused meanwhile
            await asyncio.to_thread(private_neo4j.start)  # returns once Bolt answers again
            bolt_back = time.monotonic()
            await private_db.wait_until_reachable(60)  # and the database has recovered and serves
            back = time.monotonic()
            while (await http.get("/ready")).status_code != 200:
                assert time.monotonic() - back < 15, "/ready not back within 15 s of Neo4j"
                await asyncio.sleep(0.25)
            ready_after = time.monotonic() - back
            recovery = back - bolt_back
            after_restart = len(acknowledged)
            await asyncio.sleep(4)
            stop.set()
            await asyncio.gather(*writers)
        rows = await inspect(
            private_db, "MATCH (n:Knowledge {userId: $user}) RETURN n.id AS id, count(*) AS copies", user=user
        )
        stored = {row["id"]: row["copies"] for row in rows}
    finally:
        api.stop()
        await forget_user(private_db, user)
    print(
        f"acknowledged {len(acknowledged)}, refused {len(refused)}; Neo4j served {recovery:.1f}s after "
        f"Bolt opened, and /ready answered 200 {ready_after:.1f}s after that"
    )
    assert before_kill > 0 and len(acknowledged) > after_restart, "the load ran on both sides of the kill"
    assert refused, "the kill was felt: some writes were refused and retried"
    assert attempted == acknowledged  # every writer ended on an acknowledged write
    assert acknowledged <= stored.keys(), f"lost: {sorted(acknowledged - stored.keys())[:10]}"
    assert set(stored) == acknowledged, f"never acknowledged: {sorted(set(stored) - acknowledged)[:10]}"
    assert {copies for copies in stored.values()} == {1}, "a retry created a duplicate"
