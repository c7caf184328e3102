"""`make fuzz`: Schemathesis's own CLI over the live OpenAPI document, every check, all of
its generating phases, with a budget.

It runs what a stranger holding the document would run (and what issue reports quote)::

    schemathesis run <api>/openapi.json --checks all \\
        --phases coverage,fuzzing,stateful --max-examples 25 \\
        --header 'Authorization: Bearer <key>'

against an API started here on a free port, on the local Neo4j (started if none runs, and
stopped afterwards if started here), as a user made for the run and forgotten afterwards,
so whatever is generated lands in that user's data only. It exits with Schemathesis's code:
non-zero on any failure. Arguments are passed on to ``schemathesis run`` (``--seed 7``,
``--include-path-regex /v1/goals``, ``--workers 2``)::

    .venv/bin/python -m tests.support.fuzz [schemathesis options]

The quick form, in ``make test``, is ``tests/integration/core/test_fuzz.py``.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ctxnet.neo4j_server import LocalNeo4j
from graph.core.db import Database
from graph.core.embeddings import embedder_dimension
from graph.core.principals import ApiKeys, Role
from graph.core.schema import migrate
from graph.core.settings import Settings
from graph.core.users import forget_user
from tests.support.servers import running_api

#: Generated cases per operation and phase.
MAX_EXAMPLES = 25
#: Every check Schemathesis has, in every phase that generates requests (not `examples`:
#: the document has none of its own).
RUN = ["--checks", "all", "--phases", "coverage,fuzzing,stateful", "--max-examples", str(MAX_EXAMPLES)]


@contextmanager
def neo4j(settings: Settings) -> Iterator[None]:
    """The Neo4j the API will use: a configured one, the local one if it runs, else the local
    one started here (and stopped afterwards)."""
    local = LocalNeo4j(settings)
    running = local.pid() is not None or local.port_answers(settings.neo4j_bolt_port)
    started = settings.neo4j_uri is None and not running and local.start()
    try:
        yield
    finally:
        if started:
            local.stop()


async def make_user(settings: Settings) -> tuple[str, str]:
    """A fresh user and a person's key for it: ``(user id, secret)``."""
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        await migrate(db, embedder_dimension(settings))
        user = f"fuzz-{uuid.uuid4().hex[:12]}"
        _, secret = await ApiKeys(db).create(user, Role.HUMAN)
        return user, secret
    finally:
        await db.close()


async def forget(settings: Settings, user: str) -> None:
    """Delete everything the run wrote (all of it is the run's user's)."""
    db = Database.from_settings(settings)
    try:
        await forget_user(db, user)
    finally:
        await db.close()


def schemathesis_command(base_url: str, key: str, extra: list[str]) -> list[str]:
    """The ``schemathesis run`` command line of the run, with ``extra`` options after it."""
    binary = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or "schemathesis"
    auth = ["--header", f"Authorization: Bearer {key}"]
    return [binary, "run", f"{base_url}/openapi.json", *RUN, *auth, *extra]


def main(argv: list[str]) -> int:
    """Run the fuzz; return Schemathesis's exit code."""
    settings = Settings()
    with neo4j(settings), tempfile.TemporaryDirectory(prefix="ctxnet-fuzz-") as scratch:
        user, key = asyncio.run(make_user(settings))
        try:
            with running_api(Path(scratch) / "api.log") as api:
                command = schemathesis_command(api.base_url, key, argv)
                shown = " ".join(part if key not in part else part.replace(key, "<key>") for part in command)
                print(f"$ {shown}", flush=True)
                started = time.monotonic()
                # In the scratch directory: anything it keeps (reports, caches) goes with it.
                code = subprocess.run(command, cwd=scratch, check=False).returncode  # noqa: S603
                print(f"schemathesis exited {code} after {time.monotonic() - started:.0f} s", flush=True)
                # The access log says nothing schemathesis did not; warnings and errors may.
                noted = [line for line in api.log().splitlines() if '"level": "INFO"' not in line]
                if code != 0 and noted:
                    print("--- the API's warnings and errors ---", *noted[-40:], sep="\n", flush=True)
        finally:
            asyncio.run(forget(settings, user))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
