"""Undo over HTTP against the real Neo4j: each kind of mutation undone (and the undo undone,
which redoes it), a 409 naming the mutation in the way, and the supersedes rules kept."""

from __future__ import annotations

from tests.integration.conftest import MakeCaller
from tests.integration.knowledge.mutations import fields, latest, undo
from tests.integration.knowledge.seeding import link, note, seed, status_of
from tests.integration.knowledge.test_integrity import unit_vector


async def test_undo_of_an_update_restores_the_fields_and_undo_of_that_redoes(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(alice, note("n", "Cache", "We use Memcached.", tags=["infra"]))
    original = await fields(alice, "n")
    await alice.http.patch("/v1/knowledge/n", json={"content": "We use Redis.", "confidence": 0.8})
    changed = await fields(alice, "n")
    update = await latest(alice)
    undone = await undo(alice, update["id"])
    assert undone.status_code == 200, undone.text
    assert undone.json()["mutation"]["undoes"] == update["id"]
    assert await fields(alice, "n") == original
    # The vector follows the text back: a search for the old words finds it first.
    hits = (await alice.http.post("/v1/search", json={"query": "Memcached", "mode": "vector"})).json()["hits"]
    assert hits[0]["node"]["id"] == "n"
    redo = await undo(alice, undone.json()["mutation"]["id"])
    assert redo.status_code == 200 and await fields(alice, "n") == changed
    # The first undo is itself undone now: undoing the update again is blocked by the redo.
    again = await undo(alice, update["id"])
    assert again.status_code == 409
    assert again.json()["error"]["blockingMutation"] == redo.json()["mutation"]["id"]


async def test_undo_of_a_delete_restores_the_note_with_edges_to_notes_that_exist(
    make_caller: MakeCaller,
) -> None:
    alice = await make_caller()
    await seed(
        alice, note("a", "A", "Alpha note."), note("b", "B", "Beta note."), note("c", "C", "Gamma note.")
    )
    await link(alice, "a", "supersedes", "b")
    await link(alice, "c", "dependsOn", "a")
    await link(alice, "a", "relatedTo", "c")
    before = (await alice.http.get("/v1/knowledge/a/connections")).json()["items"]
    assert (await alice.http.delete("/v1/knowledge/a")).status_code == 204
    assert (await fields(alice, "b"))["status"] == "active"  # type: ignore[index]
    deleted = await latest(alice)
    assert (await alice.http.delete("/v1/knowledge/c")).status_code == 204
    restored = await undo(alice, deleted["id"])
    assert restored.status_code == 200, restored.text
    assert (await fields(alice, "a"))["content"] == "Alpha note."  # type: ignore[index]
    edges = (await alice.http.get("/v1/knowledge/a/connections")).json()["items"]
    assert [(e["type"], e["sourceId"], e["targetId"]) for e in edges] == [("supersedes", "a", "b")]
    assert edges[0]["createdAt"] == next(e for e in before if e["targetId"] == "b")["createdAt"]
    assert (await fields(alice, "b"))["status"] == "superseded"
    # Undo of the undo deletes it again, with the usual cascade.
    assert (await undo(alice, restored.json()["mutation"]["id"])).status_code == 200
    assert await fields(alice, "a") is None and (await fields(alice, "b"))["status"] == "active"  # type: ignore[index]


async def test_undo_of_a_create_deletes_and_409s_name_the_blocker(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(alice, note("a", "A", "Alpha note."), note("b", "B", "Beta note."))
    created = await latest(alice, targetId="a")
    await alice.http.patch("/v1/knowledge/a", json={"title": "A2"})
    patched = await latest(alice)
    blocked = await undo(alice, created["id"])
    assert blocked.status_code == 409 and blocked.json()["error"]["blockingMutation"] == patched["id"]
    assert await fields(alice, "a") is not None  # nothing half-undone
    # An edge whose note is gone cannot come back: the blocker is the delete.
    await link(alice, "a", "relatedTo", "b")
    await alice.http.delete("/v1/knowledge/a/connections/relatedTo/b")
    disconnected = await latest(alice)
    await alice.http.delete("/v1/knowledge/b")
    gone = await latest(alice)
    refused = await undo(alice, disconnected["id"])
    assert refused.status_code == 409 and refused.json()["error"]["blockingMutation"] == gone["id"]
    # Ids: unknown, another user's, and ops that cannot be undone.
    assert (await undo(alice, "missing")).status_code == 404
    bob = await make_caller()
    assert (await undo(bob, patched["id"])).status_code == 404
    await alice.http.post("/v1/threads", json={"id": "t", "topic": "x"})
    thread = await latest(alice)
    assert (await undo(alice, thread["id"])).status_code == 409


async def test_undo_of_a_merge_and_of_an_edge(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    vector = unit_vector(3)
    await seed(alice, {**note("a", "Postgres", "Orders live in Postgres.", tags=["db"]), "embedding": vector})
    twin = {
        **note("b", "Postgres!", "Orders: Postgres.", tags=["orders"]),
        "embedding": vector,
        "dedupe": True,
    }
    assert (await alice.http.post("/v1/knowledge", json=twin)).json()["mergedInto"] == "a"
    merged = await latest(alice)
    assert (await undo(alice, merged["id"])).status_code == 200
    note_a = (await alice.http.get("/v1/knowledge/a")).json()
    assert (note_a["tags"], note_a["mergeCount"], note_a["merges"]) == (["db"], 0, [])
    await seed(alice, note("c", "C", "Gamma note."))
    await link(alice, "a", "dependsOn", "c")
    connected = await latest(alice)
    assert (await undo(alice, connected["id"])).status_code == 200
    assert (await alice.http.get("/v1/knowledge/a/connections")).json()["items"] == []


async def test_undoing_the_undo_of_a_supersedes_edge_brings_it_back(make_caller: MakeCaller) -> None:
    # Found by the truth property test: bringing a supersedes edge back named it from the
    # journal's state (the API's type name) as if it were the stored one, and failed (500).
    alice = await make_caller()
    await seed(
        alice, note("new", "New", "Orders live in Spanner."), note("old", "Old", "Orders live in MySQL.")
    )
    await link(alice, "new", "supersedes", "old")
    connected = await latest(alice)
    assert connected["op"] == "edge.connect"
    undone = await undo(alice, connected["id"])
    assert undone.status_code == 200 and await status_of(alice, "old") == "active"
    redone = await undo(alice, undone.json()["mutation"]["id"])
    assert redone.status_code == 200, redone.text
    assert await status_of(alice, "old") == "superseded"
    edges = (await alice.http.get("/v1/knowledge/old/connections")).json()["items"]
    assert [(e["sourceId"], e["type"]) for e in edges] == [("new", "supersedes")]


async def test_undo_keeps_the_supersedes_rules_and_names_the_edge_in_the_way(make_caller: MakeCaller) -> None:
    alice = await make_caller()
    await seed(alice, note("x", "X", "Note x."), note("d", "D", "Note d."), note("y", "Y", "Note y."))
    await link(alice, "d", "supersedes", "y")
    await link(alice, "x", "supersedes", "d")
    assert (await alice.http.delete("/v1/knowledge/d")).status_code == 204
    deleted = await latest(alice)
    assert deleted["op"] == "note.delete" and await status_of(alice, "y") == "active"
    await link(alice, "y", "supersedes", "x")
    closing = await latest(alice)
    # Bringing d back would make x -> d -> y -> x: a loop that hides all three.
    refused = await undo(alice, deleted["id"])
    assert refused.status_code == 409, refused.text
    assert refused.json()["error"]["blockingMutation"] == closing["id"]
    assert await fields(alice, "d") is None and await status_of(alice, "x") == "superseded"
    # An update's undo may not make a superseded note active (nor superseded without an edge).
    await seed(alice, note("n", "N", "Note n."), note("m", "M", "Note m."))
    await alice.http.patch("/v1/knowledge/n", json={"status": "archived"})
    archived = await latest(alice)
    await link(alice, "m", "supersedes", "n")
    superseding = await latest(alice)
    assert await status_of(alice, "n") == "archived"
    blocked = await undo(alice, archived["id"])
    assert blocked.status_code == 409 and blocked.json()["error"]["blockingMutation"] == superseding["id"]
    assert await status_of(alice, "n") == "archived"


async def test_undo_of_a_disconnect_409s_when_the_conflict_was_made_the_other_way(
    make_caller: MakeCaller,
) -> None:
    alice = await make_caller()
    await seed(alice, note("a", "A", "Note a."), note("b", "B", "Note b."))
    await link(alice, "a", "conflictsWith", "b")
    await alice.http.delete("/v1/knowledge/a/connections/conflictsWith/b")
    disconnected = await latest(alice)
    await link(alice, "b", "conflictsWith", "a")
    other_way = await latest(alice)
    refused = await undo(alice, disconnected["id"])
    assert refused.status_code == 409 and refused.json()["error"]["blockingMutation"] == other_way["id"]
    edges = (await alice.http.get("/v1/knowledge/a/connections")).json()["items"]
    assert [(e["sourceId"], e["targetId"]) for e in edges] == [("b", "a")]
