"""The per-user write gate: the one way domain code writes.

Every write to a user's memory (notes, edges, threads, messages, insights, jobs, forgetting)
runs as a function of :class:`Gated` through :meth:`WriteGate.write`. Its transaction
begins with ``queries/core/gate_enter``, which locks the user's ``Tenant`` node, so:

* one user's writes run one after another, each seeing everything committed before it:
  a read-compare-write inside the function (is this id taken? is there a twin? what is
  the thread's last message?) cannot interleave with another caller's;
* other users' writes do not wait;
* each write gets the next number of the user's sequence (``seq``, no gaps) and the
  user's exact note count (``notes``), read under the lock.

The function is a managed transaction function: the driver may run it again after a
transient fault, so it must be idempotent, and anything slow (embedding, LLM calls) is
done before entering. The journal (:mod:`graph.core.journal`) appends each change's
``Mutation`` here, in the same transaction. A write of a background job also checks that
the job's lease still holds (:mod:`graph.core.lease`). ``tests/unit/core/test_write_gate.py``
fails on domain code that writes another way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from neo4j import AsyncManagedTransaction

from graph.core import lease
from graph.core.db import Database, Row, listed, run_rows
from graph.core.errors import Conflict, Unauthenticated

T = TypeVar("T")


@dataclass
class Gated:
    """An open write transaction of one user, holding that user's lock."""

    tx: AsyncManagedTransaction
    user_id: str
    #: This write's number in the user's sequence (1, 2, 3, ... without gaps).
    seq: int
    #: How many notes the user has, exactly, as this write begins.
    notes: int
    #: How many mutations this write has journaled so far (the next one's part).
    journaled: int = 0

    async def run(self, name: str, /, **params: Any) -> list[Row]:
        """Rows of ``cypher/<name>.cypher`` in this transaction; ``$userId`` is the gate's user."""
        return await run_rows(self.tx, name, userId=self.user_id, **params)

    async def run_listed(self, name: str, /, **params: Any) -> list[Row]:
        """:meth:`run` of a query that answers its rows as one list (:func:`~graph.core.db.listed`)."""
        return listed(await self.run(name, **params))


class WriteGate:
    """Runs write transactions of one user at a time, per user."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def write(
        self,
        user_id: str,
        work: Callable[[Gated], Awaitable[T]],
        *,
        forgetting: bool = False,
        restoring: str | None = None,
    ) -> T:
        """Run ``work`` in one write transaction that first takes ``user_id``'s lock.

        A user who was forgotten gets no writes (:class:`Unauthenticated`: their keys are
        gone, though another replica may trust one for a few more seconds), except those of
        forgetting itself. A user being restored (``graph/io/restore.py``) gets only the
        writes of that restore (``restoring``: its id) and of forgetting (:class:`Conflict`).
        """

        async def transaction(tx: AsyncManagedTransaction) -> T:
            [row] = await run_rows(tx, "queries/core/gate_enter", userId=user_id)
            if row["forgotten"] and not forgetting:
                raise Unauthenticated("this user was forgotten; their API keys no longer work")
            under_way = row.get("restoring")
            if under_way is not None and under_way != restoring and not forgetting:
                raise Conflict(
                    f"this user is being restored from an export (restore {under_way}); writes wait until it "
                    "finishes: `ctxnet import FILE --resume` finishes it, `ctxnet import FILE --discard` "
                    "removes what it wrote",
                    field="restore",
                )
            await lease.check(tx)  # a background job's write: only while its lease holds
            return await work(Gated(tx, user_id, int(row["seq"]), int(row["notes"])))

        return await self._db.write_tx(transaction)

    async def run(self, user_id: str, name: str, /, **params: Any) -> list[Row]:
        """One gated statement in its own transaction."""

        async def work(gated: Gated) -> list[Row]:
            return await gated.run(name, **params)

        return await self.write(user_id, work)
