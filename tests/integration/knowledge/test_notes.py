"""Knowledge notes over real HTTP: create, validate, dedupe, batch, update, delete, list."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pytest

from graph.core.db import Database
from graph.core.users import find_orphans
from tests.integration.conftest import Caller, MakeCaller


def note(title: str, content: str, type: str = "fact", **extra: Any) -> dict[str, Any]:
    return {"title": title, "content": content, "type": type, **extra}


async def create(caller: Caller, body: dict[str, Any]) -> httpx.Response:
    return await caller.http.post("/v1/knowledge", json=body)


async def count_nodes(db: Database, user_id: str) -> int:
    rows = await db.read("queries/knowledge/note_counts", userId=user_id)
    return int(rows[0]["mine"])


@pytest.mark.smoke
async def test_create_then_get(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    body = note(
        "API authentication",
        "Every call sends a Bearer token.",
        "procedure",
        id="api-auth",
        source="docs",
        confidence=0.9,
        tags=["api", "security"],
    )
    created = await create(alice, body)
    assert created.status_code == 201, created.text
    node = created.json()["node"]
    assert node["id"] == "api-auth"
    assert node["type"] == "procedure"
    assert node["source"] == "docs"
    assert node["confidence"] == 0.9
    assert node["status"] == "active"
    assert node["tags"] == ["api", "security"]
    assert node["createdAt"] and node["updatedAt"]
    assert "embedding" not in node
    assert "mergedInto" not in created.json()

    fetched = (await alice.http.get("/v1/knowledge/api-auth")).json()
    assert fetched["title"] == "API authentication"
    assert "embedding" not in fetched
    with_vector = (await alice.http.get("/v1/knowledge/api-auth", params={"includeEmbedding": "true"})).json()
    assert len(with_vector["embedding"]) == 384


async def test_generated_ids_and_sublabels(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller()
    node = (await create(alice, note("Cache policy", "We cache for 5 minutes.", "decision"))).json()["node"]
    assert len(node["id"]) == 32
    rows = await db.read(
        "queries/knowledge/notes_by_ids", userId=alice.user_id, ids=[node["id"]], withEmbedding=False
    )
    assert rows[0]["rows"][0]["node"]["type"] == "decision"


async def test_validation_errors_name_the_field(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    cases = [
        (note("t", "c", type="opinion"), "type", "'fact', 'concept', 'procedure' or 'decision'"),
        (note("t", "c", source="rumour"), "source", "'docs'"),
        (note("t", "c", confidence=1.5), "confidence", "less than or equal to 1"),
        (note("   ", "c"), "title", "must not be empty"),
        (note("t", ""), "content", "must not be empty"),
        (note("t", "word " * 301), "content", "split it"),
        (note("t", "c", embedding=[0.1] * 12), "embedding", "384"),
        (note("t", "c", id="has spaces"), "id", "letters, digits"),
        (note("t", "c", colour="red"), "colour", "Extra inputs"),
    ]
    for body, field, fragment in cases:
        response = await create(alice, body)
        assert response.status_code == 422, (body, response.text)
        error = response.json()["error"]
        assert error["field"] == field, (field, error)
        assert fragment in error["message"], (fragment, error)
    assert (await alice.http.get("/v1/knowledge")).json()["items"] == []


async def test_a_precomputed_embedding_is_stored_as_given(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    vector = np.random.default_rng(7).standard_normal(384)
    vector = (vector / np.linalg.norm(vector)).tolist()
    await create(alice, note("Imported", "From the bulk importer.", id="imp-1", embedding=vector))
    stored = (await alice.http.get("/v1/knowledge/imp-1", params={"includeEmbedding": "true"})).json()
    assert np.allclose(stored["embedding"], vector, atol=1e-6)


async def test_create_is_idempotent_by_id(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    body = note("Deploy procedure", "Run make deploy from main.", "procedure", id="deploy")
    first = await create(alice, body)
    again = await create(alice, body)
    assert first.status_code == 201
    assert again.status_code == 200
    assert again.json()["node"] == first.json()["node"]
    changed = await create(alice, {**body, "content": "Something else entirely."})
    assert changed.status_code == 409
    assert changed.json()["error"]["field"] == "id"


@pytest.mark.smoke
async def test_near_duplicates_update_the_existing_note(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    original = await create(
        alice, note("Rate limit", "Each API key may make 100 calls per minute.", id="rl", tags=["api"])
    )
    assert original.status_code == 201
    twin = note(
        "Rate limit",
        "Each API key may make 100 calls per minute.",
        id="rl-2",
        confidence=0.7,
        tags=["limits"],
    )
    merged = await create(alice, twin)
    assert merged.status_code == 200, merged.text
    assert merged.json()["mergedInto"] == "rl" and "alreadyMerged" not in merged.json()
    node = merged.json()["node"]
    assert node["id"] == "rl"
    assert node["tags"] == ["api", "limits"]
    assert node["mergeCount"] == 1
    [record] = node["merges"]
    assert record["requestedId"] == "rl-2"
    assert record["confidence"] == 0.7
    assert record["similarity"] >= 0.95
    assert (await alice.http.get("/v1/knowledge/rl-2")).status_code == 404
    followed = await alice.http.get("/v1/knowledge/rl-2", params={"followMerges": "true"})
    assert followed.status_code == 200 and followed.json()["id"] == "rl"
    assert (await alice.http.get("/v1/knowledge/nope", params={"followMerges": "true"})).status_code == 404

    # Repeating the merged create changes nothing.
    again = await create(alice, twin)
    assert again.json()["mergedInto"] == "rl" and again.json()["alreadyMerged"] is True
    assert again.json()["node"]["mergeCount"] == 1

    # Opting out makes a twin on purpose.
    forced = await create(alice, {**twin, "id": "rl-3", "dedupe": False})
    assert forced.status_code == 201
    assert forced.json()["node"]["id"] == "rl-3"


async def test_different_notes_are_not_merged(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await create(alice, note("Rate limit", "Each API key may make 100 calls per minute."))
    other = await create(alice, note("Billing", "Invoices are sent on the first day of the month."))
    assert other.status_code == 201
    assert "mergedInto" not in other.json()


async def test_batch_is_all_or_nothing(make_caller: MakeCaller, db: Database) -> None:
    alice = await make_caller()
    items = [
        note(f"Note {i}", f"Distinct content number {i} about topic {i * 7}.", id=f"b{i}") for i in range(5)
    ]
    response = await alice.http.post("/v1/knowledge/batch", json={"items": items})
    assert response.status_code == 201, response.text
    assert response.json()["results"] == [{"id": f"b{i}", "outcome": "created"} for i in range(5)]

    bad = [note("Fine", "Fine content.", id="c1"), note("Bad", "x", confidence=7, id="c2")]
    rejected = await alice.http.post("/v1/knowledge/batch", json={"items": bad})
    assert rejected.status_code == 422
    assert rejected.json()["error"]["field"] == "items.1.confidence"

    clash = [note("New one", "Brand new content here.", id="c3"), {**items[0], "content": "changed"}]
    conflict = await alice.http.post("/v1/knowledge/batch", json={"items": clash})
    assert conflict.status_code == 409
    assert conflict.json()["error"]["field"] == "items.1.id"
    assert await count_nodes(db, alice.user_id) == 5  # c1, c3 never written

    too_many = await alice.http.post("/v1/knowledge/batch", json={"items": [items[0]] * 1001})
    assert too_many.status_code == 422


async def test_twins_inside_one_batch_fold_together(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    same = "The staging database is refreshed every night at 2am."
    response = await alice.http.post(
        "/v1/knowledge/batch",
        json={"items": [note("Staging refresh", same, id="s1"), note("Staging refresh", same, id="s2")]},
    )
    assert response.json()["results"] == [
        {"id": "s1", "outcome": "created"},
        {"id": "s2", "outcome": "merged", "mergedInto": "s1"},
    ]
    again = await alice.http.post(
        "/v1/knowledge/batch",
        json={"items": [note("Staging refresh", same, id="s1"), note("Staging refresh", same, id="s2")]},
    )
    assert again.status_code == 200
    assert again.json()["results"] == [
        {"id": "s1", "outcome": "existing"},
        {"id": "s2", "outcome": "merged", "mergedInto": "s1", "alreadyMerged": True},
    ]


async def test_patch_changes_fields_and_re_embeds_only_on_text_change(
    make_caller: MakeCaller, db: Database
) -> None:
    alice = await make_caller()
    await create(alice, note("Old title", "Some content about caching.", id="p1"))
    before = (await alice.http.get("/v1/knowledge/p1", params={"includeEmbedding": "true"})).json()

    confident = await alice.http.patch("/v1/knowledge/p1", json={"confidence": 0.4, "tags": ["x"]})
    assert confident.status_code == 200
    same_vector = (await alice.http.get("/v1/knowledge/p1", params={"includeEmbedding": "true"})).json()
    assert same_vector["embedding"] == before["embedding"]
    assert same_vector["confidence"] == 0.4

    retitled = await alice.http.patch("/v1/knowledge/p1", json={"title": "Cache eviction", "type": "concept"})
    assert retitled.json()["title"] == "Cache eviction"
    assert retitled.json()["type"] == "concept"
    new_vector = (await alice.http.get("/v1/knowledge/p1", params={"includeEmbedding": "true"})).json()
    assert new_vector["embedding"] != before["embedding"]
    assert new_vector["updatedAt"] > before["updatedAt"]

    for body, field in (({}, None), ({"confidence": 3}, "confidence"), ({"title": None}, None)):
        bad = await alice.http.patch("/v1/knowledge/p1", json=body)
        assert bad.status_code == 422
        if field:
            assert bad.json()["error"]["field"] == field
    assert (await alice.http.patch("/v1/knowledge/missing", json={"confidence": 0.5})).status_code == 404


async def test_delete_removes_the_note_its_edges_and_merge_records(
    make_caller: MakeCaller, db: Database
) -> None:
    alice = await make_caller()
    await create(alice, note("Hub", "The central note with links.", id="hub"))
    await create(alice, note("Spoke", "A note linked to the hub.", id="spoke"))
    await create(alice, note("Hub", "The central note with links.", id="hub-twin"))  # merged into hub
    await alice.http.post("/v1/knowledge/spoke/connections", json={"type": "relatedTo", "targetId": "hub"})
    assert (await alice.http.delete("/v1/knowledge/hub")).status_code == 204
    assert (await alice.http.get("/v1/knowledge/hub")).status_code == 404
    assert (await alice.http.get("/v1/knowledge/spoke/connections")).json()["items"] == []
    assert (await alice.http.delete("/v1/knowledge/hub")).status_code == 404
    orphans = await find_orphans(db, alice.user_id)
    assert orphans == [], orphans


async def test_list_filters_and_pages(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    for i in range(7):
        await create(
            alice,
            note(
                f"Listed {i}",
                f"Unique listed content {i} {'alpha' * (i + 1)}",
                "fact" if i % 2 else "concept",
                id=f"l{i}",
                tags=["even"] if i % 2 == 0 else [],
                dedupe=False,
            ),
        )
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 3}
        if cursor:
            params["cursor"] = cursor
        page = (await alice.http.get("/v1/knowledge", params=params)).json()
        seen += [n["id"] for n in page["items"]]
        cursor = page.get("nextCursor")
        if not cursor:
            break
    assert seen == [f"l{i}" for i in reversed(range(7))]
    facts = (await alice.http.get("/v1/knowledge", params={"type": "fact"})).json()["items"]
    assert {n["id"] for n in facts} == {"l1", "l3", "l5"}
    tagged = (await alice.http.get("/v1/knowledge", params={"tag": "even"})).json()["items"]
    assert {n["id"] for n in tagged} == {"l0", "l2", "l4", "l6"}
    bad = await alice.http.get("/v1/knowledge", params={"cursor": "nonsense"})
    assert bad.status_code == 422
    assert bad.json()["error"]["field"] == "cursor"
