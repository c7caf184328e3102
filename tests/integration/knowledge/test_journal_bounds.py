"""A journal entry is bounded by the fields of what it records, never by what that thing
gathered: a note's delete keeps its merge records where they are (held by the delete's
mutation, restored by its undo) and journals each edge on its own, so a note that folded
in 320 restatements of ~19,000 characters (250 words of 75 letters) and holds 120 edges
with 2,000-character notes deletes into an entry the size of the note; the undo brings
all of it back exactly, and a forget of text inside a held merge record removes that record."""

from __future__ import annotations

import json
from typing import Any

from graph.core.db import Database
from tests.integration.conftest import Caller, MakeCaller, inspect

#: The largest note.delete entry of a fact as GET /v1/mutations answers it: its own fields
#: (title 300, content 20,000 characters, 32 tags of 64, a source reference of 512, an
#: invalidation's reason of 2,000: 25,000 characters of ASCII) and a few hundred bytes of
#: names and numbers. docs/journal.md states the bound of every kind of entry.
NOTE_DELETE_BOUND = 32 * 1024
MERGES = 320
EDGES = 120


async def pages(caller: Caller, path: str) -> list[dict[str, Any]]:
    """Every item of a paged listing."""
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        answer = await caller.http.get(path, params={"limit": 100} | ({"cursor": cursor} if cursor else {}))
        assert answer.status_code == 200, answer.text[:300]
        body = answer.json()
        items += body["items"]
        if not (cursor := body.get("nextCursor")):
            return items


async def test_a_hub_notes_delete_is_journaled_within_its_bound_and_undone_exactly(
    make_caller: MakeCaller,
) -> None:
    alice = await make_caller()
    hub = {
        "id": "hub",
        "title": "The hub",
        "content": "The hub fact that agents keep restating.",
        "type": "fact",
    }
    assert (await alice.http.post("/v1/knowledge", json=hub)).status_code == 201
    vector = (await alice.http.get("/v1/knowledge/hub", params={"includeEmbedding": "true"})).json()[
        "embedding"
    ]
    words = f"{'x' * 75} " * 250
    for part in range(2):
        twins = [
            {"title": hub["title"], "content": f"{hub['content']} Restated {part}-{i}: " + words,
             "type": "fact", "embedding": vector, "dedupe": True}
            for i in range(MERGES // 2)
        ]  # fmt: skip
        folded = await alice.http.post("/v1/knowledge/batch", json={"items": twins})
        assert folded.status_code in (200, 201), folded.text[:300]
    others = [{"id": f"o{i}", "title": f"Other {i}", "content": f"Other fact number {i}.", "type": "fact",
               "dedupe": False} for i in range(EDGES)]  # fmt: skip
    assert (await alice.http.post("/v1/knowledge/batch", json={"items": others})).status_code == 201
    edges = [
        {"sourceId": "hub", "type": "relatedTo", "targetId": f"o{i}", "note": "n" * 2_000}
        for i in range(EDGES)
    ]
    assert (await alice.http.post("/v1/connections/batch", json={"items": edges})).status_code == 201
    before = (await alice.http.get("/v1/knowledge/hub")).json()
    assert before["mergeCount"] == MERGES
    merges = await pages(alice, "/v1/knowledge/hub/merges")
    connections = await pages(alice, "/v1/knowledge/hub/connections")
    gathered = sum(len(m["content"]) for m in merges) + sum(len(e["note"]) for e in connections)
    assert gathered > 6_000_000  # what the entry would have inlined

    assert (await alice.http.delete("/v1/knowledge/hub")).status_code == 204
    answer = await alice.http.get("/v1/mutations", params={"targetId": "hub", "limit": 1})
    [entry] = answer.json()["items"]
    assert entry["op"] == "note.delete"
    assert len(answer.content) < NOTE_DELETE_BOUND, len(answer.content)
    assert (entry["before"]["mergesHeld"], entry["before"]["edgesJournaled"]) == (MERGES, EDGES)
    write = await alice.http.get("/v1/mutations", params={"limit": 500})
    biggest = max(len(json.dumps(m)) for m in write.json()["items"])
    assert biggest < NOTE_DELETE_BOUND, biggest
    assert (await alice.http.get("/v1/knowledge/hub")).status_code == 404

    undone = await alice.http.post(f"/v1/mutations/{entry['id']}/undo")
    assert undone.status_code == 200, undone.text[:500]
    assert len(undone.content) < NOTE_DELETE_BOUND
    after = (await alice.http.get("/v1/knowledge/hub")).json()
    assert {k: v for k, v in after.items() if k != "updatedAt"} == {
        k: v for k, v in before.items() if k != "updatedAt"
    }
    assert await pages(alice, "/v1/knowledge/hub/merges") == merges
    assert await pages(alice, "/v1/knowledge/hub/connections") == connections
    # Undoing the undo deletes it again, held the same way; and back once more.
    again = await alice.http.post(f"/v1/mutations/{undone.json()['mutation']['id']}/undo")
    assert again.status_code == 200 and len(again.content) < NOTE_DELETE_BOUND, again.text[:300]
    back = await alice.http.post(f"/v1/mutations/{again.json()['mutation']['id']}/undo")
    assert back.status_code == 200, back.text[:300]
    assert await pages(alice, "/v1/knowledge/hub/merges") == merges
    assert await pages(alice, "/v1/knowledge/hub/connections") == connections


async def test_a_forget_reaches_the_merge_records_a_delete_holds(
    make_caller: MakeCaller, db: Database
) -> None:
    alice = await make_caller()
    hub = {
        "id": "h",
        "title": "Vendor portal",
        "content": "The vendor portal is at portal.example.",
        "type": "fact",
    }
    assert (await alice.http.post("/v1/knowledge", json=hub)).status_code == 201
    vector = (await alice.http.get("/v1/knowledge/h", params={"includeEmbedding": "true"})).json()[
        "embedding"
    ]
    twin = hub | {
        "id": None,
        "content": f"{hub['content']} Its password hint is quillfeather.",
        "embedding": vector,
    }
    folded = await alice.http.post("/v1/knowledge", json={k: v for k, v in twin.items() if v is not None})
    assert folded.json().get("mergedInto") == "h", folded.text
    assert (await alice.http.delete("/v1/knowledge/h")).status_code == 204
    held = "MATCH (m:MergedNote {userId: $u}) WHERE m.content CONTAINS 'quillfeather' RETURN m.heldBy AS by"
    [row] = await inspect(db, held, u=alice.user_id)
    [entry] = (await alice.http.get("/v1/mutations", params={"targetId": "h", "limit": 1})).json()["items"]
    assert row["by"] == entry["id"]  # held by the delete's mutation
    dry = (await alice.http.post("/v1/forget", json={"match": {"query": "quillfeather"}})).json()
    assert dry["counts"]["journalEntries"] >= 1, dry
    run = await alice.http.post("/v1/forget", json={"match": {"query": "quillfeather"}, "dryRun": False})
    assert run.status_code == 200, run.text
    assert await inspect(db, held, u=alice.user_id) == []
