"""``make test``: the whole suite in two parts, so that it takes minutes, not a quarter hour.

1. Every test not marked ``serial`` (the unit tests and the integration tests, each of which
   works as its own fresh user) runs in pytest-xdist workers side by side, ``--workers`` of
   them (2 by default: much of a test's time is spent waiting on the API and Neo4j, so two
   workers keep two cores busy where one left them partly idle; a third only added start-up
   costs on 2 cores). Each worker has its own API processes; all share the one Neo4j.
2. Then the tests marked ``serial`` (a Neo4j of their own, killed servers, a browser, a
   timing: see ``SERIAL_FIXTURES`` in tests/integration/conftest.py) run one after another,
   with the machine to themselves.

Neo4j is started once before the first part if none runs, and stopped after the second
(the fixtures of each part find it running and leave it be). Arguments after the options
go to both pytest runs, e.g. ``python -m tests.support.suite --workers 3 -x``. The exit
code is the first part's failure, else the second's (no tests selected in one part is fine).

Plain ``pytest`` still runs everything in one process, one test at a time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ctxnet.neo4j_server import LocalNeo4j
from graph.core.settings import Settings

#: Where the first part's collection lists the files that hold serial tests (see
#: ``pytest_collection_modifyitems`` in tests/integration/conftest.py): the second part
#: collects only those.
SERIAL_FILES_ENV = "CONTEXT_NETWORK_SERIAL_FILES"
#: pytest's exit code when a selection holds no tests (a part may be empty for some arguments).
NO_TESTS = 5


def run_part(title: str, args: list[str], env: dict[str, str] | None = None) -> int:
    """One pytest run in a child process; its exit code."""
    print(f"\n=== {title}: pytest {' '.join(args)}", flush=True)
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args], env={**os.environ, **(env or {})}, check=False
    ).returncode


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.suite", description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers for the first part")
    options, pytest_args = parser.parse_known_args(argv)
    settings = Settings()
    local = LocalNeo4j(settings)
    started = False
    free = not local.port_answers(settings.neo4j_bolt_port)
    if settings.neo4j_uri is None and local.pid() is None and free:
        started = local.start()  # else ours runs already, or the fixtures say what is on the port
    try:
        with tempfile.TemporaryDirectory() as folder:
            listing = Path(folder) / "serial-files"
            parallel = run_part(
                f"side by side in {options.workers} workers",
                ["-n", str(options.workers), "--dist", "worksteal", "-m", "not serial", *pytest_args],
                {SERIAL_FILES_ENV: str(listing)},
            )
            # Only the files that hold serial tests: collecting all of them again costs ~10 s.
            files = listing.read_text(encoding="utf-8").split() if listing.exists() else []
        alone = NO_TESTS
        if files:
            alone = run_part(
                "alone, one after another", ["-p", "no:xdist", "-m", "serial", *pytest_args, *files]
            )
    finally:
        if started:
            local.stop()
    if parallel == alone == NO_TESTS:
        return NO_TESTS
    return next((code for code in (parallel, alone) if code not in (0, NO_TESTS)), 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
