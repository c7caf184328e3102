"""Agents over HTTP: configured from the YAML file, edited live, refused at start when bad."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.conftest import MakeCaller
from tests.support.servers import ApiProcess

FIRST = """
defaults:
  contextBridge: {enabled: true, recentSessions: 2, includeProfile: false, tokenBudget: 800}
agents:
  - id: engineering-assistant
    contextBridge: {enabled: true, recentSessions: 3, includeProfile: true, tokenBudget: 1500}
  - id: batch-importer
    contextBridge: {enabled: false}
"""


@pytest.fixture
def agents_file(tmp_path: Path) -> Path:
    path = tmp_path / "agents.yml"
    path.write_text(FIRST)
    return path


@pytest.fixture
def configured_api(neo4j_server: None, agents_file: Path, tmp_path: Path) -> Iterator[ApiProcess]:
    api = ApiProcess(tmp_path / "api.log", {"CTXNET_AGENTS_FILE": str(agents_file)}).start()
    try:
        api.wait_ready()
        yield api
    finally:
        api.stop()


def _rewrite(path: Path, text: str) -> None:
    """Write, and move the modification time on (a filesystem's clock may be coarse)."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))


def _bridge_of(http: httpx.Client, agent: str) -> dict[str, object]:
    answer = http.get(f"/v1/agents/{agent}")
    assert answer.status_code == 200, answer.text
    body: dict[str, object] = answer.json()
    return body


async def test_agents_come_from_the_file_and_edits_apply_without_a_restart(
    configured_api: ApiProcess, make_caller: MakeCaller, agents_file: Path
) -> None:
    alice = await make_caller()
    with httpx.Client(
        base_url=configured_api.base_url, headers={"Authorization": f"Bearer {alice.key}"}, timeout=30
    ) as http:
        listed = http.get("/v1/agents").json()
        assert [a["id"] for a in listed["items"]] == ["engineering-assistant", "batch-importer"]
        assert listed["defaults"] == {
            "enabled": True, "recentSessions": 2, "includeProfile": False, "tokenBudget": 800,
            "memoryMatches": 6,
        }  # fmt: skip
        assert _bridge_of(http, "engineering-assistant") == {
            "id": "engineering-assistant",
            "configured": True,
            "contextBridge": {
                "enabled": True,
                "recentSessions": 3,
                "includeProfile": True,
                "tokenBudget": 1500,
                "memoryMatches": 6,
            },
        }
        importer = _bridge_of(http, "batch-importer")
        assert importer["contextBridge"]["enabled"] is False  # type: ignore[index]
        unnamed = _bridge_of(http, "someone-else")
        assert unnamed["configured"] is False
        assert unnamed["contextBridge"] == listed["defaults"]
        assert http.get("/v1/agents/not an id").status_code == 422

        # An edit: seen within a couple of seconds, no restart.
        _rewrite(agents_file, FIRST.replace("recentSessions: 3", "recentSessions: 5"))
        deadline = time.monotonic() + 10
        while _bridge_of(http, "engineering-assistant")["contextBridge"]["recentSessions"] != 5:  # type: ignore[index]
            assert time.monotonic() < deadline, "the edit never took effect"
            time.sleep(0.2)

        # A bad edit: logged, and the last good configuration stays.
        _rewrite(agents_file, FIRST.replace("recentSessions: 3", "recentSessions: lots"))
        deadline = time.monotonic() + 10
        while "agents file not reloaded" not in configured_api.log():  # a request has it read
            assert _bridge_of(http, "engineering-assistant")["contextBridge"]["recentSessions"] == 5  # type: ignore[index]
            assert time.monotonic() < deadline, "the bad edit was never read"
            time.sleep(0.2)
        assert _bridge_of(http, "engineering-assistant")["contextBridge"]["recentSessions"] == 5  # type: ignore[index]
        assert "line 6: agents.0.contextBridge.recentSessions" in configured_api.log()


def test_a_bad_file_stops_start_up_naming_line_and_field(neo4j_server: None, tmp_path: Path) -> None:
    path = tmp_path / "agents.yml"
    path.write_text("agents:\n  - id: helper\n    contextBridge:\n      includeProfil: true\n")
    api = ApiProcess(tmp_path / "api.log", {"CTXNET_AGENTS_FILE": str(path)}).start()
    assert api.exit_code(timeout=120) != 0
    assert "line 4: agents.0.contextBridge.includeProfil: Extra inputs are not permitted" in api.log()
