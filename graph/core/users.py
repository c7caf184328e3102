"""Whole-user operations: forgetting a user removes every node that carries their id."""

from __future__ import annotations

from graph.core.db import Database
from graph.core.principals import validate_identifier


async def forget_user(db: Database, user_id: str, batch_size: int = 5_000) -> int:
    """Delete all of a user's data (notes, edges, keys, ...); returns the nodes deleted.

    Runs in batches so a large user does not need one huge transaction; safe to re-run.
    """
    validate_identifier(user_id, "user")
    total = 0
    while True:
        rows = await db.write("queries/core/user_forget_batch", userId=user_id, limit=batch_size)
        deleted = int(rows[0]["deleted"]) if rows else 0
        total += deleted
        if deleted < batch_size:
            return total


async def find_orphans(db: Database, user_id: str) -> list[dict[str, str]]:
    """Records of a user that should not exist: merge records without their note, cross-user edges."""
    rows = await db.read("queries/core/user_orphans", userId=user_id)
    return [{"kind": r["kind"], "elementId": r["elementId"]} for r in rows]
