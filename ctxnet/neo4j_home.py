"""The local Neo4j's home, everything it needs before it starts: its jars fetched from
Maven Central into ``lib/`` (once), Java 17 or 21 found, its ports checked,
``conf/neo4j.conf`` written from the settings, the initial password set before the first
start, and its files readable by this user only. Everything it writes stays under
``<data_dir>/neo4j``: ``lib/ conf/ data/ logs/ run/ password``.

:class:`~ctxnet.neo4j_server.LocalNeo4j` starts, watches and stops the server in it.
Failures raise :class:`graph.core.errors.Neo4jRuntimeError` with one readable line that
says why and where the log is.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import subprocess
from importlib import resources
from pathlib import Path

from graph.core.browser_guide import api_base_url, guide_url
from graph.core.errors import Neo4jRuntimeError
from graph.core.settings import Settings

ADMIN_TOOL = "org.neo4j.cli.AdminTool"
#: What Neo4j and its admin tool create is readable by this user only.
PRIVATE_UMASK = 0o077


def new_password() -> str:
    """A random password for a first start. Never one that begins with ``-``: Neo4j's admin
    tool would read it as an option and refuse to set it (a 1-in-64 failure of a fresh
    clone's first start, seen once in CI)."""
    while True:
        password = secrets.token_urlsafe(24)
        if not password.startswith("-"):
            return password


class Neo4jHome:
    """The folders, files and checks of the project's own Neo4j server."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.home = settings.neo4j_home
        self.lib = settings.neo4j_dist_dir or self.home / "lib"
        self.conf = self.home / "conf"
        self.data = self.home / "data"
        self.logs = self.home / "logs"
        self.run = self.home / "run"
        self.pid_file = self.run / "ctxnet-neo4j.pid"
        self.console_log = self.logs / "console.log"
        self.user_log = self.logs / "neo4j.log"

    # --- fetching -------------------------------------------------------------------
    def _stamp(self) -> str:
        return f"neo4j={self.settings.neo4j_version} browser={self.settings.neo4j_browser_version}"

    def is_fetched(self) -> bool:
        """True when lib/ holds the jars of the configured versions."""
        stamp = self.lib / ".complete"
        return stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == self._stamp()

    def fetch(self) -> bool:
        """Resolve the server jars with Maven into lib/; returns False when already there."""
        if self.is_fetched():
            return False
        mvn = shutil.which("mvn")
        if mvn is None:
            raise Neo4jRuntimeError(
                "Maven (mvn) is not installed; it is needed once to fetch Neo4j from Maven Central"
            )
        self.logs.mkdir(parents=True, exist_ok=True)
        staging = self.lib.with_name(self.lib.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        fetch_log = self.logs / "fetch.log"
        with resources.as_file(resources.files("ctxnet") / "pom.xml") as pom:
            command = [
                mvn, "-B", "-f", str(pom),
                "dependency:copy-dependencies",
                f"-DoutputDirectory={staging}",
                "-DincludeScope=runtime",
                f"-Dneo4j.version={self.settings.neo4j_version}",
                f"-Dneo4j.browser.version={self.settings.neo4j_browser_version}",
            ]  # fmt: skip
            with fetch_log.open("w", encoding="utf-8") as log:
                done = subprocess.run(  # noqa: S603 - fixed argv, no shell
                    command, stdout=log, stderr=subprocess.STDOUT, check=False
                )
        if done.returncode != 0:
            text = fetch_log.read_text(encoding="utf-8", errors="replace")
            if re.search(
                r"UnknownHost|Connection refused|Could not transfer|timed out|Network is unreachable", text
            ):
                why = "Maven could not reach Maven Central"
            elif "Could not resolve dependencies" in text or "could not be resolved" in text:
                why = f"Maven Central has no Neo4j {self.settings.neo4j_version} (or its Browser)"
            else:
                why = f"mvn exited with {done.returncode}"
            raise Neo4jRuntimeError(f"fetching Neo4j failed: {why}; see {fetch_log}")
        shutil.rmtree(self.lib, ignore_errors=True)
        staging.rename(self.lib)
        (self.lib / ".complete").write_text(self._stamp() + "\n", encoding="utf-8")
        return True

    # --- pre-flight checks ----------------------------------------------------------
    @staticmethod
    def java_command() -> str:
        """The java executable (JAVA_HOME first), checked to be Java 17 or 21."""
        java_home = os.environ.get("JAVA_HOME")
        java = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
        if not java or not Path(java).exists():
            raise Neo4jRuntimeError("Java is not installed (Neo4j 5.26 needs Java 17 or 21)")
        out = subprocess.run(  # noqa: S603 - fixed argv
            [java, "-version"], capture_output=True, text=True, check=False
        ).stderr
        match = re.search(r'version "(\d+)', out)
        major = int(match.group(1)) if match else 0
        if major not in (17, 21):
            raise Neo4jRuntimeError(
                f"Neo4j 5.26 needs Java 17 or 21, found {major or 'an unknown version'} at {java}; "
                "set JAVA_HOME"
            )
        return java

    @staticmethod
    def port_is_free(port: int) -> bool:
        """True when nothing listens on 127.0.0.1:port."""
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                return False
        return True

    @staticmethod
    def port_answers(port: int, timeout: float = 0.5) -> bool:
        """True when a TCP connection to 127.0.0.1:port succeeds."""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=timeout):
                return True
        except OSError:
            return False

    # --- configuration --------------------------------------------------------------
    def write_config(self) -> Path:
        """(Re)write conf/neo4j.conf from the settings; returns its path."""
        s = self.settings
        for folder in (
            self.conf,
            self.data,
            self.logs,
            self.run,
            self.home / "plugins",
            self.home / "import",
        ):
            folder.mkdir(parents=True, exist_ok=True)
        lines = [
            "# Written by `ctxnet neo4j start` from CTXNET_* settings; edits are overwritten.",
            "server.default_listen_address=127.0.0.1",
            "server.default_advertised_address=127.0.0.1",
            f"server.bolt.listen_address=127.0.0.1:{s.neo4j_bolt_port}",
            f"server.bolt.advertised_address=127.0.0.1:{s.neo4j_bolt_port}",
            f"server.http.listen_address=127.0.0.1:{s.neo4j_http_port}",
            f"server.http.advertised_address=127.0.0.1:{s.neo4j_http_port}",
            "server.https.enabled=false",
            f"server.memory.heap.initial_size={s.neo4j_heap}",
            f"server.memory.heap.max_size={s.neo4j_heap}",
            f"server.memory.pagecache.size={s.neo4j_pagecache}",
            "dbms.security.auth_enabled=true",
            "dbms.usage_report.enabled=false",
            # A transaction waits this long for a bookmark it was given (after a restore, one
            # of before may never come: the API then starts its bookmarks anew).
            "db.transaction.bookmark_ready_timeout=5s",
            "client.allow_telemetry=false",
            # Browser plays remote guides only from these hosts; the API serves ours.
            "browser.remote_content_hostname_whitelist=localhost,127.0.0.1,guides.neo4j.com",
            # ... and shows it once connected, instead of a blank prompt.
            f"browser.post_connect_cmd=play {guide_url(api_base_url(s))}",
            "db.tx_log.rotation.retention_policy=1G size",
            # Vector indexes are Lucene HNSW segments, searched one by one. Neo4j merges them
            # only once 50 of a size pile up (and never while building an index), so a search
            # at 100k notes visited ~25 segments: 12 ms, against 3 ms with them merged.
            f"internal.dbms.index.vector.standard_merge_factor={s.neo4j_vector_merge_factor}",
            f"internal.dbms.index.vector.population_merge_factor={s.neo4j_vector_merge_factor}",
            # Neo4j commits its Lucene indexes at checkpoints (every 15 minutes by default).
            # Until the next one, what was written since is searched about twice as slowly:
            # a search after loading 10k notes took 23 ms, and 11 ms with this at 10s.
            f"db.checkpoint.interval.time={s.neo4j_checkpoint_interval}",
            f"server.directories.data={self.data}",
            f"server.directories.logs={self.logs}",
            f"server.directories.run={self.run}",
            f"server.directories.plugins={self.home / 'plugins'}",
            f"server.directories.import={self.home / 'import'}",
            f"server.directories.lib={self.lib}",
        ]
        path = self.conf / "neo4j.conf"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def java_env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["NEO4J_HOME"] = str(self.home)
        env["NEO4J_CONF"] = str(self.conf)
        return env

    def ensure_password(self, java: str) -> None:
        """Before the very first start, set the initial password and keep it in ``password``.

        The password reaches Neo4j's admin tool in a file only this user can read (its
        ``@file`` argument), never on a command line that every process could see.
        """
        if (self.data / "dbms" / "auth.ini").exists():
            return
        password = self.settings.resolved_neo4j_password() or new_password()
        argument_file = self.run / "initial-password.args"
        fd = os.open(argument_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            quoted = password.replace("\\", "\\\\").replace('"', '\\"')
            handle.write(f'"{quoted}"\n')
        try:
            done = subprocess.run(  # noqa: S603 - fixed argv; the password is in the file
                [java, "-cp", f"{self.lib}/*", ADMIN_TOOL, "dbms", "set-initial-password",
                 f"@{argument_file}"],
                capture_output=True, text=True, env=self.java_env(), check=False, umask=PRIVATE_UMASK,
            )  # fmt: skip
        finally:
            argument_file.unlink(missing_ok=True)
        if done.returncode != 0:
            last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise Neo4jRuntimeError(f"setting the initial Neo4j password failed: {last[0]}")
        if self.settings.neo4j_password is None:
            self.local_password_file_write(password)

    def make_private(self) -> None:
        """Everything the server writes (store, logs, config, the password) readable by this
        user only: folders 700, files 600 (the fetched jars stay as they are)."""
        self.home.chmod(0o700)
        for top in (self.conf, self.data, self.logs, self.run, self.home / "plugins", self.home / "import"):
            if not top.exists():
                continue
            top.chmod(0o700)
            for folder, folders, files in os.walk(top):
                for name in folders:
                    os.chmod(os.path.join(folder, name), 0o700)
                for name in files:
                    path = os.path.join(folder, name)
                    if not os.path.islink(path):
                        os.chmod(path, 0o600)

    def local_password_file_write(self, password: str) -> None:
        """Keep the generated password readable by this user only."""
        path = self.settings.local_password_file
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(password + "\n")
