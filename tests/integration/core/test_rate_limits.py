"""Per-key rate limits: one budget per key however many API processes serve it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from graph.core.db import Database
from graph.core.users import forget_user
from tests.integration.conftest import MakeCaller, inspect
from tests.support.servers import ApiProcess

LIMIT = 20


@pytest.fixture(scope="module")
def limited(neo4j_server: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[ApiProcess]]:
    """Two API processes on the same Neo4j, each allowing a key 20 requests a minute."""
    folder = tmp_path_factory.mktemp("rate-limited")
    env = {"CTXNET_RATE_LIMIT_PER_MINUTE": str(LIMIT), "CTXNET_API_KEY_CACHE_SECONDS": "5"}
    processes = [ApiProcess(folder / f"api-{i}.log", env).start() for i in range(2)]
    try:
        for process in processes:
            process.wait_ready()
        yield processes
    finally:
        for process in processes:
            process.stop()


def _clear_of_the_minute_boundary() -> None:
    """The count resets smoothly at a minute's end; start well inside one, so the test's
    burst is counted in a single minute and the expected split is exact."""
    into = time.time() % 60
    if into > 50:
        time.sleep(61 - into)


async def test_a_key_gets_its_limit_across_processes_then_429_with_retry_after(
    limited: list[ApiProcess], make_caller: MakeCaller, db: Database
) -> None:
    alice = await make_caller()
    other_key = await make_caller(user_id=alice.user_id)  # the same user's second key
    bob = await make_caller()
    clients = [alice.client(p.base_url) for p in limited]
    _clear_of_the_minute_boundary()
    # 30 requests at once, spread over both processes: exactly 20 get through.
    answers = await asyncio.gather(*(clients[i % 2].get("/v1/me") for i in range(30)))
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] * LIMIT + [429] * 10, statuses
    refused = next(a for a in answers if a.status_code == 429)
    assert refused.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert f"{LIMIT} requests a minute" in refused.json()["error"]["message"]
    # Other keys, the same user's or another user's, have budgets of their own.
    for caller in (other_key, bob):
        http = caller.client(limited[1].base_url)
        assert (await http.get("/v1/me")).status_code == 200
    # Forgetting the user takes the key's counters with it.
    assert await inspect(db, "MATCH (w:RateWindow {userId: $u}) RETURN count(w) AS n", u=alice.user_id) != [
        {"n": 0}
    ]
    await forget_user(db, alice.user_id)
    rows = await inspect(db, "MATCH (w:RateWindow {userId: $u}) RETURN count(w) AS n", u=alice.user_id)
    assert rows == [{"n": 0}]


async def test_without_a_limit_nothing_is_counted(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller()  # the suite's API runs without rate limits, as a laptop does
    answers = await asyncio.gather(*(alice.http.get("/v1/me") for _ in range(40)))
    assert {a.status_code for a in answers} == {200}
    rows = await inspect(db, "MATCH (w:RateWindow {userId: $u}) RETURN count(w) AS n", u=alice.user_id)
    assert rows == [{"n": 0}]


def test_retry_after_points_at_when_room_is_made() -> None:
    from graph.core.ratelimit import retry_after

    # This minute alone is full: wait for its end.
    assert retry_after(20, previous=0, current=20, elapsed=0.25) == 45
    # The last minute's weight blocks: 30 * (1 - e) + 5 + 1 <= 20 once e >= 8/15 (32 s in).
    assert retry_after(20, previous=30, current=5, elapsed=0.5) == 2
    assert retry_after(20, previous=30, current=5, elapsed=0.9) == 1  # never 0
