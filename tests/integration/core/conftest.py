"""The private Neo4j of the runtime tests (own folder, own ports, a small heap), started once
for the package and shared by ``test_runtime_recovery.py`` and ``test_runtime_migrate.py``,
and the environment of an API process that uses it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from ctxnet.neo4j_server import LocalNeo4j
from graph.core.db import Database
from graph.core.settings import Settings
from tests.support.servers import free_port


@pytest.fixture(scope="package")
def private_settings(tmp_path_factory: pytest.TempPathFactory, settings: Settings) -> Settings:
    """Settings of a Neo4j of its own: a fresh folder, free ports, a small heap."""
    return Settings(
        data_dir=tmp_path_factory.mktemp("private-neo4j"),
        neo4j_bolt_port=free_port(),
        neo4j_http_port=free_port(),
        neo4j_heap="512m",
        neo4j_pagecache="64m",
        neo4j_dist_dir=settings.neo4j_dist_dir or settings.neo4j_home / "lib",
        models_dir=settings.resolved_models_dir,
    )


@pytest.fixture(scope="package")
def private_neo4j(private_settings: Settings, neo4j_server: None) -> Iterator[LocalNeo4j]:
    """That Neo4j, started here for the first time (a first start: it sets its password), and
    stopped once the package's tests are done."""
    local = LocalNeo4j(private_settings)
    assert local.start() is True
    try:
        yield local
    finally:
        local.stop()


@pytest_asyncio.fixture(scope="package")
async def private_db(private_settings: Settings, private_neo4j: LocalNeo4j) -> AsyncIterator[Database]:
    """A database of that Neo4j, once it answers."""
    db = Database.from_settings(private_settings)
    await db.wait_until_reachable(60)
    yield db
    await db.close()


def private_api_env(settings: Settings, **extra: str) -> dict[str, str]:
    """The environment of an API process on the private Neo4j (``extra`` added)."""
    env = {
        "CTXNET_DATA_DIR": str(settings.data_dir),
        "CTXNET_MODELS_DIR": str(settings.resolved_models_dir),
        "CTXNET_NEO4J_BOLT_PORT": str(settings.neo4j_bolt_port),
        "CTXNET_API_KEY_CACHE_SECONDS": "0",
    }
    return {**env, **extra}
