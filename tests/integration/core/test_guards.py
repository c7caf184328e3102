"""Guards every route inherits, over real HTTP: what a body must be (JSON, within its size),
values Neo4j would refuse caught first, and ids that can be created are ids that can be
reached."""

from __future__ import annotations

import json
import random
import string
from collections.abc import AsyncIterator

import pytest

from tests.integration.conftest import MakeCaller

DIMENSION = 384
NOTE = {"title": "Guarded", "content": "A note behind the guards.", "type": "fact", "dedupe": False}


@pytest.mark.smoke
async def test_bodies_that_are_not_json_are_415(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    body = json.dumps({"items": [NOTE]})
    for path in ("/v1/knowledge/batch", "/v1/knowledge", "/v1/threads"):
        for content_type in ("text/plain", "application/x-www-form-urlencoded", ""):
            answer = await alice.http.post(path, content=body, headers={"Content-Type": content_type})
            assert answer.status_code == 415, (path, content_type, answer.text)
            assert answer.json()["error"]["code"] == "unsupported_media_type"
    ok = await alice.http.post(
        "/v1/knowledge/batch", content=body, headers={"Content-Type": "application/json; charset=utf-8"}
    )
    assert ok.status_code == 201, ok.text
    assert len((await alice.http.get("/v1/knowledge")).json()["items"]) == 1


async def test_bodies_over_their_routes_limit_are_413(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await alice.http.post("/v1/threads", json={"id": "t", "topic": "Big"})
    ten_mb = json.dumps({"messages": [{"role": "user", "content": "x" * 100_000}] * 100}).encode()
    assert len(ten_mb) > 10_000_000
    answer = await alice.http.post(
        "/v1/threads/t/messages", content=ten_mb, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "payload_too_large", answer.text

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(ten_mb), 1_000_000):
            yield ten_mb[start : start + 1_000_000]

    chunked = await alice.http.post(
        "/v1/threads/t/messages", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert chunked.status_code == 413, chunked.text
    assert (await alice.http.get("/v1/threads/t")).json()["messageCount"] == 0
    # A batch of 1,000 notes with vectors is larger than the other routes' limit, and fits.
    vector = [1.0 / DIMENSION**0.5] * DIMENSION
    items = [{**NOTE, "id": f"n{i}", "title": f"Note {i}", "embedding": vector} for i in range(1_000)]
    batch = await alice.http.post("/v1/knowledge/batch", json={"items": items}, timeout=120)
    assert batch.status_code == 201, batch.text[:300]


async def test_vectors_neo4j_would_refuse_are_422(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    for vector in ([1e200] * DIMENSION, [0.0] * DIMENSION, [1.0] * (DIMENSION - 1)):
        single = await alice.http.post("/v1/knowledge", json={**NOTE, "embedding": vector})
        assert single.status_code == 422 and single.json()["error"]["field"] == "embedding", single.text
        batch = await alice.http.post(
            "/v1/knowledge/batch", json={"items": [NOTE | {"id": "ok"}, {**NOTE, "embedding": vector}]}
        )
        assert batch.status_code == 422 and batch.json()["error"]["field"] == "items.1.embedding", batch.text
        search = await alice.http.post("/v1/search", json={"query": "x", "embedding": vector})
        assert search.status_code == 422 and search.json()["error"]["field"] == "embedding", search.text
    assert (await alice.http.get("/v1/knowledge")).json()["items"] == []


async def test_cursors_out_of_range_are_422(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await alice.http.post("/v1/threads", json={"id": "t", "topic": "Cursors"})
    for cursor in ("9223372036854775808", "-1", "1e3", "x"):
        answer = await alice.http.get("/v1/threads/t/messages", params={"cursor": cursor})
        assert answer.status_code == 422 and answer.json()["error"]["field"] == "cursor", answer.text
    assert (await alice.http.get("/v1/threads/t/messages", params={"cursor": "9223372036854775807"})).json()[
        "items"
    ] == []


async def test_every_id_that_can_be_created_can_be_reached(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    alphabet = string.ascii_letters + string.digits + "._:@-"
    rng = random.Random(20261130)  # noqa: S311 - reproducible ids, not secrets
    first = string.ascii_letters + string.digits
    ids = ["a", "A.b", "x:y@z", "1-2_3", "a" * 128, "a.", "a..b", "a@b.c"]
    ids += ["".join([rng.choice(first), *rng.choices(alphabet, k=rng.randint(0, 40))]) for _ in range(25)]
    for node_id in ids:
        created = await alice.http.post("/v1/knowledge", json={**NOTE, "id": node_id, "title": node_id})
        assert created.status_code == 201, (node_id, created.text)
        assert (await alice.http.get(f"/v1/knowledge/{node_id}")).json()["id"] == node_id
        patched = await alice.http.patch(f"/v1/knowledge/{node_id}", json={"confidence": 0.5})
        assert patched.status_code == 200, (node_id, patched.text)
        thread = await alice.http.post("/v1/threads", json={"id": node_id, "topic": "t"})
        assert thread.status_code == 201, (node_id, thread.text)
        appended = await alice.http.post(
            f"/v1/threads/{node_id}/messages",
            json={"messages": [{"id": node_id, "role": "user", "content": "hi"}]},
        )
        assert appended.status_code == 201, (node_id, appended.text)
        listed = (await alice.http.get(f"/v1/threads/{node_id}/messages")).json()["items"]
        assert [m["id"] for m in listed] == [node_id]
        assert (await alice.http.delete(f"/v1/knowledge/{node_id}")).status_code == 204
        assert (await alice.http.get(f"/v1/knowledge/{node_id}")).status_code == 404
    for bad in ("a/b", "/a", ".a", "-a", "a b", "a" * 129, "ä", "a%2Fb"):
        refused = await alice.http.post("/v1/knowledge", json={**NOTE, "id": bad})
        assert refused.status_code == 422 and refused.json()["error"]["field"] == "id", (bad, refused.text)
        thread = await alice.http.post("/v1/threads", json={"id": bad, "topic": "t"})
        assert thread.status_code == 422, (bad, thread.text)


async def test_a_body_json_cannot_read_is_a_422_like_any_invalid_json(make_caller: MakeCaller) -> None:
    """Found by tests/integration/core/test_fuzz.py: bytes that are not UTF-8, or nesting deeper
    than the parser's recursion limit, got FastAPI's own 400, which no operation documents."""
    alice = await make_caller()
    unreadable = [b'{"title": "\xff"}', b"[" * 5000 + b"]" * 5000, b"{"]  # the last: a syntax error
    for body in unreadable:
        response = await alice.http.post(
            "/v1/knowledge", content=body, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 422, (body[:20], response.status_code, response.text)
        assert response.json()["error"]["code"] == "invalid_input", response.text
