"""Integration fixtures: the real Neo4j (started here if none runs) and the real API over HTTP.

Every test works as its own freshly made user and forgets that user afterwards, so
tests neither see nor disturb each other's data, and may run side by side in pytest-xdist
workers (``make test``). A test that needs the machine to itself is marked ``serial``
(see :data:`SERIAL_FIXTURES` and ``tests/support/suite.py``) and runs after them, alone.
"""

from __future__ import annotations

import fcntl
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, LiteralString

import httpx
import neo4j
import pytest
import pytest_asyncio

from ctxnet.neo4j_server import LocalNeo4j
from graph.core.db import Database
from graph.core.embeddings import embedder_dimension
from graph.core.principals import ApiKeys, Role, Scope
from graph.core.schema import migrate
from graph.core.settings import Settings
from graph.core.users import forget_user
from tests.support.servers import ApiProcess, running_api
from tests.support.suite import SERIAL_FILES_ENV

#: Fixtures of tests that must have the machine to themselves: they start a Neo4j of their
#: own (a second JVM on two cores), kill or restart servers, or drive a browser. A test that
#: uses one is marked ``serial``; other such tests carry ``@pytest.mark.serial`` themselves.
SERIAL_FIXTURES = {"private_settings", "private_neo4j", "private_db", "chromium"}
INTEGRATION = Path(__file__).resolve().parent


#: The longest tests (a minute or so each on 2 cores), started first: side by side in
#: ``make test`` they then run while the many short tests fill the other worker, instead of
#: one of them being left to run alone at the end. Only the order depends on this list.
LONGEST = (
    "core/test_answer_sizes.py::",
    "core/test_fuzz.py::",
    "project/test_forget_shapes.py::",
    "::test_a_killed_import_resumes",
    "core/test_bounds.py::test_a_note_with_300_merges",
    "knowledge/test_truth_properties.py::",
    "core/test_cli.py::test_serve_runs_several_workers",
    "::test_jsonl_and_csv_and_the_command_line",
    "::test_export_import_export",
)


def _started_first(item: pytest.Item) -> int:
    return next((i for i, name in enumerate(LONGEST) if name in item.nodeid), len(LONGEST))


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects by these marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test here ``integration``, and those using :data:`SERIAL_FIXTURES` ``serial``;
    start the :data:`LONGEST` first."""
    items.sort(key=_started_first)  # stable: the rest keep their order
    for item in items:
        if INTEGRATION in item.path.parents:
            item.add_marker(pytest.mark.integration)
            if SERIAL_FIXTURES.intersection(getattr(item, "fixturenames", ())):
                item.add_marker(pytest.mark.serial)
    # tests/support/suite.py's second part collects only the files that hold serial tests.
    listing = os.environ.get(SERIAL_FILES_ENV)
    if listing and os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0":
        files = sorted({str(item.path) for item in items if item.get_closest_marker("serial")})
        Path(listing).write_text("".join(f"{name}\n" for name in files), encoding="utf-8")


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings()


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (made if missing) for the block."""
    with path.open("a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """The folder every pytest-xdist worker of this run shares; ``None`` outside xdist."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return None
    return tmp_path_factory.getbasetemp().parent


@pytest.fixture(scope="session")
def neo4j_server(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The project's local Neo4j: started if it is not running, and then stopped afterwards.

    Under pytest-xdist the workers count themselves in and out in a shared folder: the first
    starts it (``LocalNeo4j.start`` takes a lock of its own, so two never both start one) and
    the last to leave stops it, if this run started it, never under another worker's feet."""
    if settings.neo4j_uri is not None:  # an external server was configured
        yield
        return
    local = LocalNeo4j(settings)
    if local.pid() is None and local.port_answers(settings.neo4j_bolt_port):
        if settings.resolved_neo4j_password() is None:
            pytest.exit(
                f"port {settings.neo4j_bolt_port} is served by a Neo4j this checkout did not start and "
                "has no password for; stop it, or set CTXNET_NEO4J_BOLT_PORT/_HTTP_PORT (or _PASSWORD)",
                returncode=2,
            )
        yield  # a Neo4j we did not start already serves this port: use it, leave it running
        return
    shared = _shared_folder(tmp_path_factory)
    if shared is None:
        started = local.start()
        try:
            yield
        finally:
            if started:
                local.stop()
        return
    users, ours = shared / "neo4j-users", shared / "neo4j-started-by-this-run"
    with _locked(shared / "neo4j.lock"):
        if local.start():
            ours.touch()
        users.write_text(str(int(users.read_text() or 0) + 1 if users.exists() else 1))
    try:
        yield
    finally:
        with _locked(shared / "neo4j.lock"):
            left = int(users.read_text()) - 1
            users.write_text(str(left))
            if left == 0 and ours.exists():
                ours.unlink()
                local.stop()


@pytest_asyncio.fixture(scope="session")
async def db(settings: Settings, neo4j_server: None) -> AsyncIterator[Database]:
    database = Database.from_settings(settings)
    await database.wait_until_reachable(60)
    await migrate(database, embedder_dimension(settings))
    yield database
    await database.close()


@pytest.fixture(scope="session")
def api(neo4j_server: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """The API in its own process; keys are re-checked on every request (no cache)."""
    log = tmp_path_factory.mktemp("api") / "api.log"
    with running_api(log, {"CTXNET_API_KEY_CACHE_SECONDS": "0"}) as process:
        yield process


@pytest.fixture(scope="session")
def peer_api(neo4j_server: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """A second API process on the same Neo4j, configured as a busy deployment would be:
    keys trusted for 5 s and note counts cached for 30 s (per-process caches), and the
    vector index plan for every user however few notes they have (so the index paths of
    search, dedupe and insight recall run in tests, not only the exact ones)."""
    log = tmp_path_factory.mktemp("peer-api") / "api.log"
    env = {
        "CTXNET_API_KEY_CACHE_SECONDS": "5",
        "CTXNET_TENANT_SIZE_CACHE_SECONDS": "30",
        "CTXNET_SEARCH_EXACT_MAX_NOTES": "0",
    }
    with running_api(log, env) as process:
        yield process


@dataclass
class Caller:
    """A user with an API key, and an HTTP client that sends it (to ``api``, or to ``peer_api``
    through :meth:`peer`)."""

    user_id: str
    key: str
    key_id: str
    http: httpx.AsyncClient
    _clients: list[httpx.AsyncClient]

    def client(self, base_url: str) -> httpx.AsyncClient:
        """Another HTTP client with this caller's key, e.g. for the peer API process."""
        client = httpx.AsyncClient(
            base_url=base_url, headers={"Authorization": f"Bearer {self.key}"}, timeout=60
        )
        self._clients.append(client)
        return client


MakeCaller = Callable[..., Awaitable[Caller]]


@pytest_asyncio.fixture
async def make_caller(db: Database, api: ApiProcess) -> AsyncIterator[MakeCaller]:
    """Make callers (a fresh user each, unless one is named); forget their users afterwards."""
    made: list[Caller] = []

    async def make(
        role: Role = Role.HUMAN,
        agent_id: str | None = None,
        user_id: str | None = None,
        scope: Scope | None = None,
    ) -> Caller:
        user = user_id or f"test-{uuid.uuid4().hex[:12]}"
        info, secret = await ApiKeys(db).create(user, role, agent_id=agent_id, scope=scope)
        client = httpx.AsyncClient(
            base_url=api.base_url, headers={"Authorization": f"Bearer {secret}"}, timeout=30
        )
        caller = Caller(user, secret, info.id, client, [client])
        made.append(caller)
        return caller

    yield make
    for caller in made:
        for client in caller._clients:
            await client.aclose()
        await forget_user(db, caller.user_id)


async def inspect(db: Database, cypher: LiteralString, **params: Any) -> list[dict[str, Any]]:
    """Rows of a read-only Cypher statement written in a test, to look at what the service
    stored (the product's own statements all live in cypher/)."""
    records, _, _ = await db.driver.execute_query(
        cypher, params, database_=db.database, routing_=neo4j.RoutingControl.READ
    )
    return [record.data() for record in records]


@pytest.fixture
def anonymous(api: ApiProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api.base_url, timeout=30) as client:
        yield client


@pytest.fixture
def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


async def correct_and_propose(person: Caller, agent: Caller, note_id: str, text: str) -> dict[str, str]:
    """An agent's note that a person corrects and the agent then tries to change back: ids of
    the latest mutation, the correction and the proposal (for the walkers of the document)."""
    body = {"id": note_id, "title": "Agent note", "content": text, "type": "fact", "dedupe": False}
    assert (await agent.http.post("/v1/knowledge", json=body)).status_code == 201
    fixed = await person.http.patch(f"/v1/knowledge/{note_id}", json={"content": f"Corrected: {text}"})
    assert fixed.status_code == 200, fixed.text
    back = await agent.http.patch(f"/v1/knowledge/{note_id}", json={"content": text})
    assert back.status_code == 202, back.text
    [correction] = (await person.http.get("/v1/corrections", params={"targetId": note_id})).json()["items"]
    [mutation] = (await person.http.get("/v1/mutations", params={"limit": 1})).json()["items"]
    proposal = back.json()["proposal"]["id"]
    return {"mutation": mutation["id"], "correction": correction["id"], "proposal": proposal}
