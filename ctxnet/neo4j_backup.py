"""Whole-database backup of the local runtime, on Neo4j's own ``neo4j-admin database dump``
and ``database load`` (``ctxnet db backup`` / ``ctxnet db restore``).

Neo4j Community dumps and loads only a database that is not running, so both stop the local
server first and start it again afterwards if it was running (an API process waits: it
answers 503 meanwhile and recovers by itself, see ``docs/operations.md``). A stop is Neo4j's
clean shutdown: every transaction committed before it is in the store it checkpoints, so a
backup holds every write acknowledged before it began; a write that arrives while the server
is down is refused (503), never acknowledged and lost. The dump is one file, readable by
this user only. A restore replaces the whole database (every user) with the dump's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ctxnet.neo4j_home import ADMIN_TOOL, PRIVATE_UMASK
from ctxnet.neo4j_server import LocalNeo4j
from graph.core.errors import Neo4jRuntimeError

#: The database the service keeps everything in.
DATABASE = "neo4j"


@dataclass(frozen=True)
class Outcome:
    """What a backup or restore did: the dump file, its size, how long the database was
    offline, and whether the server was started again."""

    path: Path
    size: int
    offline_seconds: float
    restarted: bool


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

        def dump() -> None:
            _admin(local, "database", "dump", DATABASE, f"--to-path={folder}", "--overwrite-destination=true")

        offline, restarted = _offline(local, dump, "dump", say)
        os.replace(Path(folder) / f"{DATABASE}.dump", target)
    target.chmod(0o600)
    return Outcome(target, target.stat().st_size, offline, restarted)


def restore(local: LocalNeo4j, source: Path, say: Callable[[str], None] = print) -> Outcome:
    """Replace the local database with the dump in ``source``."""
    source = source.resolve()
    if not source.is_file():
        raise Neo4jRuntimeError(f"no dump at {source}")
    with tempfile.TemporaryDirectory(prefix="ctxnet-load-") as folder:
        shutil.copyfile(source, Path(folder) / f"{DATABASE}.dump")  # load reads <database>.dump

        def load() -> None:
            _admin(
                local, "database", "load", DATABASE, f"--from-path={folder}", "--overwrite-destination=true"
            )

        offline, restarted = _offline(local, load, "load", say)
    return Outcome(source, source.stat().st_size, offline, restarted)


def _offline(
    local: LocalNeo4j, work: Callable[[], None], what: str, say: Callable[[str], None]
) -> tuple[float, bool]:
    """Run ``work`` with the local server stopped (Community's rule), then start it again if
    it was running; seconds offline, and whether it was started again."""
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
            say("starting the local Neo4j again")
            local.start()
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
