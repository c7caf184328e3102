"""Whole-database backup of the local runtime, on Neo4j's own ``neo4j-admin database dump``
and ``database load`` (``ctxnet db backup`` / ``ctxnet db restore``).

Neo4j Community dumps and loads only a database that is not running, so both stop the local
server first and start it again afterwards if it was running, and return once the database
answers again (an API process waits: it answers 503 meanwhile and recovers by itself, see
``docs/operations.md``). A stop is Neo4j's clean shutdown: every transaction committed before
it is in the store it checkpoints, so a backup holds every write acknowledged before it
began; a write that arrives while the server is down is refused (503), never acknowledged
and lost. The dump is one file, readable by this user only.

A restore replaces the whole database (every user) with the dump's, and then honours what
happened after the dump: the ledger (:mod:`graph.core.ledger`) names every key revoked, desk
session ended, user forgotten and ``POST /v1/forget`` run since, and the restore carries
them out again on the loaded database before the API can reach it (on a private port), and
only then starts the server where the API looks for it. A backup records its dump's sha256
in the ledger, which is how a restore knows when its dump was taken; a dump the ledger does
not know (made by hand, elsewhere, or before the ledger) is refused unless ``force``, with
what could come back, and with ``force`` every entry is carried out again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ctxnet.commands.runner import with_db
from ctxnet.neo4j_home import ADMIN_TOOL, PRIVATE_UMASK
from ctxnet.neo4j_server import LocalNeo4j
from graph.core.db import Database
from graph.core.errors import Neo4jRuntimeError, NotFound
from graph.core.ledger import DESK_END, FORGET, REVOKE, USER_FORGET, Entry, Ledger
from graph.core.principals import ApiKeys
from graph.core.settings import Settings
from graph.core.users import forget_user, presence
from graph.project.forget import replay

#: The database the service keeps everything in.
DATABASE = "neo4j"


#: The most entries a refusal lists one by one.
LISTED = 20


@dataclass(frozen=True)
class Outcome:
    """What a backup or restore did: the dump file, its size, how long the database was
    offline, whether the server was started again, and (a restore) the ledger's entries it
    carried out again."""

    path: Path
    size: int
    offline_seconds: float
    restarted: bool
    carried_out: tuple[Entry, ...] = ()


def default_path(local: LocalNeo4j) -> Path:
    """``<data_dir>/backups/neo4j-<UTC time>.dump``."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return local.settings.data_dir / "backups" / f"{DATABASE}-{stamp}.dump"


def backup(local: LocalNeo4j, target: Path | None = None, say: Callable[[str], None] = print) -> Outcome:
    """Dump the local database to ``target`` (a new file; :func:`default_path` if ``None``)."""
    target = (target or default_path(local)).resolve()
    if target.exists():
        raise Neo4jRuntimeError(f"{target} exists already; name a new file")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".dump-") as folder:
        written = Path(folder) / f"{DATABASE}.dump"

        def dump() -> None:
            _admin(local, "database", "dump", DATABASE, f"--to-path={folder}", "--overwrite-destination=true")
            # Recorded while the database is still stopped: every later change's entry is
            # below this line (docs of graph.core.ledger).
            Ledger.of(local.settings).backed_up(sha256_of(written), target, written.stat().st_size)

        offline, restarted = _offline(local, dump, "dump", say)
        os.replace(written, target)
    target.chmod(0o600)
    return Outcome(target, target.stat().st_size, offline, restarted)


def restore(
    local: LocalNeo4j, source: Path, say: Callable[[str], None] = print, force: bool = False
) -> Outcome:
    """Replace the local database with the dump in ``source``, and carry out again what the
    ledger holds since the dump before the server is where the API looks for it."""
    source = source.resolve()
    if not source.is_file():
        raise Neo4jRuntimeError(f"no dump at {source}")
    ledger = Ledger.of(local.settings)
    digest = sha256_of(source)
    known, due = ledger.since_dump(digest)
    if known is None and due and not force:
        raise Neo4jRuntimeError(refusal(ledger, digest, due))
    local.fetch()
    running = local.pid() is not None
    began = time.monotonic()
    if running:
        say("stopping the local Neo4j: Community can load only a stopped database (it starts again after)")
        local.stop()
    try:
        with tempfile.TemporaryDirectory(prefix="ctxnet-load-") as folder:
            shutil.copyfile(source, Path(folder) / f"{DATABASE}.dump")  # load reads <database>.dump
            _admin(
                local, "database", "load", DATABASE, f"--from-path={folder}", "--overwrite-destination=true"
            )
    except BaseException:
        if running:  # the load failed: the server comes back as it can
            _start(local, say)
        raise
    if due:
        what = "since the dump" if known else "(every one: the dump is not in the ledger)"
        say(f"carrying out again {entries(len(due))} of the ledger {what}, on a port the API does not know")
        _carry_out(local, due)
    if running:
        _start(local, say)
    ledger.restored(digest, known is not None, len(due))
    return Outcome(source, source.stat().st_size, time.monotonic() - began, running, tuple(due))


def refusal(ledger: Ledger, digest: str, due: list[Entry]) -> str:
    """Why a dump the ledger does not know is not restored without ``force``, and what of the
    ledger could come back with it."""
    listed = "\n".join(f"  {entry.describe()}" for entry in due[:LISTED])
    more = f"\n  ... and {len(due) - LISTED} more" if len(due) > LISTED else ""
    return (
        f"the ledger ({ledger.path}) does not know this dump (sha256 {digest[:16]}...): `ctxnet db backup` "
        "did not write it here, so when it was taken is not known, and what the ledger holds could "
        f"come back with it ({entries(len(due))}):\n{listed}{more}\n"
        "add --force to restore it and carry every one of them out again (each is idempotent)"
    )


def entries(count: int) -> str:
    """``1 entry``, ``2 entries``."""
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def sha256_of(path: Path) -> str:
    """The hex sha256 of a file, read in chunks."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _carry_out(local: LocalNeo4j, due: list[Entry]) -> None:
    """Carry out ``due`` on the loaded database, served meanwhile on free ports the API does
    not know; stopped after. A failure leaves the database stopped: better down than serving
    a revoked key or a forgotten text."""
    ports = {"neo4j_bolt_port": _free_port(), "neo4j_http_port": _free_port(), "neo4j_uri": None}
    private = LocalNeo4j(local.settings.model_copy(update=ports))
    private.start()
    try:
        asyncio.run(with_db(private.settings, lambda db: carry_out(db, due), wait=_wait(private.settings)))
    except Exception as exc:
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        raise Neo4jRuntimeError(
            f"carrying out the ledger again failed ({message}); the dump is loaded but the local Neo4j "
            "is left stopped so that nothing revoked or forgotten is served: run the restore again"
        ) from exc
    finally:
        private.stop()


async def carry_out(db: Database, due: list[Entry]) -> None:
    """Carry out the ledger's entries again, in order; idempotent (what the database does not
    hold, or holds done already, is skipped: no user it never held is made, not even their
    gate's Tenant node), so a replay of a replay changes nothing."""
    keys = ApiKeys(db, cache_seconds=0)  # no ledger: carried out again, not recorded again
    for entry in due:
        fields = entry.fields
        if entry.kind == REVOKE:
            with contextlib.suppress(NotFound):  # made after the dump: not in it
                await keys.revoke(fields["keyId"])
        elif entry.kind == DESK_END:
            await keys.end_desk(fields["keyId"])
        elif entry.kind == USER_FORGET:
            if not (await presence(db, fields["userId"])).nothing_to_forget:
                await forget_user(db, fields["userId"])
        elif entry.kind == FORGET:
            held = await presence(db, fields["userId"])
            if held.wrote and not held.forgotten:  # a run forgets only what the user wrote
                await replay(db, fields["userId"], fields["record"])


def _start(local: LocalNeo4j, say: Callable[[str], None]) -> None:
    """Start the local server where the API looks for it, and wait until it answers."""
    say("starting the local Neo4j again")
    local.start()
    asyncio.run(with_db(local.settings, _answered, wait=_wait(local.settings)))


async def _answered(db: Database) -> None:
    """Nothing more: :func:`with_db` waited until the database answered a query."""


def _wait(settings: Settings) -> float:
    return settings.neo4j_startup_wait_seconds


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _offline(
    local: LocalNeo4j, work: Callable[[], None], what: str, say: Callable[[str], None]
) -> tuple[float, bool]:
    """Run ``work`` with the local server stopped (Community's rule), then start it again if
    it was running and wait until it answers; seconds offline, and whether it was started."""
    local.fetch()
    running = local.pid() is not None
    started = time.monotonic()
    if running:
        say(f"stopping the local Neo4j: Community can {what} only a stopped database (it starts again after)")
        local.stop()
    try:
        work()
    finally:
        if running:
            _start(local, say)
    return time.monotonic() - started, running


def _admin(local: LocalNeo4j, *arguments: str) -> None:
    """Run Neo4j's admin tool on the local home; a failure raises its last line."""
    done = subprocess.run(  # noqa: S603 - fixed argv, no user text but paths
        [local.java_command(), "-cp", f"{local.lib}/*", ADMIN_TOOL, *arguments],
        capture_output=True, text=True, env=local.java_env(), check=False, umask=PRIVATE_UMASK,
    )  # fmt: skip
    if done.returncode != 0:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise Neo4jRuntimeError(f"neo4j-admin {' '.join(arguments[:2])} failed: {last[0]}")
