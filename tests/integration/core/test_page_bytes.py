"""Every paged listing is cut by what its page weighs, not only by ``limit``, over HTTP
against the real Neo4j.

A second API process runs with ``CTXNET_PAGE_BYTES=1``: any page of two items is too
heavy, so every page it gives holds one item, whatever ``limit`` asks. Each listing of the
live OpenAPI document (a GET taking ``limit`` and ``cursor``), called at its largest
``limit``, is walked page by page there and must give, one at a time, exactly the items
the normal API gives in one page: a listing added tomorrow is held to it the day it exists.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import MakeCaller
from tests.support.resources import RESOURCES
from tests.support.servers import ApiProcess, running_api
from tests.support.sweep import resolve_schema, seed_everything


@pytest.fixture(scope="module")
def one_item_pages(neo4j_server: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """An API process whose pages weigh at most one byte: one item each."""
    log: Path = tmp_path_factory.mktemp("one-item-pages") / "api.log"
    with running_api(log, {"CTXNET_API_KEY_CACHE_SECONDS": "0", "CTXNET_PAGE_BYTES": "1"}) as process:
        yield process


def _listings(document: dict[str, Any]) -> list[tuple[str, int]]:
    """Each paged listing's path and its largest ``limit``."""
    found = []
    for path, operations in document["paths"].items():
        query = {p["name"]: p for p in operations.get("get", {}).get("parameters", []) if p["in"] == "query"}
        if {"limit", "cursor"} <= set(query):
            found.append((path, int(resolve_schema(document, query["limit"]["schema"])["maximum"])))
    return found


async def test_every_listing_pages_by_what_its_page_weighs(
    make_caller: MakeCaller, api: ApiProcess, one_item_pages: ApiProcess
) -> None:
    alice = await make_caller()
    ids = await seed_everything(alice, make_caller, f"pb{uuid.uuid4().hex[:8]}")
    claim = "The nightly backup of the billing replica starts at 02:00 UTC."
    await seed_everything(alice, make_caller, f"pb{uuid.uuid4().hex[:8]}", claim=claim)  # two of each
    # A second of what one seeding leaves one of: a merge, a message, a tool call, a pattern,
    # an edge of the note.
    note = (await alice.http.get(f"/v1/knowledge/{ids['note']}", params={"includeEmbedding": "true"})).json()
    twins = [
        {"title": note["title"], "content": f"{note['content']} Again {i}.", "type": "fact",
         "embedding": note["embedding"]}
        for i in range(2)
    ]  # fmt: skip
    assert (await alice.http.post("/v1/knowledge/batch", json={"items": twins})).status_code == 200
    said = {"messages": [{"role": "assistant", "content": "Noted."}, {"role": "user", "content": "Thanks."}]}
    assert (await alice.http.post(f"/v1/threads/{ids['thread']}/messages", json=said)).status_code == 201
    call = {"items": [{"tool": "recall", "arguments": {"query": "tea"}, "resultSummary": "found"}]}
    assert (await alice.http.post(f"/v1/sessions/{ids['session']}/tool-calls", json=call)).status_code == 201
    edge = {"type": "dependsOn", "targetId": ids["note2"]}
    assert (await alice.http.post(f"/v1/knowledge/{ids['note']}/connections", json=edge)).status_code == 201
    for n in range(2):
        pattern = {"title": f"Pattern {n}", "description": f"We brew it {n} ways."}
        assert (await alice.http.post("/v1/patterns", json=pattern)).status_code == 201

    document = httpx.get(f"{api.base_url}/openapi.json", timeout=30).json()
    listings = _listings(document)
    assert len(listings) >= 15, listings
    small = alice.client(one_item_pages.base_url)
    for path, limit in listings:
        url = path.replace("{id}", ids[RESOURCES[path.split("/")[2]]]) if "{id}" in path else path
        whole = await alice.http.get(url, params={"limit": limit})
        assert whole.status_code == 200, (url, whole.text[:300])
        assert "nextCursor" not in whole.json(), url  # all of it fits one page of the normal API
        items = whole.json()["items"]
        assert len(items) >= 2, (url, "the walk needs two items to show a cut", items)
        walked: list[Any] = []
        cursor: str | None = None
        while True:
            page = await small.get(url, params={"limit": limit} | ({"cursor": cursor} if cursor else {}))
            assert page.status_code == 200, (url, page.text[:300])
            assert len(page.json()["items"]) == 1, (url, page.json())
            walked += page.json()["items"]
            if not (cursor := page.json().get("nextCursor")):
                break
            assert len(walked) <= len(items), (url, "the walk does not end")
        assert walked == items, url


async def test_a_thread_of_long_messages_comes_in_pages_under_the_answer_limit(
    make_caller: MakeCaller,
) -> None:
    """Eight messages of 100,000 characters (the most one may hold): a page of all of them
    would weigh 800 KB; at the default budget each page stays under 512 KB, and paging on
    gives every message, in order."""
    alice = await make_caller()
    thread = f"long-{uuid.uuid4().hex[:8]}"
    assert (await alice.http.post("/v1/threads", json={"id": thread, "topic": "long"})).status_code == 201
    for half in range(2):
        said = {"messages": [{"role": "user", "content": f"{half}{n}" + "x" * 99_998} for n in range(4)]}
        appended = await alice.http.post(f"/v1/threads/{thread}/messages", json=said)
        assert appended.status_code == 201, appended.text[:300]
    walked: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 1000} | ({"cursor": cursor} if cursor else {})
        page = await alice.http.get(f"/v1/threads/{thread}/messages", params=params)
        assert page.status_code == 200 and len(page.content) <= 512 * 1024, len(page.content)
        walked += [m["content"][:2] for m in page.json()["items"]]
        if not (cursor := page.json().get("nextCursor")):
            break
    assert walked == [f"{half}{n}" for half in range(2) for n in range(4)]


async def test_a_search_and_a_neighbourhood_hold_what_fits_and_say_so(
    make_caller: MakeCaller, api: ApiProcess, one_item_pages: ApiProcess
) -> None:
    """With one-byte pages a search (and a unified search) keeps its best hit alone and a
    neighbourhood its note; each says `truncated`. The normal API answers the whole of each."""
    alice = await make_caller()
    ids = await seed_everything(alice, make_caller, f"pb{uuid.uuid4().hex[:8]}")
    small = alice.client(one_item_pages.base_url)
    body = {"query": "I prefer tea", "topK": 5, "maxDepth": 1}
    whole = (await alice.http.post("/v1/search", json=body)).json()
    assert len(whole["hits"]) >= 2 and whole["edges"] and "truncated" not in whole
    cut = (await small.post("/v1/search", json=body)).json()
    assert (
        cut["hits"] == whole["hits"][:1]
        and cut["expanded"] == cut["edges"] == []
        and cut["truncated"] is True
    )
    asked = {"query": "I prefer tea", "topK": 10}
    every = (await alice.http.post("/v1/search/unified", json=asked)).json()
    assert len(every["results"]) >= 2 and "truncated" not in every
    best = (await small.post("/v1/search/unified", json=asked)).json()
    assert best["results"] == every["results"][:1] and best["truncated"] is True
    hood = (await alice.http.get(f"/v1/knowledge/{ids['note']}/neighborhood")).json()
    assert hood["nodes"] and "truncated" not in hood
    alone = (await small.get(f"/v1/knowledge/{ids['note']}/neighborhood")).json()
    assert (alone["node"], alone["nodes"], alone["edges"], alone["truncated"]) == (hood["node"], [], [], True)
