"""Batches sized by the server's pace, so an import on a busy server is slower, never broken.

A batch of notes takes as long as the server takes to embed it: on a busy server, or with
long notes, a fixed 500 can outlast the client's timeout while the server goes on and
commits it. So the first batch is small (:data:`FIRST`), and each next one is cut to what
the server did in :data:`SECONDS` at the pace it showed on the last (never more than
``--batch-size``). A batch that still times out is sent again in halves (keyed by id, a
batch the server did commit changes nothing twice), down to one record.

Each finished batch is recorded in the state file by where it starts and how many records
it holds (``notes@40+25``), so ``--resume`` skips exactly those, whatever sizes the rest
are cut to then.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable

import httpx

from ctxnet.io.records import Record

#: Records in the first batch of a kind, and the seconds a batch should take at the pace seen.
FIRST, SECONDS = 20, 10.0
#: Batches in flight at once: the server embeds one while it writes the other.
IN_FLIGHT = 2

Send = Callable[[list[Record]], Awaitable[None]]


class Pacer:
    """The size of the next batch, from the pace of the last."""

    def __init__(self, largest: int, first: int = FIRST, seconds: float = SECONDS) -> None:
        self.largest, self.seconds = largest, seconds
        self.size = max(1, min(first, largest))

    def took(self, records: int, seconds: float) -> None:
        """A batch of ``records`` took ``seconds``: the next is cut to the pace (at most
        twice the last, so one quick batch does not make a huge one)."""
        pace = records / max(seconds, 1e-3)
        self.size = max(1, min(self.largest, int(pace * self.seconds), 2 * max(records, 1)))

    def timed_out(self, records: int) -> None:
        """A batch of ``records`` timed out: the next is at most half of it."""
        self.size = max(1, min(self.size, records // 2))


def done_ranges(done: set[str], kind: str) -> dict[int, int]:
    """Where each finished batch of ``kind`` starts, and how many records it holds."""
    found = {}
    for name in done:
        match = re.fullmatch(rf"{re.escape(kind)}@(\d+)\+(\d+)", name)
        if match:
            found[int(match.group(1))] = int(match.group(2))
    return found


async def paced(
    kind: str,
    records: list[Record],
    pacer: Pacer,
    done: set[str],
    send: Callable[[str, list[Record]], Awaitable[None]],
    skip: Callable[[list[Record]], None],
) -> None:
    """Send ``records`` in batches cut to the pace, two in flight; skip the finished ones."""
    finished = done_ranges(done, kind)
    starts = sorted(finished)
    flying: set[asyncio.Task[None]] = set()

    async def one(start: int, batch: list[Record]) -> None:
        began = time.monotonic()
        try:
            await send(f"{kind}@{start}+{len(batch)}", batch)
        except httpx.TimeoutException:
            if len(batch) == 1:
                raise
            pacer.timed_out(len(batch))
            half = len(batch) // 2
            await one(start, batch[:half])
            await one(start + half, batch[half:])
            return
        pacer.took(len(batch), time.monotonic() - began)

    at = 0
    try:
        while at < len(records):
            if at in finished:
                skip(records[at : at + finished[at]])
                at += finished[at]
                continue
            if len(flying) >= IN_FLIGHT:
                ended, flying = await asyncio.wait(flying, return_when=asyncio.FIRST_COMPLETED)
                failed = [task.exception() for task in ended if task.exception() is not None]
                if failed:  # a failure stops the import here
                    raise failed[0]  # type: ignore[misc]
                continue
            later = [s for s in starts if s > at]
            end = min(at + pacer.size, len(records), later[0] if later else len(records))
            flying.add(asyncio.create_task(one(at, records[at:end])))
            at = end
        if flying:
            await asyncio.gather(*flying)
    finally:  # the batch still in flight: stopped, and its end (a failure too) collected
        for task in flying:
            task.cancel()
        await asyncio.gather(*flying, return_exceptions=True)
