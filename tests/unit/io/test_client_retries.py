"""The client waits and tries again on 503 and 429 only, as the API asks (Retry-After), and
never on anything else: a 4xx is the caller's to fix, a 500 would only repeat."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import pytest

from ctxnet import transport as client_module
from ctxnet.client import AsyncClient, Client, InvalidInput, RateLimited, Unavailable

ERROR = {"error": {"code": "unavailable", "message": "the database is unavailable", "field": None}}


def answering(statuses: list[int], seen: list[httpx.Request]) -> Callable[[httpx.Request], httpx.Response]:
    """A transport answering each status in turn (the last one for ever), then 200."""

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        status = statuses[min(len(seen) - 1, len(statuses) - 1)]
        if status == 200:
            return httpx.Response(200, json={"userId": "u", "role": "agent", "agentId": "a", "keyId": "k"})
        body = (
            ERROR
            if status != 422
            else {"error": {"code": "invalid_input", "message": "bad", "field": "type"}}
        )
        return httpx.Response(status, json=body, headers={"Retry-After": "2"} if status in (429, 503) else {})

    return handle


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waits: list[float] = []
    monkeypatch.setattr(client_module.time, "sleep", waits.append)

    async def no_wait(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(client_module.asyncio, "sleep", no_wait)
    return waits


def test_503_and_429_are_waited_out_as_the_api_asks(slept: list[float]) -> None:
    seen: list[httpx.Request] = []
    with Client("http://api", "k", transport=httpx.MockTransport(answering([503, 429, 200], seen))) as cn:
        assert cn.me().user_id == "u"
    assert len(seen) == 3 and slept == [2.0, 2.0]
    assert seen[0].headers["authorization"] == "Bearer k"


def test_the_retries_end_and_the_error_is_raised_with_its_code(slept: list[float]) -> None:
    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(answering([503], seen))
    with Client("http://api", "k", retries=2, transport=transport) as cn, pytest.raises(Unavailable) as error:
        cn.me()
    assert len(seen) == 3 and error.value.code == "unavailable"
    seen.clear()
    transport = httpx.MockTransport(answering([429], seen))
    with Client("http://api", "k", retries=1, transport=transport) as cn, pytest.raises(RateLimited):
        cn.me()
    assert len(seen) == 2


@pytest.mark.parametrize("status", [400, 401, 404, 409, 422, 500, 502])
def test_nothing_else_is_tried_again(status: int, slept: list[float]) -> None:
    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(answering([status], seen))
    with Client("http://api", "k", transport=transport) as cn, pytest.raises(client_module.ApiError) as error:
        cn.me()
    assert len(seen) == 1 and slept == [] and error.value.status == status
    if status == 422:
        assert isinstance(error.value, InvalidInput) and error.value.field == "type"


def test_without_retry_after_the_wait_backs_off_with_jitter() -> None:
    response = httpx.Response(503)
    for attempt in range(6):
        assert 0 <= client_module.wait_before(response, attempt, 0.5) <= min(30.0, 0.5 * 2**attempt)


def test_the_async_client_waits_the_same(slept: list[float]) -> None:
    seen: list[httpx.Request] = []

    async def run() -> str:
        transport = httpx.MockTransport(answering([503, 200], seen))
        async with AsyncClient("http://api", "k", session_id="s1", transport=transport) as cn:
            return (await cn.me()).user_id

    assert asyncio.run(run()) == "u"
    assert len(seen) == 2 and slept == [2.0] and seen[0].headers["x-session-id"] == "s1"
