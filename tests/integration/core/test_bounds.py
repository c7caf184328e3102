"""No request takes a worker down or breaks a user's data (issue 28, "Trust"): answers stay
bounded however many creates were folded into a note, free-form JSON is bounded at write
time, and background jobs are bounded per user."""

from __future__ import annotations

import time
from typing import Any

from graph.core.principals import Role, Scope
from tests.integration.conftest import MakeCaller

#: About 150 words, as in the review's probe: each merge record keeps its full text.
WORDS = " ".join(f"word{i}" for i in range(150))
#: What a note, a top-1 search and a batch item may weigh, however many merges a note has.
NOTE_BYTES = 12_000
ITEM_BYTES = 120


def twin(i: int, words: str = WORDS) -> dict[str, Any]:
    """The same fact under another id: dedupe folds it into the first."""
    return {"id": f"m-{i}", "title": "Merged fact", "content": f"The merged fact: {words}", "type": "fact"}


async def test_a_note_with_300_merges_answers_small_everywhere(make_caller: MakeCaller) -> None:
    alice = await make_caller(Role.AGENT, agent_id="writer")
    items = [twin(i) for i in range(300)]
    made = await alice.http.post("/v1/knowledge/batch", json={"items": items}, timeout=120)
    assert made.status_code == 201, made.text[:300]
    results = made.json()["results"]
    assert results[0] == {"id": "m-0", "outcome": "created"}
    assert results[1] == {"id": "m-1", "outcome": "merged", "mergedInto": "m-0"}
    assert len(made.content) < 300 * ITEM_BYTES, len(made.content)

    later = await alice.http.post("/v1/knowledge", json=twin(300))
    assert later.status_code == 200 and later.json()["mergedInto"] == "m-0"
    assert len(later.content) < NOTE_BYTES, len(later.content)

    note = await alice.http.get("/v1/knowledge/m-0")
    assert note.status_code == 200 and len(note.content) < NOTE_BYTES, len(note.content)
    body = note.json()
    assert body["mergeCount"] == 300 and len(body["merges"]) == 3
    assert body["merges"][0]["requestedId"] == "m-300"  # newest first
    found = await alice.http.post("/v1/search", json={"query": "merged fact", "mode": "fulltext", "topK": 1})
    assert found.status_code == 200 and len(found.content) < NOTE_BYTES, len(found.content)
    assert found.json()["hits"][0]["node"]["mergeCount"] == 300
    listed = await alice.http.get("/v1/knowledge", params={"limit": 1})
    assert len(listed.content) < NOTE_BYTES, len(listed.content)

    # Every record, once, newest first, a page at a time.
    seen: list[str] = []
    cursor = None
    while True:
        params = {"limit": 100} | ({"cursor": cursor} if cursor else {})
        page = await alice.http.get("/v1/knowledge/m-0/merges", params=params)
        assert page.status_code == 200, page.text
        assert page.json()["mergeCount"] == 300
        seen += [m["requestedId"] for m in page.json()["items"]]
        if not (cursor := page.json().get("nextCursor")):
            break
    assert seen[0] == "m-300" and sorted(seen) == sorted(f"m-{i}" for i in range(1, 301))
    assert seen[:3] == [m["requestedId"] for m in body["merges"]]
    again = await alice.http.post("/v1/knowledge/batch", json={"items": [twin(1), twin(0)]})
    assert again.status_code == 200 and again.json()["results"] == [
        {"id": "m-1", "outcome": "merged", "mergedInto": "m-0", "alreadyMerged": True},
        {"id": "m-0", "outcome": "existing"},
    ]

    # Checked like GET of the note: another user, a scope that does not reach it, a bad cursor.
    mallory = await make_caller()
    assert (await mallory.http.get("/v1/knowledge/m-0/merges")).status_code == 404
    scoped = await make_caller(Role.AGENT, agent_id="s", user_id=alice.user_id, scope=Scope(tags=("proj",)))
    assert (await scoped.http.get("/v1/knowledge/m-0/merges")).status_code == 404
    bad = await alice.http.get("/v1/knowledge/m-0/merges", params={"cursor": "nonsense"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "cursor"
    assert (await alice.http.get("/v1/knowledge/nothing/merges")).status_code == 404


async def test_a_1000_item_batch_folded_into_one_note_answers_fast_and_small(make_caller: MakeCaller) -> None:
    alice = await make_caller(Role.AGENT, agent_id="writer")
    assert (await alice.http.post("/v1/knowledge", json=twin(0, WORDS[:400]))).status_code == 201
    items = [twin(i, WORDS[:400]) for i in range(1, 1001)]
    started = time.monotonic()
    made = await alice.http.post("/v1/knowledge/batch", json={"items": items}, timeout=120)
    took = time.monotonic() - started
    assert made.status_code == 200, made.text[:300]
    assert len(made.content) < 1000 * ITEM_BYTES, len(made.content)
    assert {r["outcome"] for r in made.json()["results"]} == {"merged"}
    assert took < 60, took
    note = await alice.http.get("/v1/knowledge/m-0")
    assert note.json()["mergeCount"] == 1000 and len(note.content) < NOTE_BYTES
    print(f"1,000 folded: {took:.1f} s, answer {len(made.content):,} bytes, note {len(note.content):,}")
