"""A page cut by what it weighs (``api.pages``): fewer items when they are heavy, one at least,
and the cursor of the page it gives."""

from __future__ import annotations

from typing import Any

from api.pages import Pages

#: Ten items of about 1,000 bytes of JSON each.
ITEMS = [{"id": f"n{i}", "content": "x" * 980} for i in range(10)]


def _listing(items: list[dict[str, Any]], reads: list[int]) -> Any:
    async def fetch(limit: int) -> tuple[list[Any], str | None]:
        reads.append(limit)
        page = items[:limit]
        return page, (page[-1]["id"] if len(items) > limit else None)

    return fetch


async def test_a_page_that_fits_is_read_once() -> None:
    reads: list[int] = []
    assert await Pages(384 * 1024).fit(10, _listing(ITEMS, reads)) == (ITEMS, None)
    assert reads == [10]


async def test_a_heavy_page_is_read_again_with_what_fits_and_its_cursor() -> None:
    reads: list[int] = []
    items, cursor = await Pages(3_500).fit(10, _listing(ITEMS, reads))
    assert items == ITEMS[:3] and cursor == "n2"
    assert reads == [10, 3]


async def test_an_item_heavier_than_the_budget_is_a_page_of_its_own() -> None:
    reads: list[int] = []
    items, cursor = await Pages(10).fit(10, _listing(ITEMS, reads))
    assert items == ITEMS[:1] and cursor == "n0"
    assert await Pages(10).fit(10, _listing(ITEMS[:1], [])) == (ITEMS[:1], None)


async def test_a_page_heavier_on_the_second_read_is_cut_again() -> None:
    # A write between the reads made the items heavier: the page is cut until it fits.
    reads: list[int] = []

    async def fetch(limit: int) -> tuple[list[Any], str | None]:
        reads.append(limit)
        page = (ITEMS if len(reads) == 1 else [dict(i, content="y" * 1_980) for i in ITEMS])[:limit]
        return page, page[-1]["id"]

    items, _ = await Pages(3_500).fit(10, fetch)
    assert reads == [10, 3, 1] and len(items) == 1


def _note(node_id: str, words: int = 100) -> dict[str, Any]:
    return {"node": {"id": node_id, "content": "word " * words}, "depth": 1}


ANSWER = {
    "hits": [_note("h1"), _note("h2")],
    "expanded": [_note("e1"), _note("e2")],
    "edges": [
        {"sourceId": "h1", "type": "RELATED_TO", "targetId": "e1"},
        {"sourceId": "h2", "type": "RELATED_TO", "targetId": "e2"},
    ],
}


def test_a_search_answer_that_fits_is_left_as_it_is() -> None:
    assert Pages(384 * 1024).trim(ANSWER, ("hits", "expanded")) == ANSWER


def test_a_heavy_search_keeps_its_best_hits_and_nearest_notes_and_their_edges() -> None:
    cut = Pages(1_700).trim(ANSWER, ("hits", "expanded"))  # three notes of 544 bytes fit, and an edge
    assert [h["node"]["id"] for h in cut["hits"]] == ["h1", "h2"]
    assert [e["node"]["id"] for e in cut["expanded"]] == ["e1"]
    assert cut["edges"] == ANSWER["edges"][:1] and cut["truncated"] is True
    one = Pages(1).trim(ANSWER, ("hits", "expanded"))
    assert ([h["node"]["id"] for h in one["hits"]], one["expanded"], one["edges"]) == (["h1"], [], [])


def test_a_neighbourhood_keeps_its_note_and_owes_no_other() -> None:
    hood = {"node": {"id": "n", "content": "x"}, "nodes": [_note("a")], "edges": []}
    cut = Pages(1).trim(hood, ("nodes",))
    assert (cut["node"], cut["nodes"], cut["truncated"]) == (hood["node"], [], True)
