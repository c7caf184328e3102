"""Real processes for integration tests: the API under uvicorn, reached over HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

_handed_out: set[int] = set()


def free_port() -> int:
    """A TCP port nothing listens on right now, never the same one twice in a process."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port not in _handed_out:
            _handed_out.add(port)
            return port


class ApiProcess:
    """``uvicorn api.app:create_app`` in a child process, configured by CTXNET_* variables."""

    def __init__(
        self, log_path: Path, env: dict[str, str] | None = None, cwd: Path | None = None, workers: int = 1
    ) -> None:
        self.port = free_port()
        #: uvicorn worker processes behind the one port.
        self.workers = workers
        self.log_path = log_path
        self.env = {**os.environ, **(env or {})}
        #: Where it runs; its ``api`` and ``graph`` packages come from there (another checkout).
        self.cwd = cwd
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """Where the API answers."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ApiProcess:
        """Launch the process (does not wait)."""
        command = [
            sys.executable, "-m", "uvicorn", "api.app:create_app", "--factory",
            "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning",
            "--workers", str(self.workers),
        ]  # fmt: skip
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env=self.env, cwd=self.cwd
            )
        return self

    def wait_ready(self, timeout: float = 90.0) -> None:
        """Block until /ready answers 200; fail with the log if the process dies."""
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"API exited with {self.process.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.base_url}/ready", timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"API not ready after {timeout}s:\n{self.log()}")

    def exit_code(self, timeout: float) -> int:
        """Wait for the process to end by itself (a start-up it refused) and return its code;
        it is stopped in any case, also when it does not end in time."""
        assert self.process is not None
        try:
            return self.process.wait(timeout=timeout)
        finally:
            self.stop()

    def log(self) -> str:
        """Everything the process printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        """Terminate and reap the process."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextmanager
def running_api(log_path: Path, env: dict[str, str] | None = None) -> Iterator[ApiProcess]:
    """An API process with these settings, ready, for as long as the block runs."""
    process = ApiProcess(log_path, env).start()
    try:
        process.wait_ready()
        yield process
    finally:
        process.stop()
