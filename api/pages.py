"""Pages cut by what they weigh as well as by how many items they hold.

A listing's ``limit`` says how many items a caller wants; what the items weigh is the
user's to decide: 500 notes of 20,000 characters with their vectors come to 14 MB, 1,000
messages of 100,000 characters to 100 MB. So every paged listing reads its page through
:meth:`Pages.fit`: when the page's items come to more than ``CTXNET_PAGE_BYTES`` of JSON
(384 KiB, as an export page), it reads the page again with as many items as fit (one at
least, however large), and the page's ``nextCursor`` follows the last item it carries. A
client pages on as it always does; nothing is skipped.

The second read costs only a page that was too large; a write between the two reads
changes nothing a client can see, since the page it gets is one read with its own cursor.

A search (and a note's neighbourhood) has no next page: :meth:`Pages.trim` keeps its best
hits and nearest notes that fit the same budget, one hit at least, and says ``truncated``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request
from pydantic_core import to_json

from api.deps import get_services

#: One page of a listing of at most ``limit`` items: the items and the cursor after them.
Fetch = Callable[[int], Awaitable[tuple[list[Any], str | None]]]


@dataclass(frozen=True)
class Pages:
    """The byte budget of a page (``CTXNET_PAGE_BYTES``)."""

    budget: int

    async def fit(self, limit: int, fetch: Fetch) -> tuple[list[Any], str | None]:
        """``fetch(limit)``, or, when its items weigh more than the budget, ``fetch(n)`` for
        the most items ``n`` (at least one) that fit."""
        items, cursor = await fetch(limit)
        while len(items) > 1:
            fitting = self.fitting(items)
            if fitting == len(items):
                break
            items, cursor = await fetch(fitting)
        return items, cursor

    def fitting(self, items: list[Any]) -> int:
        """How many of the first ``items`` fit in the budget, one at least."""
        size = 0
        for count, item in enumerate(items):
            size += len(to_json(item, fallback=str)) + 1
            if size > self.budget:
                return max(count, 1)
        return len(items)

    def trim(self, answer: dict[str, Any], ranked: tuple[str, ...]) -> dict[str, Any]:
        """A search-like ``answer`` cut to the budget: the items of its ``ranked`` lists (hits,
        then the notes reached around them, each best or nearest first) while they fit, one
        at least (none for a neighbourhood, whose ``node`` is kept whole), then the ``edges``
        among the notes kept while they fit; ``truncated`` when anything was left out. Each
        item is ``{node: {id, ...}, ...}``."""
        size = len(to_json(answer.get("node") or {}))
        kept: set[str] = {answer["node"]["id"]} if answer.get("node") else set()
        cut = dict(answer)
        first = None if kept else ranked[0]  # a neighbourhood has its note: no hit is owed
        full = False  # once one item is left out, so is everything ranked after it
        for key in ranked:
            fitting: list[Any] = []
            for item in [] if full else answer[key]:
                weight = len(to_json(item, fallback=str)) + 1
                if size + weight > self.budget and (fitting or key != first):
                    full = True
                    break
                size += weight
                fitting.append(item)
                kept.add(item["node"]["id"])
            cut[key] = fitting
        edges = [e for e in answer["edges"] if e["sourceId"] in kept and e["targetId"] in kept]
        cut["edges"] = []
        for edge in edges:
            size += len(to_json(edge, fallback=str)) + 1
            if size > self.budget:
                break
            cut["edges"].append(edge)
        if any(len(cut[key]) < len(answer[key]) for key in (*ranked, "edges")):
            cut["truncated"] = True
        return cut


def get_pages(request: Request) -> Pages:
    """The page budget of this process."""
    return Pages(get_services(request).settings.page_bytes)


PagesDep = Annotated[Pages, Depends(get_pages)]
