"""The only place that talks to Neo4j: one async driver per process, managed transactions.

Reads go through ``execute_read`` (routed to readers on a cluster), writes through
``execute_write``; the driver retries transaction functions on transient faults, so
every transaction function here is idempotent. A read of one statement (:meth:`Database.read`)
runs as an auto-commit transaction instead, retried here the same way: one round trip
instead of two. Neo4j driver exceptions are translated into :mod:`graph.core.errors` at
this boundary.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterator
from contextlib import asynccontextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit

import neo4j
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction
from neo4j import exceptions as neo4j_errors
from neo4j.api import AsyncBookmarkManager
from tenacity import (
    AsyncRetrying,
    before_sleep_log,
    retry_if_exception_type,
    stop_after_delay,
    wait_random_exponential,
)

from graph.core.cypher import cypher_text
from graph.core.errors import Conflict, DatabaseUnavailable, InvalidInput
from graph.core.metrics import NEO4J_SECONDS
from graph.core.settings import Settings

log = logging.getLogger(__name__)

T = TypeVar("T")
Row = dict[str, Any]
TxWork = Callable[[AsyncManagedTransaction], Awaitable[T]]

#: Driver errors that mean "Neo4j is not there right now", not "the request is wrong".
_UNAVAILABLE = (
    neo4j_errors.ServiceUnavailable,
    neo4j_errors.SessionExpired,
    neo4j_errors.TransientError,
    OSError,
)


#: Client errors that are a statement's fault, not a value's.
_OWN_FAULTS = (
    "Neo.ClientError.Statement.SyntaxError", "Neo.ClientError.Statement.SemanticError",
    "Neo.ClientError.Statement.EntityNotFound", "Neo.ClientError.Statement.ParameterMissing",
    "Neo.ClientError.Schema.",
)  # fmt: skip


@asynccontextmanager
async def translate_errors() -> AsyncIterator[None]:
    """Turn Neo4j driver exceptions into domain errors."""
    try:
        yield
    except neo4j_errors.AuthError as exc:
        log.error("Neo4j rejected the service's credentials: %s", exc.message)
        raise DatabaseUnavailable("the database refused the service's credentials") from exc
    except neo4j_errors.ConstraintError as exc:
        raise Conflict(exc.message or "the write violates a uniqueness constraint") from exc
    except _UNAVAILABLE as exc:
        # Where Neo4j runs is the operator's business: in the log, not in a client's answer.
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        log.warning("Neo4j is unavailable: %s", first_line)
        raise DatabaseUnavailable("the database is unavailable; retry shortly") from exc
    except neo4j_errors.ClientError as exc:
        # Every statement is a fixed file with values as parameters, so a client error is a
        # value that passed our validation and Neo4j still refused (a vector it cannot use, a
        # number out of its range): the caller's input, never a 500.
        # Syntax, schema and entity errors are this build's own (a broken file, a schema race
        # that graph.core.schema settles, a statement that reads what it has deleted): a
        # server fault, answered 500 with the request's id, never blamed on the caller.
        if exc.code and exc.code.startswith(_OWN_FAULTS):
            raise
        log.warning("Neo4j refused a value: %s %s", exc.code, exc.message)
        raise InvalidInput(f"the database refused a value of this request ({exc.code})") from exc


class QuietList(list[Any]):
    """A list parameter with a short ``repr``.

    The driver formats every RUN message's parameters for its debug log even when debug
    logging is off; for a batch of 1,000 notes with 384-float embeddings that ``repr`` alone
    took 140 ms, a third of the request. The packed bytes are the same as a plain list's.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<list of {len(self)}>"


def quiet(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with every list value wrapped in :class:`QuietList`."""
    return {k: QuietList(v) if type(v) is list else v for k, v in params.items()}


async def _rows(
    tx: AsyncManagedTransaction | neo4j.AsyncSession, name: str, params: dict[str, Any]
) -> list[Row]:
    started = time.perf_counter()
    try:
        result = await tx.run(cypher_text(name), quiet(params))
        return await rows_of(result)
    finally:
        NEO4J_SECONDS.labels(name).observe(time.perf_counter() - started)


def listed(rows: list[Row]) -> list[Row]:
    """The rows of a query that answers them as one list (``RETURN collect({...}) AS rows``).

    The driver spends about 0.1 ms of CPU on every record it reads (each is a Bolt message,
    read with two awaited socket reads), against microseconds for a map inside one record:
    100 rows took 12.4 ms of CPU as records and 1.3 ms as one list (``bench/platform.py``,
    ``records``). So the reads of a hot path (a desk page's header, a list, unified search)
    answer their rows as one list.
    """
    [row] = rows
    return list(row["rows"])


async def rows_of(result: neo4j.AsyncResult) -> list[Row]:
    """The result's records as dicts.

    Every query returns plain values and maps (never nodes or relationships), which the
    driver already hydrates into Python lists and dicts, so ``Record.data()``'s recursive
    walk over every value is not needed; skipping it saves a fifth of a search's time.
    """
    keys = result.keys()
    return [dict(zip(keys, values, strict=True)) for values in await result.values()]


#: Neo4j's answer to a transaction that waited ``db.transaction.bookmark_ready_timeout`` for
#: a bookmark the database has not reached.
BOOKMARK_TIMEOUT = "Neo.TransientError.Transaction.BookmarkTimeout"


def _bookmark_unreached(error: Exception) -> bool:
    return isinstance(error, neo4j_errors.Neo4jError) and error.code == BOOKMARK_TIMEOUT


class Bookmarks(AsyncBookmarkManager):
    """The bookmarks of every session of a process, on a routing URI (``neo4j://``): a read
    after a write sees the write, also when it goes to another cluster member.

    On ``bolt://`` the process talks to one server, which orders every transaction itself, so
    it keeps none: bookmarks there order nothing, and after a restore they name transactions
    the restored database never reaches, each transaction waiting on them for Neo4j's
    ``db.transaction.bookmark_ready_timeout`` (``ctxnet db restore``, docs/operations.md).
    On a cluster they are forgotten *in place* (:meth:`forget`) when Neo4j was away or a
    transaction waited on one in vain, so sessions already open (the driver's own retries
    of a transaction function) go on without them too.
    """

    def __init__(self) -> None:
        self._held: set[str] = set()

    async def update_bookmarks(
        self, previous_bookmarks: Collection[str], new_bookmarks: Collection[str]
    ) -> None:
        """A session committed: its bookmarks replace the ones it began with."""
        self._held.difference_update(previous_bookmarks)
        self._held.update(new_bookmarks)

    async def get_bookmarks(self) -> Collection[str]:
        """What a transaction about to begin waits for."""
        return frozenset(self._held)

    def forget(self) -> None:
        """Start anew: the next transaction waits on nothing."""
        self._held.clear()


class Database:
    """The process's Neo4j driver and the database it works in."""

    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        retry_seconds: float = 5.0,
        bookmarks: Bookmarks | None = None,
    ) -> None:
        self.driver = driver
        self.database = database
        #: How long a read is retried on transient faults (as the driver retries a transaction
        #: function: ``max_transaction_retry_time``).
        self.retry_seconds = retry_seconds
        #: The process's bookmarks on a routing URI (see :class:`Bookmarks`); none on bolt://.
        self.bookmarks = bookmarks

    def forget_bookmarks(self) -> None:
        """Start the bookmarks anew: the database may be older than they are (a restore)."""
        if self.bookmarks is not None:
            self.bookmarks.forget()

    @asynccontextmanager
    async def _translated(self) -> AsyncIterator[None]:
        """:func:`translate_errors`, and after Neo4j was away or waited in vain for a bookmark,
        bookmarks begin anew: the database may have come back older than they are (a
        restore), and every transaction would wait for one it will never have. What was
        committed before an outage is in the store, or was meant to go."""
        try:
            async with translate_errors():
                yield
        except DatabaseUnavailable:
            self.forget_bookmarks()
            raise

    @classmethod
    def from_settings(cls, settings: Settings) -> Database:
        """Create the driver (no I/O yet); bolt:// and neo4j:// URIs both work."""
        password = settings.resolved_neo4j_password()
        if password is None:
            raise DatabaseUnavailable(
                "no Neo4j password: set CTXNET_NEO4J_PASSWORD or start the local Neo4j "
                "(`ctxnet neo4j start`) so it generates one"
            )
        driver = AsyncGraphDatabase.driver(
            settings.resolved_neo4j_uri,
            auth=(settings.neo4j_user, password),
            connection_timeout=settings.neo4j_connect_timeout_seconds,
            connection_acquisition_timeout=settings.neo4j_connect_timeout_seconds * 2,
            max_transaction_retry_time=settings.neo4j_transaction_retry_seconds,
            liveness_check_timeout=30.0,
            user_agent="context-network/0.1",
            # "property key does not exist" on a fresh database is expected, not news.
            notifications_disabled_classifications=["UNRECOGNIZED"],
        )
        routing = urlsplit(settings.resolved_neo4j_uri).scheme.startswith("neo4j")
        return cls(
            driver,
            settings.neo4j_database,
            settings.neo4j_transaction_retry_seconds,
            Bookmarks() if routing else None,
        )

    async def close(self) -> None:
        """Close the driver and its connection pool."""
        await self.driver.close()

    async def ping(self) -> None:
        """Raise :class:`DatabaseUnavailable` unless Neo4j answers a query now. Without
        bookmarks: whether Neo4j answers, not whether it saw this process's writes (a wait on
        a bookmark would make a readiness check's deadline cut the ping short)."""
        session = self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS)
        async with self._translated(), session:
            # An auto-commit query is not retried by the driver: one quick answer.
            result = await session.run(cypher_text("queries/core/ping"))
            await result.consume()

    async def wait_until_reachable(self, seconds: float) -> None:
        """Retry :meth:`ping` with jittered backoff for up to ``seconds``."""
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(DatabaseUnavailable),
            stop=stop_after_delay(seconds),
            wait=wait_random_exponential(multiplier=0.5, max=5),
            before_sleep=before_sleep_log(log, logging.WARNING),
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                await self.ping()

    def _session(self, access: str) -> neo4j.AsyncSession:
        return self.driver.session(
            database=self.database,
            default_access_mode=access,
            bookmark_manager=self.bookmarks,
        )

    async def read_tx(self, work: TxWork[T]) -> T:
        """Run a read transaction function (retried by the driver on transient faults)."""
        async with self._translated(), self._session(neo4j.READ_ACCESS) as session:
            return await session.execute_read(work)

    async def write_tx(self, work: TxWork[T]) -> T:
        """Run a write transaction function: all of it commits, or none of it."""
        async with self._translated(), self._session(neo4j.WRITE_ACCESS) as session:
            return await session.execute_write(work)

    async def read(self, name: str, /, **params: Any) -> list[Row]:
        """Rows of the read query ``cypher/<name>.cypher``.

        One statement is a transaction of its own, so it runs as an auto-commit query: one
        round trip (RUN and PULL) where a transaction function takes two (BEGIN, RUN and PULL,
        then COMMIT), which halves the driver's CPU and the wall time of a small read
        (``bench/platform.py``, ``reads``). The driver does not retry an auto-commit query,
        so it is retried here as the driver retries a transaction function: on a fault it
        calls retryable, for up to :attr:`retry_seconds`, with growing jittered delays (a
        read is safe to run again). The session's bookmarks still make it see every write
        this process committed before it.
        """
        async with self._translated():
            delays, began = _retry_delays(), time.monotonic()
            while True:
                try:
                    async with self._session(neo4j.READ_ACCESS) as session:
                        return await _rows(session, name, params)
                except (neo4j_errors.DriverError, neo4j_errors.Neo4jError) as error:
                    if _bookmark_unreached(error):
                        self.forget_bookmarks()  # the next attempt waits on none
                    if not error.is_retryable() or time.monotonic() - began > self.retry_seconds:
                        raise
                    delay = next(delays)
                    log.warning("A read failed and is retried in %.1fs (%s)", delay, type(error).__name__)
                    await asyncio.sleep(delay)

    async def read_listed(self, name: str, /, **params: Any) -> list[Row]:
        """The rows of a read query that answers them as one list (:func:`listed`)."""
        return listed(await self.read(name, **params))

    async def write(self, name: str, /, **params: Any) -> list[Row]:
        """Rows of the write query ``cypher/<name>.cypher``, in its own transaction."""

        async def work(tx: AsyncManagedTransaction) -> list[Row]:
            return await _rows(tx, name, params)

        return await self.write_tx(work)

    async def run_autocommit(self, name: str, /, **params: Any) -> list[Row]:
        """Schema statements (CREATE INDEX/CONSTRAINT) must run outside a managed transaction."""
        async with self._translated(), self._session(neo4j.WRITE_ACCESS) as session:
            result = await session.run(cypher_text(name), quiet(params))
            return await rows_of(result)


async def run_listed(tx: AsyncManagedTransaction, name: str, /, **params: Any) -> list[Row]:
    """:func:`run_rows` of a query that answers its rows as one list (:func:`listed`)."""
    return listed(await _rows(tx, name, params))


def _retry_delays(first: float = 1.0, factor: float = 2.0, jitter: float = 0.2) -> Iterator[float]:
    """The waits between a read's attempts: the driver's own for transaction functions (1 s,
    doubling, each within 20 % either way)."""
    delay = first
    while True:
        yield delay * random.uniform(1 - jitter, 1 + jitter)  # noqa: S311 (a wait, not a secret)
        delay *= factor


async def run_rows(tx: AsyncManagedTransaction, name: str, /, **params: Any) -> list[Row]:
    """Run ``cypher/<name>.cypher`` inside an open transaction function."""
    return await _rows(tx, name, params)
