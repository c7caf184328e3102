"""Conversation threads and ordered messages over real HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from graph.core.db import Database
from tests.integration.conftest import MakeCaller


def msg(role: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"role": role, "content": content, **extra}


@pytest.mark.smoke
async def test_threads_create_get_list_link(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    first = await alice.http.post(
        "/v1/threads", json={"id": "t1", "contextType": "support", "topic": "Login fails"}
    )
    assert first.status_code == 201, first.text
    body = first.json()
    assert body["id"] == "t1" and body["contextType"] == "support" and body["topic"] == "Login fails"
    assert body["messageCount"] == 0 and body["relatedThreads"] == []
    again = await alice.http.post(
        "/v1/threads", json={"id": "t1", "contextType": "support", "topic": "Login fails"}
    )
    assert again.status_code == 200
    clash = await alice.http.post(
        "/v1/threads", json={"id": "t1", "contextType": "planning", "topic": "Other"}
    )
    assert clash.status_code == 409
    second = (
        await alice.http.post("/v1/threads", json={"contextType": "research", "topic": "Caching"})
    ).json()
    assert len(second["id"]) == 32

    bad = await alice.http.post("/v1/threads", json={"contextType": "chitchat", "topic": "x"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "contextType"

    # Most recently active first: a message makes t1 the most recent.
    await alice.http.post("/v1/threads/t1/messages", json={"messages": [msg("user", "hello")]})
    listed = (await alice.http.get("/v1/threads")).json()["items"]
    assert [t["id"] for t in listed] == ["t1", second["id"]]
    page = (await alice.http.get("/v1/threads", params={"limit": 1})).json()
    assert len(page["items"]) == 1 and page["nextCursor"]
    rest = (await alice.http.get("/v1/threads", params={"limit": 1, "cursor": page["nextCursor"]})).json()
    assert [t["id"] for t in rest["items"]] == [second["id"]]
    research = (await alice.http.get("/v1/threads", params={"contextType": "research"})).json()["items"]
    assert [t["id"] for t in research] == [second["id"]]

    assert (await alice.http.post("/v1/threads/t1/links", json={"threadId": second["id"]})).status_code == 204
    assert (await alice.http.get("/v1/threads/t1")).json()["relatedThreads"] == [second["id"]]
    assert (await alice.http.get(f"/v1/threads/{second['id']}")).json()["relatedThreads"] == ["t1"]
    assert (await alice.http.post("/v1/threads/t1/links", json={"threadId": "nope"})).status_code == 404
    itself = await alice.http.post("/v1/threads/t1/links", json={"threadId": "t1"})
    assert itself.status_code == 409 and itself.json()["error"]["field"] == "threadId", itself.text
    unlinked = await alice.http.delete("/v1/threads/t1/links/t1")
    assert unlinked.status_code == 409 and unlinked.json()["error"]["field"] == "threadId", unlinked.text
    assert (await alice.http.delete(f"/v1/threads/t1/links/{second['id']}")).status_code == 204
    assert (await alice.http.get("/v1/threads/t1")).json()["relatedThreads"] == []


@pytest.mark.smoke
async def test_messages_append_in_order_and_idempotently(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller()
    await alice.http.post("/v1/threads", json={"id": "chat", "topic": "Deploy plans"})
    batch = [
        msg("user", "We should deploy on Fridays.", id="m1"),
        msg("assistant", "Fridays are risky.", id="m2"),
    ]
    appended = await alice.http.post("/v1/threads/chat/messages", json={"messages": batch})
    assert appended.status_code == 201, appended.text
    assert [(m["id"], m["seq"]) for m in appended.json()["items"]] == [("m1", 1), ("m2", 2)]
    # Re-sending the same messages (a retry) changes nothing; new ones continue the order.
    retry = await alice.http.post(
        "/v1/threads/chat/messages", json={"messages": [*batch, msg("user", "Tuesday then.", id="m3")]}
    )
    assert [(m["id"], m["seq"]) for m in retry.json()["items"]] == [("m1", 1), ("m2", 2), ("m3", 3)]
    listed = (await alice.http.get("/v1/threads/chat/messages")).json()["items"]
    assert [m["id"] for m in listed] == ["m1", "m2", "m3"]
    assert [m["role"] for m in listed] == ["user", "assistant", "user"]
    assert (await alice.http.get("/v1/threads/chat")).json()["messageCount"] == 3

    page = (await alice.http.get("/v1/threads/chat/messages", params={"limit": 2})).json()
    assert [m["id"] for m in page["items"]] == ["m1", "m2"]
    tail = (
        await alice.http.get("/v1/threads/chat/messages", params={"limit": 2, "cursor": page["nextCursor"]})
    ).json()
    assert [m["id"] for m in tail["items"]] == ["m3"] and tail.get("nextCursor") is None

    changed = await alice.http.post(
        "/v1/threads/chat/messages", json={"messages": [msg("user", "Different text", id="m1")]}
    )
    assert changed.status_code == 409
    assert changed.json()["error"]["field"] == "messages.0.id"
    # An id repeated within one append is the same rule: the same message again is skipped...
    fourth = msg("user", "Fourth", id="m4")
    twice = [fourth, msg("assistant", "Fifth", id="m5"), fourth]
    folded = await alice.http.post("/v1/threads/chat/messages", json={"messages": twice})
    assert folded.status_code == 201, folded.text
    assert [(m["id"], m["seq"]) for m in folded.json()["items"]] == [("m4", 4), ("m5", 5)]
    # ...and another under the same id is a conflict that writes nothing.
    clash = [msg("user", "Sixth", id="m6"), msg("user", "Not sixth", id="m6")]
    refused = await alice.http.post("/v1/threads/chat/messages", json={"messages": clash})
    assert refused.status_code == 409 and refused.json()["error"]["field"] == "messages.1.id", refused.text
    assert (await alice.http.get("/v1/threads/chat")).json()["messageCount"] == 5
    bad_role = await alice.http.post("/v1/threads/chat/messages", json={"messages": [msg("robot", "hi")]})
    assert bad_role.status_code == 422 and bad_role.json()["error"]["field"] == "messages.0.role"
    empty = await alice.http.post("/v1/threads/chat/messages", json={"messages": []})
    assert empty.status_code == 422
    assert (await alice.http.post("/v1/threads/nope/messages", json={"messages": batch})).status_code == 404

    # In the graph the conversation is a chain: chat -> m1 -> m2 -> m3 -> m4 -> m5.
    rows = await db.read(
        "queries/conversations/messages_list", userId=alice.user_id, threadId="chat", afterSeq=0, limit=10
    )
    assert [r["message"]["seq"] for r in rows[0]["rows"]] == [1, 2, 3, 4, 5]


async def test_threads_are_private(make_caller: MakeCaller) -> None:
    alice, mallory = await make_caller(), await make_caller()
    await alice.http.post("/v1/threads", json={"id": "secret", "topic": "Private"})
    await alice.http.post(
        "/v1/threads/secret/messages", json={"messages": [msg("user", "my password is hunter2", id="pm")]}
    )
    assert (await mallory.http.get("/v1/threads/secret")).status_code == 404
    assert (await mallory.http.get("/v1/threads/secret/messages")).status_code == 404
    assert (
        await mallory.http.post("/v1/threads/secret/messages", json={"messages": [msg("user", "hi")]})
    ).status_code == 404
    assert (await mallory.http.get("/v1/threads")).json()["items"] == []
    # Mallory may use the same ids in her own space.
    assert (await mallory.http.post("/v1/threads", json={"id": "secret", "topic": "Mine"})).status_code == 201
    own = await mallory.http.post(
        "/v1/threads/secret/messages", json={"messages": [msg("user", "mine", id="pm")]}
    )
    assert own.status_code == 201
    assert (await alice.http.get("/v1/threads/secret/messages")).json()["items"][0][
        "content"
    ] == "my password is hunter2"
