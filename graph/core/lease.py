"""The lease a background job's writes run under: a write of a job this process no longer
holds is refused, in the write's own transaction.

A job (:mod:`graph.core.jobs`) holds a lease it renews. If the process stalls longer than
the lease (a blocked event loop, a paused VM), another process may fail the job and the
client start it again; when the first process wakes, its run of the job must not go on
writing beside the new one. So the job runner sets :data:`HELD` for the job's task (and
the tasks it starts), and :class:`graph.core.gate.WriteGate` calls :func:`check` at the
start of every write transaction: no live job of this owner with a lease still running
means :class:`JobLost`, and the transaction, with everything it would have written, is
rolled back.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from neo4j import AsyncManagedTransaction

from graph.core.db import run_rows


@dataclass(frozen=True)
class JobLease:
    """The job a write runs for, and the process (``owner``) that holds it."""

    job_id: str
    owner: str


class JobLost(Exception):
    """This process no longer holds the job (its lease ran out, or someone failed it)."""


#: The lease of the job whose work is running in this task, if any.
HELD: ContextVar[JobLease | None] = ContextVar("job_lease", default=None)


async def check(tx: AsyncManagedTransaction) -> None:
    """Nothing outside a job; inside one, :class:`JobLost` unless this process still holds
    the job's lease (read in the write's own transaction)."""
    lease = HELD.get()
    if lease is None:
        return
    rows = await run_rows(tx, "queries/core/job_lease_held", id=lease.job_id, owner=lease.owner)
    if not rows:
        raise JobLost(lease.job_id)
