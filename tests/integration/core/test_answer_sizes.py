"""No answer grows without bound with what a user stored, over HTTP against the real Neo4j.

A user holds one of everything, then a note with 300 merges, a session with 1,000 tool
calls and 400 decisions of 2 KB (the shapes that made answers grow: a batch that folds into one
note answered ~179 MB once). Every operation of the live OpenAPI document is then called
as that user, reads first, and no answer may exceed :data:`LIMIT`: an operation added
tomorrow is held to it the day it exists."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx

from tests.integration.conftest import MakeCaller
from tests.support.sweep import seed_everything, sweep

#: The largest answer any route may give, whatever the user stored.
LIMIT = 512 * 1024
#: How many decisions the user holds: together more than LIMIT (about 0.8 MB).
DECISIONS = 400


async def test_no_answer_grows_with_what_a_user_stored(make_caller: MakeCaller, api: Any) -> None:
    alice = await make_caller()
    ids = await seed_everything(alice, make_caller, f"zq{uuid.uuid4().hex[:10]}")
    note = (await alice.http.get(f"/v1/knowledge/{ids['note']}", params={"includeEmbedding": "true"})).json()
    twins = [
        {"title": note["title"], "content": f"{note['content']} Restated {i}: " + "word " * 120,
         "type": "fact", "embedding": note["embedding"], "dedupe": True}
        for i in range(300)
    ]  # fmt: skip
    folded = await alice.http.post("/v1/knowledge/batch", json={"items": twins})
    assert folded.status_code in (200, 201), folded.text[:300]
    assert (await alice.http.get(f"/v1/knowledge/{ids['note']}")).json()["mergeCount"] >= 300
    for chunk in range(2):
        calls = [
            {
                "tool": "search",
                "arguments": {"query": "x" * 500, "n": chunk * 500 + i},
                "resultSummary": "y" * 500,
            }
            for i in range(500)
        ]
        appended = await alice.http.post(f"/v1/sessions/{ids['session']}/tool-calls", json={"items": calls})
        assert appended.status_code == 201, appended.text[:300]
    gate = asyncio.Semaphore(4)

    async def decide(i: int) -> int:
        # Tags weigh without being embedded: 400 decisions of ~2 KB outweigh the limit as
        # 1,000 of ~0.7 KB did, in 2.5 times fewer writes.
        body = {
            "id": f"adr-many-{i}", "title": f"Decision {i}", "context": "Why " * 20,
            "decision": f"We do thing {i}. " + "Because " * 30, "consequences": ["More " * 20],
            "tags": [f"t{k}-" + "x" * 60 for k in range(20)],
        }  # fmt: skip
        async with gate:
            return (await alice.http.post("/v1/decisions", json=body)).status_code

    assert set(await asyncio.gather(*(decide(i) for i in range(DECISIONS)))) == {201}
    weight, cursor = 0, None
    while True:  # what the user stored outweighs any one answer
        params: dict[str, Any] = {"limit": 500} | ({"cursor": cursor} if cursor else {})
        page = await alice.http.get("/v1/decisions", params=params)
        weight += len(page.content)
        if not (cursor := page.json().get("nextCursor")):
            break
    assert weight > LIMIT, weight

    document = httpx.get(f"{api.base_url}/openapi.json", timeout=30).json()
    answers, unplaced = [], []
    # Every read first, then every write, so the walk's writes (a delete) do not empty a read.
    for reads in (True, False):
        part = document | {
            "paths": {
                path: {m: op for m, op in operations.items() if (m == "get") == reads}
                for path, operations in document["paths"].items()
            }
        }
        walked, missed = await sweep(part, alice, ids, {}, same_user=True)
        answers += walked
        unplaced += missed
    assert not unplaced, unplaced
    assert len(answers) == sum(len(ops) for ops in document["paths"].values())
    sizes = sorted(((len(answer.content), call[0], call[1]) for call, answer in answers), reverse=True)
    assert sizes[0][0] <= LIMIT, sizes[:5]
    for (method, url, _, _), answer in answers:
        assert answer.status_code < 500, (method, url, answer.text[:300])
