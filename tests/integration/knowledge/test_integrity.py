"""Several agents of one user writing notes and edges at the same moment, over real HTTP,
against two API processes on one Neo4j: nothing corrupts, duplicates or half-writes."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import numpy as np

from graph.core.db import Database
from graph.core.embeddings import embedder_model_id
from graph.core.settings import Settings
from tests.integration.conftest import Caller, MakeCaller, inspect
from tests.support.plans import explained
from tests.support.servers import ApiProcess

DIMENSION = 384


def unit_vector(seed: int) -> list[float]:
    vector = np.random.default_rng(seed).standard_normal(DIMENSION)
    return [float(x) for x in vector / np.linalg.norm(vector)]


async def note_counts(db: Database, user_id: str) -> tuple[int, int]:
    """(notes the user really has, notes their Tenant node says they have)."""
    [row] = await inspect(
        db,
        """MATCH (t:Tenant {userId: $userId})
           RETURN COUNT { MATCH (n:Knowledge) WHERE n.userId = $userId } AS real, t.notes AS kept""",
        userId=user_id,
    )
    return int(row["real"]), int(row["kept"])


async def test_same_id_different_content_at_once(
    make_caller: MakeCaller, peer_api: ApiProcess, db: Database
) -> None:
    alice = await make_caller()
    clients = [alice.http, alice.client(peer_api.base_url)]
    bodies = [
        {
            "id": "contested",
            "title": f"Version {i}",
            "content": f"Contender number {i} for the same id.",
            "type": "fact",
            "embedding": unit_vector(i),
            "dedupe": False,
        }
        for i in range(6)
    ]
    answers = await asyncio.gather(
        *(clients[i % 2].post("/v1/knowledge", json=body) for i, body in enumerate(bodies))
    )
    statuses = sorted(r.status_code for r in answers)
    assert statuses == [201, 409, 409, 409, 409, 409], [r.text for r in answers]
    stored = (await alice.http.get("/v1/knowledge/contested", params={"includeEmbedding": "true"})).json()
    winner = next(b for b in bodies if b["title"] == stored["title"])
    assert stored["content"] == winner["content"]
    assert np.allclose(stored["embedding"], winner["embedding"], atol=1e-6), "the vector is its own text's"
    for answer in answers:
        if answer.status_code == 409:
            assert answer.json()["error"]["field"] == "id"
    assert await note_counts(db, alice.user_id) == (1, 1)


async def test_twins_at_once_make_one_note(make_caller: MakeCaller, peer_api: ApiProcess) -> None:
    alice = await make_caller()
    clients = [alice.http, alice.client(peer_api.base_url)]
    body = {"title": "Deploys", "content": "Deploys go out on Tuesdays after the review.", "type": "fact"}
    answers = await asyncio.gather(*(clients[i % 2].post("/v1/knowledge", json=body) for i in range(5)))
    assert sorted(r.status_code for r in answers) == [200, 200, 200, 200, 201], [r.text for r in answers]
    created = next(r.json()["node"] for r in answers if r.status_code == 201)
    assert {r.json()["mergedInto"] for r in answers if r.status_code == 200} == {created["id"]}
    listed = (await alice.http.get("/v1/knowledge")).json()["items"]
    assert [n["id"] for n in listed] == [created["id"]]
    assert listed[0]["mergeCount"] == 4 and len(listed[0]["merges"]) == 3  # the newest few inline
    merges = (await alice.http.get(f"/v1/knowledge/{created['id']}/merges")).json()["items"]
    assert len(merges) == 4 and all(m["content"] == body["content"] for m in merges)


async def test_a_cached_count_never_skips_dedupe(make_caller: MakeCaller, peer_api: ApiProcess) -> None:
    alice = await make_caller()
    peer = alice.client(peer_api.base_url)
    # The peer process caches that alice has no notes (for 30 s) ...
    assert (await peer.post("/v1/search", json={"query": "deploys"})).json()["hits"] == []
    # ... then a note arrives through the other process ...
    body = {"title": "Deploys", "content": "Deploys go out on Tuesdays after the review.", "type": "fact"}
    assert (await alice.http.post("/v1/knowledge", json=body)).status_code == 201
    # ... and its twin, sent to the peer, still folds into it.
    twin = await peer.post("/v1/knowledge", json=body)
    assert twin.status_code == 200 and twin.json()["mergedInto"], twin.text


async def test_concurrent_patches_leave_each_text_with_its_own_vector(
    make_caller: MakeCaller, peer_api: ApiProcess
) -> None:
    alice = await make_caller()
    witness = await make_caller()
    clients = [alice.http, alice.client(peer_api.base_url)]
    create = {"id": "doc", "title": "Draft", "content": "The first draft of the note.", "type": "fact"}
    assert (await alice.http.post("/v1/knowledge", json=create)).status_code == 201
    patches = [
        {"title": f"Title {i}", "content": f"Rewritten content number {i}, about topic {i * 7}."}
        for i in range(4)
    ]
    answers = await asyncio.gather(
        *(clients[i % 2].patch("/v1/knowledge/doc", json=p) for i, p in enumerate(patches))
    )
    assert [r.status_code for r in answers] == [200] * 4, [r.text for r in answers]
    stored = (await alice.http.get("/v1/knowledge/doc", params={"includeEmbedding": "true"})).json()
    assert {"title": stored["title"], "content": stored["content"]} in patches
    # The server's own vector for that text, from a note of another user.
    same = {"id": "same", "title": stored["title"], "content": stored["content"], "type": "fact"}
    assert (await witness.http.post("/v1/knowledge", json=same)).status_code == 201
    expected = (await witness.http.get("/v1/knowledge/same", params={"includeEmbedding": "true"})).json()
    assert np.allclose(stored["embedding"], expected["embedding"], atol=1e-5)


async def test_an_id_folded_into_a_twin_is_not_reused_for_other_content(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    body = {"title": "Deploys", "content": "Deploys go out on Tuesdays after the review.", "type": "fact"}
    first = (await alice.http.post("/v1/knowledge", json={"id": "a", **body})).json()
    folded = await alice.http.post(
        "/v1/knowledge", json={"id": "b", **body, "content": body["content"] + "!"}
    )
    assert folded.status_code == 200 and folded.json()["mergedInto"] == first["node"]["id"]
    again = await alice.http.post("/v1/knowledge", json={"id": "b", **body, "content": body["content"] + "!"})
    assert again.status_code == 200 and again.json()["mergedInto"] == "a"
    other = await alice.http.post(
        "/v1/knowledge", json={"id": "b", "title": "Lunch", "content": "Lunch is at noon.", "type": "fact"}
    )
    assert other.status_code == 409, other.text
    assert other.json()["error"]["field"] == "id" and "'a'" in other.json()["error"]["message"]
    assert (await alice.http.get("/v1/knowledge/b")).status_code == 404
    assert len((await alice.http.get("/v1/knowledge")).json()["items"]) == 1


async def seed(caller: Caller, *ids: str) -> None:
    items = [
        {"id": i, "title": f"Note {i}", "content": f"Content of note {i}.", "type": "fact", "dedupe": False}
        for i in ids
    ]
    assert (await caller.http.post("/v1/knowledge/batch", json={"items": items})).status_code == 201


async def status(caller: Caller, node_id: str) -> Any:
    return (await caller.http.get(f"/v1/knowledge/{node_id}")).json()["status"]


async def test_supersession_cannot_loop(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(alice, "a", "b", "c")
    link = {"type": "supersedes"}
    assert (
        await alice.http.post("/v1/knowledge/a/connections", json={**link, "targetId": "b"})
    ).status_code == 201
    assert (
        await alice.http.post("/v1/knowledge/b/connections", json={**link, "targetId": "c"})
    ).status_code == 201
    for source, target in (("b", "a"), ("c", "a")):
        loop = await alice.http.post(f"/v1/knowledge/{source}/connections", json={**link, "targetId": target})
        assert loop.status_code == 409, loop.text
        assert loop.json()["error"]["field"] == "targetId"
    batch = await alice.http.post(
        "/v1/connections/batch",
        json={"items": [{"sourceId": "c", "type": "relatedTo", "targetId": "a"},
                        {"sourceId": "c", "type": "supersedes", "targetId": "a"}]},
    )  # fmt: skip
    assert batch.status_code == 409 and batch.json()["error"]["field"] == "items.1.targetId"
    assert [await status(alice, n) for n in "abc"] == ["active", "superseded", "superseded"]
    edges = (await alice.http.get("/v1/knowledge/a/connections")).json()["items"]
    assert [(e["sourceId"], e["type"], e["targetId"]) for e in edges] == [("a", "supersedes", "b")]


async def test_status_follows_the_supersedes_edges(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(alice, "new", "old", "lone")
    await alice.http.post("/v1/knowledge/new/connections", json={"type": "supersedes", "targetId": "old"})
    revive = await alice.http.patch("/v1/knowledge/old", json={"status": "active"})
    assert revive.status_code == 409 and "'new'" in revive.json()["error"]["message"]
    fake = await alice.http.patch("/v1/knowledge/lone", json={"status": "superseded"})
    assert fake.status_code == 422 and fake.json()["error"]["field"] == "status"
    assert (await status(alice, "old"), await status(alice, "lone")) == ("superseded", "active")
    archived = await alice.http.patch("/v1/knowledge/old", json={"status": "archived"})
    assert archived.status_code == 200 and archived.json()["status"] == "archived"
    # Removing the edge no longer revives an archived note.
    assert (await alice.http.delete("/v1/knowledge/new/connections/supersedes/old")).status_code == 204
    assert await status(alice, "old") == "archived"


async def test_a_cursor_that_is_not_a_time_is_a_422(make_caller: MakeCaller) -> None:
    import base64
    import json

    alice = await make_caller()
    for position in ("not-a-date", "2026-11-30 12:00", 12):
        cursor = base64.urlsafe_b64encode(json.dumps([position, "x"]).encode()).decode().rstrip("=")
        for path in ("/v1/knowledge", "/v1/threads"):
            answer = await alice.http.get(path, params={"cursor": cursor})
            assert answer.status_code == 422 and answer.json()["error"]["field"] == "cursor", answer.text


async def test_many_writers_keep_the_note_count_exact(
    make_caller: MakeCaller, peer_api: ApiProcess, db: Database
) -> None:
    alice = await make_caller()
    clients = [alice.http, alice.client(peer_api.base_url)]

    async def writer(n: int, http: httpx.AsyncClient) -> None:
        for k in range(4):
            body = {"id": f"w{n}-{k}", "title": f"Writer {n} note {k}", "content": f"Fact {n}.{k}.",
                    "type": "fact", "embedding": unit_vector(100 * n + k), "dedupe": False}  # fmt: skip
            assert (await http.post("/v1/knowledge", json=body)).status_code == 201
            if k % 2:
                assert (await http.delete(f"/v1/knowledge/w{n}-{k - 1}")).status_code == 204

    await asyncio.gather(*(writer(n, clients[n % 2]) for n in range(6)))
    assert await note_counts(db, alice.user_id) == (12, 12)


async def test_opposite_supersedes_at_once_leave_one(make_caller: MakeCaller, peer_api: ApiProcess) -> None:
    alice = await make_caller()
    await seed(alice, "a", "b")
    peer = alice.client(peer_api.base_url)
    answers = await asyncio.gather(
        alice.http.post("/v1/knowledge/a/connections", json={"type": "supersedes", "targetId": "b"}),
        peer.post("/v1/knowledge/b/connections", json={"type": "supersedes", "targetId": "a"}),
    )
    assert sorted(r.status_code for r in answers) == [201, 409], [r.text for r in answers]
    assert sorted([await status(alice, "a"), await status(alice, "b")]) == ["active", "superseded"]


async def test_one_thread_id_created_at_once(make_caller: MakeCaller, peer_api: ApiProcess) -> None:
    alice = await make_caller()
    clients = [alice.http, alice.client(peer_api.base_url)]
    same = {"id": "plan", "topic": "Q3 planning", "contextType": "planning"}
    other = {"id": "plan", "topic": "Something else", "contextType": "planning"}
    answers = await asyncio.gather(
        *(clients[i % 2].post("/v1/threads", json=same if i < 4 else other) for i in range(6))
    )
    codes = [r.status_code for r in answers]
    assert codes.count(201) == 1, [r.text for r in answers]
    winner = next(r.json() for r in answers if r.status_code == 201)
    for body, answer in zip([same] * 4 + [other] * 2, answers, strict=True):
        expected = 409 if body["topic"] != winner["topic"] else (201, 200)
        assert answer.status_code in (expected if isinstance(expected, tuple) else (expected,)), answer.text
    assert len((await alice.http.get("/v1/threads")).json()["items"]) == 1


async def test_reembedding_never_stores_a_vector_for_changed_text(
    make_caller: MakeCaller, db: Database, settings: Settings
) -> None:
    alice = await make_caller()
    body = {"id": "n", "title": "Old", "content": "Old text.", "type": "fact", "embedding": unit_vector(1)}
    assert (await alice.http.post("/v1/knowledge", json=body)).status_code == 201
    [row] = await inspect(
        db, "MATCH (n:Knowledge {userId: $userId, id: 'n'}) RETURN elementId(n) AS id", userId=alice.user_id
    )
    # `ctxnet db reembed` read the note as "Old"; a PATCH changes it before the vector is stored.
    assert (await alice.http.patch("/v1/knowledge/n", json={"content": "New text."})).status_code == 200
    patched = (await alice.http.get("/v1/knowledge/n", params={"includeEmbedding": "true"})).json()
    stale = {"elementId": row["id"], "text": "Old\nOld text.", "embedding": unit_vector(2)}
    await db.write("queries/core/reembed_knowledge_set", rows=[stale], model=embedder_model_id(settings))
    after = (await alice.http.get("/v1/knowledge/n", params={"includeEmbedding": "true"})).json()
    assert after["embedding"] == patched["embedding"]
    fresh = {**stale, "text": "Old\nNew text."}
    await db.write("queries/core/reembed_knowledge_set", rows=[fresh], model=embedder_model_id(settings))
    after = (await alice.http.get("/v1/knowledge/n", params={"includeEmbedding": "true"})).json()
    assert np.allclose(after["embedding"], unit_vector(2), atol=1e-6)


async def test_forgetting_reads_only_the_users_own_nodes(db: Database) -> None:
    plan = await explained(db, "queries/core/user_forget_batch", {"userId": "u", "limit": 10})
    operators = [op for op, _ in plan]
    scans = [op for op in operators if "AllNodesScan" in op or "NodeByLabelScan" in op]
    assert not scans, operators
    # One index seek per label a user's data has (Knowledge, MergedNote, Message, Insight,
    # Thread, Job, Session, PendingAction, Agent, Profile, Preference, Mutation, Correction,
    # CorrectionAck, Proposal, Goal, Skill, ToolCall, WikiPage, Access, AgentDoc, RateWindow,
    # ApiKey).
    assert sum("NodeIndex" in op or "NodeUniqueIndex" in op for op in operators) == 23, operators
