"""The job pool is fair across users: one user's pile of jobs never holds every slot, and
a freed slot goes to the waiting user who runs fewest."""

from __future__ import annotations

import asyncio

from graph.core.jobs import FairSlots


async def test_one_user_never_holds_every_slot_and_freed_slots_go_to_who_runs_fewest() -> None:
    slots = FairSlots(3)
    started: list[str] = []
    release = {name: asyncio.Event() for name in ("a1", "a2", "a3", "a4", "b1", "c1")}

    async def job(user: str, name: str) -> None:
        async with slots.slot(user):
            started.append(name)
            await release[name].wait()

    tasks = [asyncio.create_task(job("a", f"a{i}")) for i in range(1, 5)]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert started == ["a1", "a2"] and slots.running("a") == 2  # the third slot is kept free
    tasks.append(asyncio.create_task(job("b", "b1")))
    tasks.append(asyncio.create_task(job("c", "c1")))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert started == ["a1", "a2", "b1"]  # b came later than a's queue, and still runs at once
    release["a1"].set()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert started[-1] == "c1"  # c runs none, a runs one: c first, though a3 waited longer
    release["b1"].set()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert started[-1] == "a3" and slots.running("a") == 2
    for event in release.values():
        event.set()
    await asyncio.gather(*tasks)
    assert started[-1] == "a4" and slots.running("a") == 0


async def test_a_cancelled_waiter_gives_up_its_place_and_a_single_slot_still_serves() -> None:
    slots = FairSlots(1)
    gate = asyncio.Event()

    async def hold() -> None:
        async with slots.slot("a"):
            await gate.wait()

    holder = asyncio.create_task(hold())
    await asyncio.sleep(0)
    waiter = asyncio.create_task(hold())
    await asyncio.sleep(0)
    waiter.cancel()
    gate.set()
    await holder
    async with slots.slot("b"):
        assert slots.running("b") == 1
