"""A read of one statement runs as an auto-commit query, which the driver does not retry: the
Database retries it as the driver retries a transaction function (a stand-in session here,
whose faults a real server cannot be made to give on cue; the read itself is exercised on
Neo4j by every integration test)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import exceptions as neo4j_errors

from graph.core import db as db_module
from graph.core.db import Database
from graph.core.errors import DatabaseUnavailable, InvalidInput


class _Result:
    def keys(self) -> list[str]:
        return ["rows"]

    async def values(self) -> list[list[Any]]:
        return [[["a", "b"]]]


class _Session:
    def __init__(self, driver: _Driver) -> None:
        self._driver = driver

    async def __aenter__(self) -> _Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def run(self, query: str, params: dict[str, Any]) -> _Result:
        self._driver.attempts += 1
        if self._driver.faults:
            raise self._driver.faults.pop(0)
        return _Result()


class _Driver:
    def __init__(self, faults: list[Exception]) -> None:
        self.faults = faults
        self.attempts = 0

    def session(self, **_: Any) -> _Session:
        return _Session(self)


#: The waits as the module gives them (the tests below wait none).
DELAYS = db_module._retry_delays


@pytest.fixture(autouse=True)
def _no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    def instant() -> Iterator[float]:
        return itertools.repeat(0.0)

    monkeypatch.setattr(db_module, "_retry_delays", instant)


def _database(faults: list[Exception], retry_seconds: float = 5.0) -> tuple[Database, _Driver]:
    driver = _Driver(faults)
    return Database(driver, "neo4j", retry_seconds), driver  # type: ignore[arg-type]


async def test_a_read_is_retried_through_transient_faults() -> None:
    database, driver = _database(
        [neo4j_errors.TransientError("busy"), neo4j_errors.ServiceUnavailable("restarting")]
    )
    assert await database.read("queries/core/ping") == [{"rows": ["a", "b"]}]
    assert driver.attempts == 3


async def test_a_read_refused_for_its_own_sake_is_not_retried() -> None:
    database, driver = _database([neo4j_errors.ClientError("no such thing")])
    with pytest.raises(InvalidInput):
        await database.read("queries/core/ping")
    assert driver.attempts == 1


class _Clock:
    """``time`` as the module reads it, each attempt taking 10 ms of it: the test does not
    depend on how fast this machine runs 1,000 attempts (an idle one ran them within 50 ms)."""

    def __init__(self, driver: _Driver) -> None:
        self._driver = driver

    def monotonic(self) -> float:
        return self._driver.attempts * 0.01

    @staticmethod
    def perf_counter() -> float:
        return 0.0


async def test_a_read_gives_up_after_its_retry_time(monkeypatch: pytest.MonkeyPatch) -> None:
    database, driver = _database([neo4j_errors.ServiceUnavailable("gone")] * 1000, retry_seconds=0.05)
    monkeypatch.setattr(db_module, "time", _Clock(driver))
    with pytest.raises(DatabaseUnavailable):
        await database.read("queries/core/ping")
    assert driver.attempts == 6  # retried while at most 50 ms had gone by: the sixth ends at 60 ms


def test_the_waits_grow_as_the_drivers_do() -> None:
    waits = list(itertools.islice(DELAYS(), 4))
    for wait, nominal in zip(waits, (1.0, 2.0, 4.0, 8.0), strict=True):
        assert nominal * 0.8 <= wait <= nominal * 1.2
