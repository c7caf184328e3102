"""Whole-user operations: forgetting a user removes every node that carries their id."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from graph.core.db import Database
from graph.core.gate import Gated, WriteGate
from graph.core.ledger import Ledger
from graph.core.principals import validate_identifier


async def forget_user(
    db: Database, user_id: str, batch_size: int = 5_000, ledger: Ledger | None = None
) -> int:
    """Delete all of a user's data (notes, edges, threads, keys, ...); returns the nodes deleted.

    Runs in batches, each through the user's write gate, so a large user does not need one
    huge transaction and no write of theirs interleaves with a batch. The user's Tenant node
    stays as a tombstone: the gate refuses their writes from then on (a job still running, a
    key cached elsewhere), until a new key is made for the user. Safe to re-run. Once every
    batch is done it is recorded in the ``ledger`` (``ctxnet users forget`` passes the data
    directory's), so a restore of an older dump forgets the user again.
    """
    validate_identifier(user_id, "user")
    gate = WriteGate(db)

    async def batch(gated: Gated) -> int:
        rows = await gated.run("queries/core/user_forget_batch", limit=batch_size)
        deleted = int(rows[0]["deleted"]) if rows else 0
        if deleted < batch_size:
            await gated.run("queries/core/user_forget_done")
        return deleted

    total = 0
    while True:
        deleted = await gate.write(user_id, batch, forgetting=True)
        total += deleted
        if deleted < batch_size:
            if ledger is not None:
                await asyncio.to_thread(ledger.user_forgotten, user_id)
            return total


@dataclass(frozen=True)
class Presence:
    """What the database holds of a user (:func:`presence`)."""

    #: Their Tenant node exists: they wrote through the write gate at least once.
    wrote: bool
    #: It is the tombstone of a user forgotten whole (nothing of theirs is left).
    forgotten: bool
    #: An API key carries their id.
    keys: bool

    @property
    def nothing_to_forget(self) -> bool:
        """Forgotten already, or never held: forgetting them again would only make a Tenant
        node (the gate's) for a user the database does not hold."""
        return self.forgotten or not (self.wrote or self.keys)


async def presence(db: Database, user_id: str) -> Presence:
    """What the database holds of a user, read without the write gate (which would make
    their Tenant node): a restore carrying out the ledger skips the users it does not hold."""
    [row] = await db.read("queries/core/user_presence", userId=user_id)
    return Presence(wrote=bool(row["wrote"]), forgotten=bool(row["forgotten"]), keys=bool(row["keys"]))


async def find_orphans(db: Database, user_id: str) -> list[dict[str, str]]:
    """Records of a user that should not exist: merge records without their note, cross-user edges."""
    rows = await db.read("queries/core/user_orphans", userId=user_id)
    return [{"kind": r["kind"], "elementId": r["elementId"]} for r in rows]
