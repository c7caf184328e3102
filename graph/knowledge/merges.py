"""The record of the creates folded into a note, a page at a time.

A note keeps every create dedupe folded into it (a ``MergedNote``), without bound: an
agent that sends the same fact a thousand times leaves a thousand records. So a note as
the API shows it carries ``mergeCount`` and only its :data:`INLINE_MERGES` newest records
(``notes_by_ids`` and ``search_*`` cut them there); the rest are read here, newest first.
"""

from __future__ import annotations

from typing import Any

from graph.core.db import Database
from graph.core.errors import NotFound
from graph.core.principals import Principal
from graph.core.values import check_id, decode_cursor, encode_cursor
from graph.knowledge.views import merge_view

#: How many of its newest merge records a note carries inline (the queries' ``LIMIT 3``).
INLINE_MERGES = 3


class MergeRecords:
    """Read a note's merge records, paged."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def page(
        self, principal: Principal, node_id: str, *, limit: int, cursor: str | None
    ) -> dict[str, Any]:
        """One page of the note's merge records, newest first: ``{items, mergeCount, nextCursor?}``.
        Another user's note, or one outside a scoped key's reach, is a 404 like ``GET`` of it."""
        check_id(node_id)
        after_merged_at, after_id = decode_cursor(cursor) if cursor else (None, None)
        rows = await self._db.read(
            "queries/knowledge/note_merges",
            userId=principal.user_id,
            id=node_id,
            afterMergedAt=after_merged_at,
            afterId=after_id,
            limit=limit + 1,
        )
        if not rows or not principal.sees(node_id, rows[0]["tags"]):
            raise NotFound(f"no note {node_id!r}", field="id")
        found = rows[0]["merges"]
        page: dict[str, Any] = {
            "items": [merge_view(dict(m)) for m in found[:limit]],
            "mergeCount": int(rows[0]["mergeCount"]),
        }
        if len(found) > limit:
            last = found[limit - 1]
            page["nextCursor"] = encode_cursor(str(last["position"]), str(last["id"]))
        return page
