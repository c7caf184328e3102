"""Typed edges and supersession, over real HTTP."""

from __future__ import annotations

import pytest

from tests.integration.conftest import MakeCaller
from tests.integration.knowledge.seeding import link, note, seed, status_of


@pytest.mark.smoke
async def test_edges_create_list_delete(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(
        alice,
        note("a", "Auth", "Tokens are issued by the auth service."),
        note("b", "Billing", "Billing needs tokens."),
    )
    created = await link(
        alice, "b", "dependsOn", "a", confidence=0.8, note="billing calls auth", source="docs"
    )
    assert created.status_code == 201
    edge = created.json()["edge"]
    assert edge == {
        **edge,
        "type": "dependsOn",
        "sourceId": "b",
        "targetId": "a",
        "confidence": 0.8,
        "note": "billing calls auth",
        "source": "docs",
    }
    assert edge["createdAt"]
    again = await link(alice, "b", "dependsOn", "a")
    assert again.status_code == 200
    assert again.json()["created"] is False

    for node_id in ("a", "b"):
        items = (await alice.http.get(f"/v1/knowledge/{node_id}/connections")).json()["items"]
        assert [(e["type"], e["sourceId"], e["targetId"]) for e in items] == [("dependsOn", "b", "a")]

    assert (await alice.http.delete("/v1/knowledge/b/connections/dependsOn/a")).status_code == 204
    assert (await alice.http.delete("/v1/knowledge/b/connections/dependsOn/a")).status_code == 404
    assert (await alice.http.get("/v1/knowledge/a/connections")).json()["items"] == []


async def test_edge_validation(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(alice, note("a", "A", "First note."), note("b", "B", "Second note."))
    unknown = await link(alice, "a", "likes", "b")
    assert unknown.status_code == 422
    assert unknown.json()["error"]["field"] == "type"
    for name in ("relatedTo", "dependsOn", "supersedes", "conflictsWith"):
        assert name in unknown.json()["error"]["message"]
    self_edge = await link(alice, "a", "relatedTo", "a")
    assert self_edge.status_code == 409 and self_edge.json()["error"]["field"] == "targetId"
    missing = await link(alice, "a", "relatedTo", "nope")
    assert missing.status_code == 404
    assert missing.json()["error"]["field"] == "targetId"
    assert (await link(alice, "nope", "relatedTo", "a")).status_code == 404
    bad_path = await alice.http.delete("/v1/knowledge/a/connections/likes/b")
    assert bad_path.status_code == 422


async def test_conflicts_with_is_one_symmetric_edge(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(alice, note("x", "Use Redis", "Cache in Redis."), note("y", "No Redis", "Never add Redis."))
    assert (await link(alice, "x", "conflictsWith", "y")).status_code == 201
    reverse = await link(alice, "y", "conflictsWith", "x")
    assert reverse.status_code == 200
    assert reverse.json()["created"] is False
    for node_id in ("x", "y"):
        items = (await alice.http.get(f"/v1/knowledge/{node_id}/connections")).json()["items"]
        assert len(items) == 1 and items[0]["type"] == "conflictsWith"
    assert (await alice.http.delete("/v1/knowledge/y/connections/conflictsWith/x")).status_code == 204
    assert (await alice.http.get("/v1/knowledge/x/connections")).json()["items"] == []


async def test_supersede_hides_and_removing_the_edge_restores(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(
        alice,
        note("v1", "Deploy with Fabric", "We deploy with Fabric scripts over SSH.", "decision"),
        note("v2", "Deploy with Ansible", "We deploy with Ansible playbooks.", "decision"),
        note("v3", "Deploy with Kubernetes", "We deploy with Kubernetes manifests.", "decision"),
    )
    await link(alice, "v2", "supersedes", "v1")
    assert await status_of(alice, "v1") == "superseded"

    search = {"query": "deploy with Fabric scripts", "topK": 3, "mode": "vector", "expandConnections": False}
    ids = [h["node"]["id"] for h in (await alice.http.post("/v1/search", json=search)).json()["hits"]]
    assert "v1" not in ids
    shown = (await alice.http.post("/v1/search", json={**search, "includeSuperseded": True})).json()["hits"]
    assert shown[0]["node"]["id"] == "v1"

    await link(alice, "v3", "supersedes", "v1")
    assert (await alice.http.delete("/v1/knowledge/v2/connections/supersedes/v1")).status_code == 204
    assert await status_of(alice, "v1") == "superseded"  # v3 still supersedes it
    assert (await alice.http.delete("/v1/knowledge/v3")).status_code == 204
    assert await status_of(alice, "v1") == "active"  # deleting the last superseder restores it


async def test_edges_batch_is_all_or_nothing(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(
        alice, note("a", "A", "Alpha note."), note("b", "B", "Beta note."), note("c", "C", "Gamma note.")
    )
    ok = await alice.http.post(
        "/v1/connections/batch",
        json={
            "items": [
                {"sourceId": "a", "type": "relatedTo", "targetId": "b"},
                {"sourceId": "b", "type": "dependsOn", "targetId": "c"},
            ]
        },
    )
    assert ok.status_code == 201, ok.text
    assert [r["edge"]["type"] for r in ok.json()["results"]] == ["relatedTo", "dependsOn"]
    bad = await alice.http.post(
        "/v1/connections/batch",
        json={
            "items": [
                {"sourceId": "a", "type": "dependsOn", "targetId": "c"},
                {"sourceId": "a", "type": "relatedTo", "targetId": "zzz"},
            ]
        },
    )
    assert bad.status_code == 404
    assert bad.json()["error"]["field"] == "items.1.targetId"
    items = (await alice.http.get("/v1/knowledge/a/connections")).json()["items"]
    assert [(e["type"], e["targetId"]) for e in items] == [("relatedTo", "b")]
