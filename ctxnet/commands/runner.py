"""How a ``ctxnet`` command runs: with the settings, in one event loop, against one database
(waited for, then closed), a domain error as one red line and exit code 1."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import typer

from graph.core.db import Database
from graph.core.errors import ContextNetworkError
from graph.core.settings import Settings, get_settings

T = TypeVar("T")


def fail(message: str) -> typer.Exit:
    """Print ``message`` as an error; the exit (code 1) to raise."""
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    return typer.Exit(code=1)


def run(work: Callable[[Settings], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine with the settings; domain errors become one red line and exit 1."""
    settings = get_settings()
    try:
        return asyncio.run(work(settings))
    except ContextNetworkError as exc:
        raise fail(exc.message) from None


async def with_db(settings: Settings, work: Callable[[Database], Awaitable[T]], wait: float = 10.0) -> T:
    """``work`` with a database, once Neo4j answers (within ``wait`` seconds); closed after."""
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(wait)
        return await work(db)
    finally:
        await db.close()
