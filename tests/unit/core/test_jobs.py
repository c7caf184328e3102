"""A job's work is retried after database faults with the memo it filled in, so what a step
must not redo (an LLM's answer) is not redone; other errors are not retried."""

from __future__ import annotations

from typing import Any

import pytest

from graph.core.errors import DatabaseUnavailable, InvalidInput
from graph.core.jobs import run_attempts


async def test_a_retry_after_a_database_fault_reuses_the_memo() -> None:
    asked: list[int] = []
    stored: list[str] = []

    async def work(memo: dict[str, Any]) -> dict[str, int]:
        if "answer" not in memo:
            asked.append(1)  # the expensive, non-repeatable call (an LLM)
            memo["answer"] = f"answer #{len(asked)}"
        if len(stored) < 2:
            stored.append(memo["answer"])
            raise DatabaseUnavailable("Neo4j is unavailable: deadlock")
        return {"stored": 1}

    assert await run_attempts(work, max_wait=0.01) == {"stored": 1}
    assert asked == [1], "the LLM was asked once"
    assert stored == ["answer #1", "answer #1"]


async def test_other_errors_are_not_retried_and_faults_stop_after_the_attempts() -> None:
    calls: list[int] = []

    async def invalid(memo: dict[str, Any]) -> dict[str, int]:
        calls.append(1)
        raise InvalidInput("bad")

    with pytest.raises(InvalidInput):
        await run_attempts(invalid, max_wait=0.01)
    assert len(calls) == 1

    async def down(memo: dict[str, Any]) -> dict[str, int]:
        calls.append(1)
        raise DatabaseUnavailable("down")

    with pytest.raises(DatabaseUnavailable):
        await run_attempts(down, attempts=3, max_wait=0.01)
    assert len(calls) == 4
