"""A 503 may answer a commit cut off mid-way: the client sends a write again only when a
second send changes nothing (a client-chosen id, PUT, PATCH, DELETE, acks, reads); a POST
whose id the server makes is answered with its 503. A 429 was refused before anything
ran, so any call waits it out."""

from __future__ import annotations

import httpx
import pytest

from ctxnet.client import AsyncClient, Call, Client, Unavailable, resendable
from tests.unit.io.test_client_retries import answering, slept  # noqa: F401 - the fixture

RESENT = [
    Call("GET", "/v1/knowledge/n1"),
    Call("PUT", "/v1/profile", {"preferences": {}}),
    Call("PATCH", "/v1/knowledge/n1", {"title": "t"}),
    Call("DELETE", "/v1/knowledge/n1"),
    Call("POST", "/v1/knowledge", {"id": "n1", "title": "t", "content": "c", "type": "fact"}),
    Call("POST", "/v1/knowledge/batch", {"items": [{"id": "a"}, {"id": "b"}]}),
    Call("POST", "/v1/sessions/s1/tool-calls", {"items": [{"tool": "t", "position": 1}]}),
    Call("POST", "/v1/pending-actions/p1/ack", {"resolution": "done"}),
    Call("POST", "/v1/corrections/c1/ack", {"sessionId": "s1"}),
    Call("POST", "/v1/search", {"query": "q"}),
    Call(
        "POST", "/v1/connections/batch", {"items": [{"sourceId": "a", "type": "relatedTo", "targetId": "b"}]}
    ),
    Call("POST", "/v1/goals", {"title": "g"}, idempotent=True),
]
NOT_RESENT = [
    Call("POST", "/v1/knowledge", {"title": "t", "content": "c", "type": "fact"}),
    Call("POST", "/v1/knowledge/batch", {"items": [{"id": "a"}, {"title": "no id"}]}),
    Call("POST", "/v1/goals", {"title": "g"}),
    Call("POST", "/v1/sessions", {}),
    Call("POST", "/v1/sessions/s1/tool-calls", {"items": [{"tool": "t"}]}),
    Call("POST", "/v1/threads/t1/messages", {"messages": [{"role": "user", "content": "hi"}]}),
]


@pytest.mark.parametrize("call", RESENT, ids=lambda c: f"{c.method} {c.path}")
def test_an_idempotent_call_waits_out_a_503(call: Call, slept: list[float]) -> None:  # noqa: F811
    assert resendable(call)
    seen: list[httpx.Request] = []
    with Client("http://api", "k", transport=httpx.MockTransport(answering([503, 200], seen))) as cn:
        assert cn.send(call).status_code == 200
    assert len(seen) == 2 and slept == [2.0]


@pytest.mark.parametrize("call", NOT_RESENT, ids=lambda c: f"{c.method} {c.path} {c.json}")
async def test_a_post_the_server_names_is_sent_once_on_503_and_waits_out_a_429(
    call: Call,
    slept: list[float],  # noqa: F811
) -> None:
    assert not resendable(call)
    seen: list[httpx.Request] = []
    async with AsyncClient("http://api", "k", transport=httpx.MockTransport(answering([503], seen))) as cn:
        answer = await cn.send(call)
        assert answer.status_code == 503
        with pytest.raises(Unavailable):
            await cn.request_json(call.method, call.path, call.json)
    assert len(seen) == 2 and slept == []  # once per send, never again
    seen.clear()
    with Client("http://api", "k", transport=httpx.MockTransport(answering([429, 200], seen))) as sync:
        assert sync.send(call).status_code == 200  # a 429 ran nothing: sent again
    assert len(seen) == 2
