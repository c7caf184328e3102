"""A message's ``data``: a JSON payload kept exactly as sent, over HTTP against the real
Neo4j: generated values come back equal through append and read, the bounds refuse with the
field named, and appends at once each keep their own."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxnet.wire.base import DATA_MAX_DEPTH, compact_json
from tests.integration.conftest import MakeCaller
from tests.integration.knowledge.test_data import VALUES, _nested


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(VALUES, min_size=1, max_size=4))
async def test_any_json_value_comes_back_exactly(make_caller: MakeCaller, values: list[Any]) -> None:
    alice = await make_caller()
    assert (await alice.http.post("/v1/threads", json={"id": "t1", "topic": "payloads"})).status_code == 201
    sent = [{"role": "tool", "content": f"item {i}", "data": v} for i, v in enumerate(values)]
    sent.append({"role": "user", "content": "no payload"})
    made = await alice.http.post("/v1/threads/t1/messages", json={"messages": sent})
    assert made.status_code == 201, made.text
    read = (await alice.http.get("/v1/threads/t1/messages")).json()["items"]
    for answer in (made.json()["items"], read):
        assert [compact_json(m["data"]) for m in answer[:-1]] == [compact_json(v) for v in values]
        assert "data" not in answer[-1]


async def test_the_bounds_refuse_with_the_field_and_write_nothing(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    assert (await alice.http.post("/v1/threads", json={"id": "t1", "topic": "payloads"})).status_code == 201
    messages = [{"role": "user", "content": f"m{i}", "data": {"i": i}} for i in range(5)]
    messages[3]["data"] = _nested(DATA_MAX_DEPTH + 1)
    refused = await alice.http.post("/v1/threads/t1/messages", json={"messages": messages})
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "messages.3.data", refused.text
    assert (await alice.http.get("/v1/threads/t1/messages")).json()["items"] == []
    again = await alice.http.post("/v1/threads/t1/messages", json={"messages": [messages[0]]})
    assert again.status_code == 201
    other = {"id": again.json()["items"][0]["id"], "role": "user", "content": "m0", "data": {"i": 9}}
    clash = await alice.http.post("/v1/threads/t1/messages", json={"messages": [other]})
    assert clash.status_code == 409 and clash.json()["error"]["field"] == "messages.0.id", clash.text


async def test_appends_at_once_each_keep_their_payload(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    assert (await alice.http.post("/v1/threads", json={"id": "t1", "topic": "payloads"})).status_code == 201
    callers = [alice, *[await make_caller(user_id=alice.user_id) for _ in range(3)]]
    sends = [
        c.http.post("/v1/threads/t1/messages", json={"messages": [{"role": "user", "content": f"{n}.{i}",
                                                                    "data": {"n": n, "i": i}}]})
        for n, c in enumerate(callers) for i in range(4)
    ]  # fmt: skip
    answers = await asyncio.gather(*sends)
    assert {a.status_code for a in answers} <= {201, 409, 412}, [a.text[:200] for a in answers]
    applied = {compact_json(a.json()["items"][0]["data"]) for a in answers if a.status_code == 201}
    read = (await alice.http.get("/v1/threads/t1/messages", params={"limit": 100})).json()["items"]
    assert [m["seq"] for m in read] == list(range(1, len(read) + 1))
    assert {compact_json(m["data"]) for m in read} == applied and len(read) == len(applied)
    entries = (await alice.http.get("/v1/mutations", params={"limit": 100})).json()["items"]
    appended = [e for e in entries if e["op"] == "message.append"]
    assert len(appended) == len(read)
