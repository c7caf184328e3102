"""The local Neo4j Community server that the project fetches from Maven Central and runs.

Our build and CI machines have Java 17 and Maven but no Docker engine, so the project
runs Neo4j itself: ``fetch`` resolves ``org.neo4j:neo4j`` and ``org.neo4j.client:neo4j-browser``
into ``<data_dir>/neo4j/lib`` (once; later starts download nothing), ``start`` writes
``conf/neo4j.conf``, sets the generated password before the first start, and launches
``org.neo4j.server.CommunityEntryPoint`` as a detached process. Everything it writes
stays under ``<data_dir>/neo4j``: ``lib/ conf/ data/ logs/ run/ password``.

What happens before a start (fetching, checks, configuration, the password) is
:class:`~ctxnet.neo4j_home.Neo4jHome`'s; this module runs the process: start (one at a
time, under a lock), watch, wait for Bolt, status and stop.

Failures raise :class:`graph.core.errors.Neo4jRuntimeError` with one readable line that
says why and where the log is.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ctxnet.neo4j_home import PRIVATE_UMASK, Neo4jHome
from graph.core.errors import Neo4jRuntimeError
from graph.core.settings import Settings

log = logging.getLogger("ctxnet.neo4j")

ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
#: Servers this process started, by pid, whichever LocalNeo4j started them: stopping one
#: through another object (two starts raced, one won) still waits on its Popen, which would
#: otherwise be reaped behind its back and warn "still running" when collected.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}

#: What Neo4j's own launcher adds from ``server.jvm.additional`` in the stock neo4j.conf;
#: without the --add-opens flags the page cache and Netty cannot reach JDK internals.
JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
)


@dataclass(frozen=True)
class Neo4jStatus:
    """What ``ctxnet neo4j status`` reports."""

    running: bool
    pid: int | None
    bolt_open: bool
    bolt_url: str
    browser_url: str
    home: Path

    def describe(self) -> str:
        """One line for people."""
        if not self.running:
            return f"stopped (home {self.home})"
        state = "answering" if self.bolt_open else "starting"
        return f"running, pid {self.pid}, Bolt {self.bolt_url} {state}, Browser {self.browser_url}"


class LocalNeo4j(Neo4jHome):
    """Fetch, configure, start, stop and watch the project's own Neo4j server."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._process: subprocess.Popen[bytes] | None = None  # kept so it can be reaped
        self._stopping = False

    # --- URLs -------------------------------------------------------------------------
    @property
    def bolt_url(self) -> str:
        """The Bolt address the server listens on."""
        return f"bolt://127.0.0.1:{self.settings.neo4j_bolt_port}"

    @property
    def browser_url(self) -> str:
        """Where Neo4j Browser is served."""
        return f"http://127.0.0.1:{self.settings.neo4j_http_port}/browser/"

    # --- process control ---------------------------------------------------------------
    def pid(self) -> int | None:
        """The server's pid if our pid file names a live Neo4j process."""
        try:
            pid = int(self.pid_file.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return None
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return None
        # This data directory's server: another checkout's Neo4j (or a recycled pid) is not ours.
        ours = ENTRY_POINT.encode() in cmdline and f"--home-dir={self.home}".encode() in cmdline.split(b"\0")
        return pid if ours else None

    def status(self) -> Neo4jStatus:
        """Is it running, and does Bolt answer?"""
        pid = self.pid()
        return Neo4jStatus(
            running=pid is not None,
            pid=pid,
            bolt_open=pid is not None and self.port_answers(self.settings.neo4j_bolt_port),
            bolt_url=self.bolt_url,
            browser_url=self.browser_url,
            home=self.home,
        )

    def start(self, *, wait: bool = True) -> bool:
        """Start the server; returns False if it was already running.

        Two starts at once (two terminals, a test run beside ``make run``) take turns on a
        lock file: the second finds the first's server and waits for it instead of starting
        another on the same store.
        """
        self.run.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.run / "start.lock", os.O_RDWR | os.O_CREAT, 0o600)
        with os.fdopen(fd, "r+b") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                started = self._start_locked()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        if wait:
            self.wait_for_bolt(process=self._process if started else None)
        return started

    def _start_locked(self) -> bool:
        if self.pid() is not None:
            return False
        if self._process is not None and self._process.poll() is not None:
            self._process = None  # the server we started before died (now reaped): start anew
        java = self.java_command()
        self.fetch()
        for name, port in (("Bolt", self.settings.neo4j_bolt_port), ("HTTP", self.settings.neo4j_http_port)):
            if not self.port_is_free(port):
                raise Neo4jRuntimeError(
                    f"port {port} ({name}) is taken by another process; stop it or set "
                    f"CTXNET_NEO4J_{name.upper()}_PORT"
                )
        self.write_config()
        self.make_private()
        self.ensure_password(java)
        command = [
            java,
            f"-Xms{self.settings.neo4j_heap}",
            f"-Xmx{self.settings.neo4j_heap}",
            *JVM_FLAGS,
            "-cp", f"{self.home / 'plugins'}/*:{self.conf}/*:{self.lib}/*",
            ENTRY_POINT,
            f"--home-dir={self.home}",
            f"--config-dir={self.conf}",
        ]  # fmt: skip
        fd = os.open(self.console_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "ab") as console:
            process = subprocess.Popen(  # noqa: S603 - fixed argv
                command,
                stdin=subprocess.DEVNULL,
                stdout=console,
                stderr=subprocess.STDOUT,
                env=self.java_env(),
                cwd=self.home,
                start_new_session=True,  # Ctrl-C in the terminal must not kill it mid-write
                umask=PRIVATE_UMASK,  # store files and logs readable by this user only
            )
        self._process = process
        _CHILDREN[process.pid] = process
        fd = os.open(self.pid_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(f"{process.pid}\n")
        # Until the child has exec'd Java, its command line is still this process's, and a
        # start waiting on the lock would not recognise the server and start a second one.
        deadline = time.monotonic() + 10
        while self.pid() != process.pid and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        return True

    def watch(self) -> threading.Thread | None:
        """Reap the server this object started as soon as it exits, and log that it died, so it
        never lingers as a zombie under a long-running ``ctxnet serve``. No-op otherwise."""
        process = self._process
        if process is None:
            return None

        def wait() -> None:
            code = process.wait()
            if not self._stopping:
                log.error(
                    "Neo4j (pid %d) exited with code %s; see %s. Restart it with `ctxnet neo4j start`",
                    process.pid,
                    code,
                    self.console_log,
                )

        watcher = threading.Thread(target=wait, name="neo4j-watch", daemon=True)
        watcher.start()
        return watcher

    def wait_for_bolt(
        self, timeout: float | None = None, process: subprocess.Popen[bytes] | None = None
    ) -> None:
        """Block until Bolt and HTTP (Browser) accept connections; fail early if the server dies."""
        deadline = time.monotonic() + (timeout or self.settings.neo4j_start_timeout_seconds)
        while time.monotonic() < deadline:
            if self.port_answers(self.settings.neo4j_bolt_port) and self.port_answers(
                self.settings.neo4j_http_port
            ):
                return
            if process is not None and process.poll() is not None:
                raise Neo4jRuntimeError(
                    f"Neo4j exited with code {process.returncode} during start: "
                    f"{self._last_error_line()}; see {self.console_log} and {self.user_log}"
                )
            if process is None and self.pid() is None:
                raise Neo4jRuntimeError(f"Neo4j is not running; see {self.user_log}")
            time.sleep(0.25)
        raise Neo4jRuntimeError(
            f"Bolt on port {self.settings.neo4j_bolt_port} did not answer in time; see {self.user_log}"
        )

    def _last_error_line(self) -> str:
        for log in (self.console_log, self.user_log):
            if log.is_file():
                lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
                errors = [line for line in lines if "ERROR" in line or "Exception" in line]
                if errors or lines:
                    return (errors or lines)[-1].strip()[:300]
        return "no log output"

    def stop(self, timeout: float = 60.0) -> bool:
        """Shut the server down cleanly (SIGTERM, then SIGKILL after ``timeout``)."""
        self._stopping = True
        pid = self.pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._alive(pid):
            time.sleep(0.2)
        if self._alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.pid_file.unlink(missing_ok=True)
        child = _CHILDREN.pop(pid, None)
        if child is not None:
            child.wait(timeout=5)  # already reaped by _alive: the Popen learns it was (ECHILD)
        if self._process is not None and self._process.pid == pid:
            self._process = None
        return True

    @staticmethod
    def _alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        # A zombie child of ours still "exists" until reaped.
        with contextlib.suppress(ChildProcessError):
            reaped, _ = os.waitpid(pid, os.WNOHANG)
            if reaped == pid:
                return False
        stat = Path(f"/proc/{pid}/stat")
        try:
            return stat.read_text().split()[2] != "Z"
        except (OSError, IndexError):
            return False
