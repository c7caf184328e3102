"""`ctxnet import` of a received folder built to attack it (issue 45), through the real
command against the real API: the folder's git configuration runs nothing, nothing outside
the folder is read, every hostile file ends in a report entry naming it and why, and the
good files still import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from ctxnet.client import AsyncClient
from graph.core.principals import Role
from tests.integration.conftest import MakeCaller
from tests.integration.imports.hostile import COMMIT_DAY, PRIVATE, hostile_folder, signed_repository
from tests.support.servers import ApiProcess


def ctxnet_import(api: ApiProcess, key: str, folder: Path, *more: str) -> tuple[int, dict[str, Any]]:
    """``ctxnet import <folder>`` as a person runs it: its exit code and its report."""
    env = dict(os.environ) | {"CTXNET_API_URL": api.base_url, "CTXNET_API_KEY": key}
    done = subprocess.run(
        [sys.executable, "-m", "ctxnet", "import", str(folder), *more],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


async def test_a_folders_git_config_runs_nothing_yet_dates_its_records(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller(Role.HUMAN)
    marker = tmp_path / "pwned.txt"
    folder = tmp_path / "received"
    signed_repository(folder, marker)
    code, dry = ctxnet_import(api, alice.key, folder, "--dry-run")
    assert not marker.exists(), marker.read_text()
    assert code == 0 and dry["decisionDates"] == {"git": 1}
    code, report = ctxnet_import(api, alice.key, folder)
    assert not marker.exists()
    async with AsyncClient(api.base_url, alice.key) as cn:
        decision = await cn.request_json("GET", "/v1/decisions/0001-use-x")
    assert code == 0 and report["created"] == 1
    assert decision["date"] == COMMIT_DAY  # read from the signed commit, no program run


async def test_a_hostile_folder_is_read_as_data_within_bounds(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice = await make_caller(Role.HUMAN)
    marker = tmp_path / "pwned.txt"
    folder = hostile_folder(tmp_path, marker)
    _, dry = ctxnet_import(api, alice.key, folder, "--dry-run")
    code, report = ctxnet_import(api, alice.key, folder)
    assert not marker.exists()
    assert code == 1 and not report.get("failed")  # rejections said, nothing broke
    assert dry["rejected"] == report["rejected"]
    said = {r["where"].split(":")[0]: r["reason"] for r in report["rejected"]}
    assert "outside the folder" in said["secret.md"] and "outside the folder" in said["creds.md"]
    assert "a link to a folder" in said["up"]
    assert "alias" in said["bomb.md"]
    assert "52,428,800 bytes" in said["big.md"] and "the most a file may be" in said["big.md"]
    assert "not UTF-8" in said["bad-utf8.md"]
    assert "control character" in said["a..b\\x01c\\nd.md"]
    assert "not a regular file" in said["pipe.md"]
    where = {r["where"] for r in report["rejected"]}
    assert "bomb.md:3" in where and "bad-utf8.md:4" in where  # the line of the fault
    assert len(said) == 8, report["rejected"]
    async with AsyncClient(api.base_url, alice.key) as cn:
        notes = {n.id: n async for n in cn.iter_notes(limit=100)}
        decision = await cn.request_json("GET", "/v1/decisions/0001-use-x")
    assert not [n.id for n in notes.values() if PRIVATE in n.content or PRIVATE in n.title]
    assert {"good", "v1..2-notes", "deep"} <= set(notes)
    assert notes["good"].content.startswith("# Good")
    deep = [n for n in notes if n == "deep" or n.startswith("deep-")]
    assert 1 <= len(deep) <= 10  # 200 headings (only six levels are Markdown's) split by words
    assert decision["date"] == COMMIT_DAY
