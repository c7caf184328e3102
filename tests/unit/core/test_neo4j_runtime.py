"""The local Neo4j runtime's configuration and its one-line failure messages."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from ctxnet.neo4j_server import LocalNeo4j
from graph.core.errors import Neo4jRuntimeError
from graph.core.settings import Settings


def _settings(tmp_path: Path, **overrides: object) -> Settings:
    return Settings(data_dir=tmp_path, **overrides)  # type: ignore[arg-type]


def test_config_carries_ports_memory_and_auth(tmp_path: Path) -> None:
    local = LocalNeo4j(_settings(tmp_path, neo4j_bolt_port=17001, neo4j_http_port=17002, neo4j_heap="2g"))
    conf = local.write_config().read_text()
    assert "server.bolt.listen_address=127.0.0.1:17001" in conf
    assert "server.http.listen_address=127.0.0.1:17002" in conf
    assert "server.memory.heap.max_size=2g" in conf
    assert "server.memory.pagecache.size=512m" in conf
    assert "dbms.security.auth_enabled=true" in conf
    assert f"server.directories.data={tmp_path / 'neo4j' / 'data'}" in conf


def test_config_merges_vector_index_segments_sooner_than_neo4j_does(tmp_path: Path) -> None:
    conf = LocalNeo4j(_settings(tmp_path)).write_config().read_text()
    assert "internal.dbms.index.vector.standard_merge_factor=10" in conf
    assert "internal.dbms.index.vector.population_merge_factor=10" in conf
    tuned = LocalNeo4j(_settings(tmp_path, neo4j_vector_merge_factor=4)).write_config().read_text()
    assert "internal.dbms.index.vector.standard_merge_factor=4" in tuned


def test_config_checkpoints_often_so_new_index_segments_are_committed(tmp_path: Path) -> None:
    conf = LocalNeo4j(_settings(tmp_path)).write_config().read_text()
    assert "db.checkpoint.interval.time=10s" in conf
    tuned = LocalNeo4j(_settings(tmp_path, neo4j_checkpoint_interval="2m")).write_config().read_text()
    assert "db.checkpoint.interval.time=2m" in tuned


def test_missing_java_is_reported_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-java-here"))
    with pytest.raises(Neo4jRuntimeError, match="Java is not installed"):
        LocalNeo4j(_settings(tmp_path)).start()


def test_missing_maven_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(Neo4jRuntimeError, match="Maven"):
        LocalNeo4j(_settings(tmp_path)).fetch()


def test_a_taken_port_is_reported_before_starting(tmp_path: Path) -> None:
    dist = Settings().neo4j_dist_dir or Settings().neo4j_home / "lib"
    if not (dist / ".complete").is_file():
        pytest.fail("run `ctxnet neo4j fetch` (make setup) before the unit tests")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        local = LocalNeo4j(_settings(tmp_path, neo4j_bolt_port=port, neo4j_dist_dir=dist))
        with pytest.raises(Neo4jRuntimeError, match=f"port {port} \\(Bolt\\) is taken"):
            local.start()
    assert local.pid() is None


def test_status_of_a_never_started_runtime(tmp_path: Path) -> None:
    status = LocalNeo4j(_settings(tmp_path)).status()
    assert not status.running
    assert "stopped" in status.describe()


def test_unreachable_maven_central_is_reported_with_the_log(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    mvn = fake_bin / "mvn"
    mvn.write_text(
        "#!/bin/sh\n"
        "echo '[ERROR] Could not transfer artifact org.neo4j:neo4j:pom:5.26.30 from/to central: "
        "repo.maven.apache.org: UnknownHostException'\n"
        "exit 1\n"
    )
    mvn.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}:/usr/bin:/bin")
    local = LocalNeo4j(_settings(tmp_path / "data"))
    with pytest.raises(Neo4jRuntimeError) as caught:
        local.fetch()
    assert "Maven could not reach Maven Central" in caught.value.message
    assert str(local.logs / "fetch.log") in caught.value.message
    assert not local.is_fetched()


def test_the_initial_password_never_reaches_a_command_line(tmp_path: Path) -> None:
    # A stand-in for `java` that records its arguments and the file an `@file` argument names,
    # and leaves what the real admin tool would (data/dbms/auth.ini).
    record = tmp_path / "record"
    java = tmp_path / "java"
    java.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > {record}/argv\n'
        'for a in "$@"; do case "$a" in @*)\n'
        f'  cat "${{a#@}}" > {record}/file; stat -c %a "${{a#@}}" > {record}/mode;;\n'
        "esac; done\n"
        'mkdir -p "$NEO4J_HOME/data/dbms" && touch "$NEO4J_HOME/data/dbms/auth.ini"\n'
    )
    java.chmod(0o755)
    record.mkdir()
    local = LocalNeo4j(_settings(tmp_path / "data", neo4j_password='pa ss"wo\\rd'))
    local.write_config()
    local.ensure_password(str(java))
    argv = (record / "argv").read_text()
    assert "pa ss" not in argv and "set-initial-password" in argv
    assert (record / "file").read_text() == '"pa ss\\"wo\\\\rd"\n'  # quoted for picocli's @file
    assert (record / "mode").read_text().strip() == "600"
    assert not list(local.run.glob("*.args")), "the argument file is removed afterwards"


def test_a_pid_file_naming_another_checkouts_server_is_not_ours(tmp_path: Path) -> None:
    import subprocess
    import sys

    local = LocalNeo4j(_settings(tmp_path))
    local.run.mkdir(parents=True)
    # A live process whose command line has the entry point but another home.
    other = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)", "org.neo4j.server.CommunityEntryPoint",
         f"--home-dir={tmp_path / 'elsewhere'}"]
    )  # fmt: skip
    try:
        local.pid_file.write_text(f"{other.pid}\n")
        assert local.pid() is None
    finally:
        other.kill()
        other.wait()


def test_a_server_that_dies_under_serve_is_reaped_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import subprocess

    local = LocalNeo4j(_settings(tmp_path))
    local._process = subprocess.Popen(["sh", "-c", "exit 3"])
    watcher = local.watch()
    assert watcher is not None
    watcher.join(timeout=10)
    assert local._process.returncode == 3
    assert not Path(f"/proc/{local._process.pid}").exists(), "reaped, not a zombie"
    assert any("exited with code 3" in r.getMessage() for r in caplog.records)


def test_a_generated_password_never_reads_as_an_option(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neo4j's admin tool takes a password that begins with '-' for an option and refuses it."""
    from ctxnet import neo4j_home as neo4j_server

    drawn = iter(["-leading-dash", "_fine-one"])
    monkeypatch.setattr(neo4j_server.secrets, "token_urlsafe", lambda _: next(drawn))
    assert neo4j_server.new_password() == "_fine-one"
    monkeypatch.undo()
    assert not any(neo4j_server.new_password().startswith("-") for _ in range(2_000))
