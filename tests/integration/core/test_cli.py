"""The ctxnet command: keys made on the command line open the API; revoked ones do not."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

from graph.core.db import Database
from graph.core.users import forget_user
from tests.integration.conftest import MakeCaller
from tests.support.servers import ApiProcess, free_port


def ctxnet(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxnet", *args], capture_output=True, text=True, timeout=120
    )


async def test_keys_create_list_revoke(api: ApiProcess, db: Database) -> None:
    user = f"cli-{uuid.uuid4().hex[:10]}"
    try:
        created = ctxnet("keys", "create", "--user", user, "--role", "agent", "--agent", "planner")
        assert created.returncode == 0, created.stderr
        key = created.stdout.strip().splitlines()[-1]
        assert key.startswith("ctxn_")
        me = httpx.get(f"{api.base_url}/v1/me", headers={"Authorization": f"Bearer {key}"})
        assert me.json()["userId"] == user
        assert me.json()["agentId"] == "planner"

        listed = ctxnet("keys", "list", "--user", user)
        assert listed.returncode == 0
        assert key not in listed.stdout
        key_id = listed.stdout.split()[0]
        assert key_id == me.json()["keyId"]

        revoked = ctxnet("keys", "revoke", key_id)
        assert revoked.returncode == 0, revoked.stderr
        again = httpx.get(f"{api.base_url}/v1/me", headers={"Authorization": f"Bearer {key}"})
        assert again.status_code == 401
        assert "revoked" in ctxnet("keys", "list", "--user", user, "--revoked").stdout
    finally:
        await forget_user(db, user)


async def test_a_key_made_with_a_scope_sees_only_that_part(api: ApiProcess, db: Database) -> None:
    user = f"cli-{uuid.uuid4().hex[:10]}"
    try:
        created = ctxnet(
            "keys", "create", "--user", user, "--role", "agent", "--agent", "helper",
            "--scope", "tag:billing", "--scope", "id:n-2,tag:invoices",
        )  # fmt: skip
        assert created.returncode == 0, created.stderr
        assert "scope tag:billing,tag:invoices,id:n-2" in created.stdout
        headers = {"Authorization": f"Bearer {created.stdout.strip().splitlines()[-1]}"}
        me = httpx.get(f"{api.base_url}/v1/me", headers=headers).json()
        assert me["scope"] == {"ids": ["n-2"], "tags": ["billing", "invoices"]}
        assert "scope=tag:billing,tag:invoices,id:n-2" in ctxnet("keys", "list", "--user", user).stdout
        bad = ctxnet("keys", "create", "--user", user, "--role", "agent", "--scope", "owner:me")
        assert bad.returncode != 0 and "tag:<tag> or id:<note id>" in bad.stderr
    finally:
        await forget_user(db, user)


def test_bad_role_is_refused(neo4j_server: None) -> None:
    done = ctxnet("keys", "create", "--user", "x", "--role", "admin")
    assert done.returncode != 0
    assert "human" in done.stderr and "agent" in done.stderr


def test_bad_user_id_is_refused_in_one_line(neo4j_server: None) -> None:
    done = ctxnet("keys", "create", "--user", "no spaces allowed", "--role", "human")
    assert done.returncode == 1
    assert done.stderr.startswith("error: user must be")


def test_neo4j_status_says_running(neo4j_server: None) -> None:
    done = ctxnet("neo4j", "status")
    assert done.returncode == 0
    assert "answering" in done.stdout


def test_db_migrate_is_idempotent(neo4j_server: None) -> None:
    for _ in range(2):
        done = ctxnet("db", "migrate")
        assert done.returncode == 0, done.stderr
        assert "schema up to date" in done.stdout


async def test_the_feedback_loop_runs_from_the_command_line(db: Database, api: ApiProcess) -> None:
    from graph.core.principals import ApiKeys, Role

    user = f"cli-{uuid.uuid4().hex[:10]}"
    _, key = await ApiKeys(db).create(user, Role.HUMAN)
    headers = {"Authorization": f"Bearer {key}"}
    try:
        async with httpx.AsyncClient(base_url=api.base_url, headers=headers) as http:
            await http.post("/v1/threads", json={"id": "t", "topic": "Editors"})
            message = {"id": "m1", "role": "user", "content": "I prefer dark mode in every editor."}
            await http.post("/v1/threads/t/messages", json={"messages": [message]})
        done = ctxnet("threads", "feedback-loop", "--user", user, "--thread", "t")
        assert done.returncode == 0, done.stderr
        assert (
            done.stdout.strip().splitlines()[-1] == "extracted=1  valid=1  created=1  updated=0  unchanged=0"
        )
        again = ctxnet("threads", "consolidate", "--user", user, "--thread", "t")
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip().splitlines()[-1] == "consolidated=0  created=0  updated=0"  # 0.75 < 0.8
        missing = ctxnet("threads", "extract", "--user", user, "--thread", "nope")
        assert missing.returncode == 1 and "no thread" in missing.stderr
    finally:
        await forget_user(db, user)


async def test_serve_runs_several_workers_whose_metrics_add_up(
    neo4j_server: None, make_caller: MakeCaller, tmp_path: Path
) -> None:
    """`ctxnet serve --workers 2`: both processes answer on one port, a scrape of either
    counts the requests of both, and Ctrl-C (SIGINT) stops them all."""
    port = free_port()
    env = {**os.environ, "CTXNET_API_PORT": str(port)}
    log = (tmp_path / "serve.log").open("wb")
    serve = subprocess.Popen(
        [sys.executable, "-m", "ctxnet", "serve", "--workers", "2", "--no-dev-key"],
        stdout=log, stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert serve.poll() is None, (tmp_path / "serve.log").read_text()
            assert time.monotonic() < deadline, "ctxnet serve --workers 2 never became ready"
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{base}/ready", timeout=5).status_code == 200:
                    break
            time.sleep(0.5)
        alice = await make_caller()
        for _ in range(20):  # a connection each: either worker may take it
            answer = httpx.get(f"{base}/v1/me", headers={"Authorization": f"Bearer {alice.key}"})
            assert answer.status_code == 200

        def counted() -> str:
            scrape = httpx.get(f"{base}/metrics").text
            return next(
                line
                for line in scrape.splitlines()
                if line.startswith("ctxnet_http_requests_total") and 'route="/v1/me"' in line
            )

        # A request is counted once its answer's last byte is sent, so the client may read
        # the answer a moment before the count moves: wait for it, briefly.
        deadline = time.monotonic() + 5
        while not counted().endswith(" 20.0") and time.monotonic() < deadline:
            time.sleep(0.05)
        for _ in range(4):  # either worker answers the scrape, each with both workers' sum
            line = counted()
            assert line.endswith(" 20.0"), line
        assert "2 worker processes" in (tmp_path / "serve.log").read_text()
    finally:
        serve.send_signal(signal.SIGINT)
        code = serve.wait(timeout=60)
        log.close()
    assert code == 0, (tmp_path / "serve.log").read_text()
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{base}/health", timeout=5)
