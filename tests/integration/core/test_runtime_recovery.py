"""A private Neo4j (own folder, own ports) to test first start, outages and schema mismatch.

The API must wait for Neo4j at start-up (bounded), answer 503 while Neo4j is gone,
recover by itself when it returns, and refuse to start on a vector index of the wrong
size with a message that says how to re-embed.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import stat
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import pytest
import pytest_asyncio

from ctxnet.neo4j_server import LocalNeo4j
from graph.core.db import Database
from graph.core.embeddings import MINILM, LocalEmbedder
from graph.core.errors import SchemaMismatch
from graph.core.principals import ApiKeys, Role
from graph.core.schema import check_schema, migrate, reembed
from graph.core.settings import Settings
from graph.core.users import forget_user
from tests.integration.conftest import inspect
from tests.support.servers import ApiProcess, free_port


@pytest.fixture(scope="module")
def private_settings(tmp_path_factory: pytest.TempPathFactory, settings: Settings) -> Settings:
    return Settings(
        data_dir=tmp_path_factory.mktemp("private-neo4j"),
        neo4j_bolt_port=free_port(),
        neo4j_http_port=free_port(),
        neo4j_heap="512m",
        neo4j_pagecache="64m",
        neo4j_dist_dir=settings.neo4j_dist_dir or settings.neo4j_home / "lib",
        models_dir=settings.resolved_models_dir,
    )


@pytest.fixture(scope="module")
def private_neo4j(private_settings: Settings, neo4j_server: None) -> Iterator[LocalNeo4j]:
    local = LocalNeo4j(private_settings)
    assert local.start() is True
    try:
        yield local
    finally:
        local.stop()


@pytest_asyncio.fixture(scope="module")
async def private_db(private_settings: Settings, private_neo4j: LocalNeo4j) -> AsyncIterator[Database]:
    db = Database.from_settings(private_settings)
    await db.wait_until_reachable(60)
    yield db
    await db.close()


def _env(settings: Settings, **extra: str) -> dict[str, str]:
    env = {
        "CTXNET_DATA_DIR": str(settings.data_dir),
        "CTXNET_MODELS_DIR": str(settings.resolved_models_dir),
        "CTXNET_NEO4J_BOLT_PORT": str(settings.neo4j_bolt_port),
        "CTXNET_API_KEY_CACHE_SECONDS": "0",
    }
    return {**env, **extra}


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


async def test_vector_index_of_another_size_stops_start_up_until_reembedded(
    private_db: Database, private_settings: Settings, tmp_path: Path
) -> None:
    # A database whose vectors came from an 8-dimensional embedder.
    await migrate(private_db, 8)
    with pytest.raises(SchemaMismatch, match="ctxnet db reembed"):
        await migrate(private_db, 384)

    api = ApiProcess(tmp_path / "api.log", _env(private_settings)).start()
    assert api.exit_code(timeout=90) != 0
    assert "ctxnet db reembed" in api.log()

    # Re-embedding resizes the indexes and recomputes the old vectors; then the schema fits again.
    from neo4j import GraphDatabase

    auth = (private_settings.neo4j_user, private_settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        driver.execute_query(
            "CREATE (:Knowledge {userId: 'old', id: 'k', title: 'Old note', content: 'From the 8-dim days.', "
            "status: 'active', embedding: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], "
            "embeddingModel: 'old-8'}), "
            "(:Insight {userId: 'old', key: 'x', id: 'i', content: 'An old insight.', "
            "embedding: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], embeddingModel: 'old-8'}), "
            "(:AgentDoc {userId: 'old', agentId: 'a', id: 'a:capability:0', kind: 'capability', "
            "text: 'Old skill.', embedding: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], "
            "embeddingModel: 'old-8'}), "
            # a thread from before gists: none yet, and reembed makes it
            "(:Thread {userId: 'old', id: 't', topic: 'Old thread', messageCount: 1}), "
            "(:Message {userId: 'old', id: 'm', threadId: 't', seq: 1, role: 'user', content: 'Hello.'})"
        )
    embedder = LocalEmbedder()
    assert await reembed(private_db, embedder) == 4
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        sizes, _, _ = driver.execute_query(
            "MATCH (n) WHERE n.userId = 'old' AND n.embedding IS NOT NULL RETURN labels(n)[0] AS label, "
            "size(n.embedding) AS size, n.embeddingModel AS model, n.embeddedSeq AS seq ORDER BY label"
        )
        driver.execute_query("MATCH (n) WHERE n.userId = 'old' DETACH DELETE n")
    assert [(r["label"], r["size"], r["model"], r["seq"]) for r in sizes] == [
        ("AgentDoc", 384, embedder.model_id, None),
        ("Insight", 384, embedder.model_id, None),
        ("Knowledge", 384, embedder.model_id, None),
        ("Thread", 384, embedder.model_id, 1),  # its gist holds its one message
    ]
    report = await check_schema(private_db, 384)
    assert report.ok, report.problems
    assert report.vector_dimensions == {
        "knowledge_embedding": 384, "insight_embedding": 384, "thread_topic_embedding": 384,
    }  # fmt: skip


async def test_a_database_another_model_embedded_stops_start_up_until_reembedded(
    private_db: Database, private_settings: Settings, tmp_path: Path
) -> None:
    """Vectors of all-MiniLM-L6-v2 under the default bge-small: the API will not start (the two
    models' vectors mean nothing to each other), and names what it found and the way out;
    `ctxnet db reembed`, stopped part-way and run again, moves every kind of stored vector."""
    await migrate(private_db, 384)
    minilm = LocalEmbedder(MINILM)
    texts = {
        "k1": "Alpha\nThe billing service depends on the auth service.",
        "k2": "Beta\nWe deploy on Fridays only after the load test.",
        "i": "The user prefers short answers.",
        "w": "The cache\nWe chose a cache.\nUse Redis.\nRedis needs a password.",
        "c": "Gamma\nThe old, corrected claim.",
    }
    old = dict(zip(texts, minilm.embed_sync(list(texts.values())), strict=True))
    from neo4j import GraphDatabase

    auth = (private_settings.neo4j_user, private_settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        driver.execute_query(
            "UNWIND ['k1', 'k2'] AS id "
            "CREATE (n:Knowledge {userId: 'moved', id: id, title: split($texts[id], '\n')[0], "
            "content: split($texts[id], '\n')[1], status: 'active', embedding: $old[id], "
            "embeddingModel: $model}) "
            "WITH count(*) AS made "
            "CREATE (:Insight {userId: 'moved', key: 'i', id: 'i', content: $texts.i, embedding: $old.i, "
            "embeddingModel: $model}), "
            "(:WikiPage {userId: 'moved', slug: 'w', title: 'The cache', summary: 'We chose a cache.', "
            "decisions: ['Use Redis.'], learnings: ['Redis needs a password.'], embedding: $old.w, "
            "embeddingModel: $model}), "
            "(:Correction {userId: 'moved', id: 'c', embeddedText: $texts.c, embedding: $old.c, "
            "embeddingModel: $model})",
            texts=texts, old=old, model=minilm.model_id,
        )  # fmt: skip
    try:
        api = ApiProcess(tmp_path / "api.log", _env(private_settings)).start()
        assert api.exit_code(timeout=90) != 0
        for said in ("2 notes by all-MiniLM-L6-v2-onnx-int8", "1 insights", "1 saved pages", "1 corrections",
                     "ctxnet db reembed", "CTXNET_LOCAL_MODEL"):  # fmt: skip
            assert said in api.log(), api.log()
        # An operator may serve meanwhile, warned, e.g. while a large database is moved.
        anyway = ApiProcess(
            tmp_path / "api-anyway.log", _env(private_settings, CTXNET_SERVE_FOREIGN_VECTORS="true")
        )
        try:
            anyway.start().wait_ready()
            assert "serving anyway" in anyway.log()
        finally:
            anyway.stop()

        bge = LocalEmbedder()

        class Killed(Exception):
            pass

        def stop_after_first_page(done: int) -> None:
            raise Killed  # stopped part-way, after its first page of vectors was stored

        with pytest.raises(Killed):
            await reembed(private_db, bge, batch_size=1, progress=stop_after_first_page)
        assert await reembed(private_db, bge, batch_size=2) == 4  # the first page is not done again
        with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
            rows, _, _ = driver.execute_query(
                "MATCH (n {userId: 'moved'}) RETURN coalesce(n.id, n.slug) AS key, n.embedding AS vector, "
                "n.embeddingModel AS model"
            )
        assert {r["key"] for r in rows} == set(texts)
        for r in rows:
            assert r["model"] == bge.model_id
            [fresh] = bge.embed_sync([texts[r["key"]]])
            assert float(np.dot(fresh, r["vector"])) > 0.99, r["key"]
        api = ApiProcess(tmp_path / "api-again.log", _env(private_settings)).start()
        try:
            api.wait_ready()
        finally:
            api.stop()
    finally:
        with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
            driver.execute_query("MATCH (n {userId: 'moved'}) DETACH DELETE n")


async def test_migrate_rebuilds_the_fulltext_index_when_its_analyzer_changes(
    private_db: Database, private_settings: Settings
) -> None:
    """The index as an older build made it (Neo4j's default analyzer, no stemming): migrate
    rebuilds it with the english analyzer from the stored notes, which then match by stem."""
    from neo4j import GraphDatabase

    await migrate(private_db, 384)
    auth = (private_settings.neo4j_user, private_settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        driver.execute_query("DROP INDEX knowledge_fulltext")
        driver.execute_query(
            "CREATE FULLTEXT INDEX knowledge_fulltext FOR (n:Knowledge) "
            "ON EACH [n.title, n.content, n.tenantKey]"
        )
        driver.execute_query(
            "CREATE (:Knowledge {userId: 'analyzer-user', id: 'kept', status: 'active', "
            "title: 'Deployments', content: 'We deployed the billing services on Tuesday.', "
            "tenantKey: 'tanalyzer'})"
        )
        driver.execute_query("CALL db.awaitIndexes(300)")
    query = (
        "CALL db.index.fulltext.queryNodes('knowledge_fulltext', 'content:(deploy service)') "
        "YIELD node RETURN node.id AS id"
    )

    try:
        stale = await check_schema(private_db, 384)
        assert stale.stale_settings == ["knowledge_fulltext"]
        assert any(
            "fulltext.analyzer='standard-no-stop-words' (wanted 'english')" in p for p in stale.problems
        )
        with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
            before, _, _ = driver.execute_query(query)
        assert before == []  # no stemming: "deployed" is not "deploy"

        await migrate(private_db, 384)
        with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
            driver.execute_query("CALL db.awaitIndexes(300)")
            after, _, _ = driver.execute_query(query)
        assert [r["id"] for r in after] == ["kept"]
        assert (await check_schema(private_db, 384)).ok
    finally:
        with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
            driver.execute_query("MATCH (n:Knowledge {userId: 'analyzer-user'}) DETACH DELETE n")


async def test_migrate_rebuilds_a_vector_index_with_old_settings_from_the_stored_vectors(
    private_db: Database, private_settings: Settings
) -> None:
    from neo4j import GraphDatabase

    await migrate(private_db, 384)
    auth = (private_settings.neo4j_user, private_settings.resolved_neo4j_password() or "")
    vector = [1.0] + [0.0] * 383
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        # The index as another build made it: int8-quantized, a narrower HNSW build beam;
        # one note already stored.
        driver.execute_query("DROP INDEX knowledge_embedding")
        driver.execute_query(
            "CREATE VECTOR INDEX knowledge_embedding FOR (n:Knowledge) ON n.embedding OPTIONS {indexConfig: "
            "{`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', "
            "`vector.quantization.enabled`: true, `vector.hnsw.ef_construction`: 48}}"
        )
        driver.execute_query(
            "CREATE (n:Knowledge {userId: 'settings-user', id: 'kept', status: 'active'}) "
            "WITH n CALL db.create.setNodeVectorProperty(n, 'embedding', $vector)",
            vector=vector,
        )
        driver.execute_query("CALL db.awaitIndexes(300)")

    stale = await check_schema(private_db, 384)
    assert stale.stale_settings == ["knowledge_embedding"]
    assert any("vector.quantization.enabled=True (wanted False)" in p for p in stale.problems)
    assert any("vector.hnsw.ef_construction=48 (wanted 100)" in p for p in stale.problems)

    await migrate(private_db, 384)
    with GraphDatabase.driver(private_settings.resolved_neo4j_uri, auth=auth) as driver:
        driver.execute_query("CALL db.awaitIndexes(300)")
        [index], _, _ = driver.execute_query(
            "SHOW VECTOR INDEXES YIELD name, options WHERE name = 'knowledge_embedding' RETURN options"
        )
        hits, _, _ = driver.execute_query(
            "CALL db.index.vector.queryNodes('knowledge_embedding', 5, $vector) YIELD node, score "
            "WHERE node.userId = 'settings-user' RETURN node.id AS id, score",
            vector=vector,
        )
        driver.execute_query("MATCH (n:Knowledge {userId: 'settings-user'}) DETACH DELETE n")
    assert index["options"]["indexConfig"]["vector.quantization.enabled"] is False
    assert index["options"]["indexConfig"]["vector.hnsw.ef_construction"] == 100
    # Rebuilt from the vector the note kept, and scored exactly (cosine 1 -> Neo4j score 1).
    assert [(h["id"], round(h["score"], 6)) for h in hits] == [("kept", 1.0)]
    assert (await check_schema(private_db, 384)).ok


async def test_ready_goes_503_while_neo4j_is_down_and_recovers_without_restart(
    private_neo4j: LocalNeo4j, private_db: Database, private_settings: Settings, tmp_path: Path
) -> None:
    await migrate(private_db, 384)
    _, key = await ApiKeys(private_db).create("outage-user", Role.HUMAN)
    api = ApiProcess(tmp_path / "api.log", _env(private_settings)).start()
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


async def test_an_index_with_an_old_definition_is_reported(
    private_db: Database, private_neo4j: LocalNeo4j, private_settings: Settings
) -> None:
    from neo4j import GraphDatabase

    await migrate(private_db, 384)
    auth = (private_settings.neo4j_user, private_settings.resolved_neo4j_password() or "")
    with GraphDatabase.driver(private_neo4j.bolt_url, auth=auth) as driver:
        driver.execute_query("DROP INDEX knowledge_fulltext")
        driver.execute_query(
            "CREATE FULLTEXT INDEX knowledge_fulltext FOR (n:Knowledge) ON EACH [n.title, n.content]"
        )
    report = await check_schema(private_db, 384)
    assert any("knowledge_fulltext covers ['title', 'content']" in p for p in report.problems), (
        report.problems
    )
    await private_db.run_autocommit("queries/core/schema_drop_index", name="knowledge_fulltext")
    await migrate(private_db, 384)
    assert (await check_schema(private_db, 384)).ok


async def test_replicas_starting_together_apply_the_schema_side_by_side(private_db: Database) -> None:
    from graph.core.schema import apply_schema

    dimension = 384
    for index in ("knowledge_user", "thread_user_updated", "job_user", "merged_note_user"):
        await private_db.run_autocommit("queries/core/schema_drop_index", name=index)
    # Four processes' worth of migrations at once: each finds some indexes created by another.
    await asyncio.gather(*(apply_schema(private_db, dimension) for _ in range(4)))
    report = await check_schema(private_db, dimension)
    assert report.ok, report.problems


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
    api = ApiProcess(tmp_path / "api.log", _env(private_settings)).start()
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
