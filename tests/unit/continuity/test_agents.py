"""The agents file: errors name the line and the field; edits apply without a restart."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from graph.continuity import agents as agents_module
from graph.continuity.agents import AgentConfigError, AgentRegistry, parse_agents

EXAMPLE = Path(__file__).resolve().parents[3] / "agents.example.yml"


def test_the_example_file_is_valid_and_in_the_seeds_shape() -> None:
    config = parse_agents(EXAMPLE.read_text())
    assistant = next(a for a in config.agents if a.id == "engineering-assistant")
    assert assistant.context_bridge.enabled is True
    assert assistant.context_bridge.recent_sessions == 3
    assert assistant.context_bridge.include_profile is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "agents:\n  - id: a\n    contextBridge:\n      recentSessions: -1\n",
            "agents.yml, line 4: agents.0.contextBridge.recentSessions: Input should be greater than",
        ),
        (
            "agents:\n  - id: a\n    contextBridge:\n      enabld: true\n",
            "agents.yml, line 4: agents.0.contextBridge.enabld: Extra inputs are not permitted",
        ),
        (
            "agents:\n  - id: a\n  - id: b\n  - id: a\n",
            "agents.yml, line 4: agents.2.id: 'a' is configured twice",
        ),
        ("agents:\n  - id: a b\n", "agents.yml, line 2: agents.0.id: must be 1-128 characters"),
        ("agents: [\n", "agents.yml, line 2: not valid YAML"),
        ("- 1\n", "agents.yml, line 1: the file must be a mapping"),
        (
            "defaults:\n  contextBridge:\n    tokenBudget: lots\n",
            "agents.yml, line 3: defaults.contextBridge.tokenBudget: Input should be a valid integer",
        ),
    ],
)
def test_a_bad_file_is_refused_naming_line_and_field(text: str, expected: str) -> None:
    with pytest.raises(AgentConfigError) as refused:
        parse_agents(text, "agents.yml")
    assert refused.value.message.startswith(expected), refused.value.message


def test_agents_the_file_does_not_name_get_the_defaults() -> None:
    registry = AgentRegistry(None)
    assert registry.get("anyone").configured is False
    assert registry.get("anyone").context_bridge.recent_sessions == 3  # the seed's default
    assert registry.configured() == []


def test_an_edit_applies_without_a_restart_and_a_bad_edit_keeps_the_last_good(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(agents_module, "RELOAD_CHECK_SECONDS", 0.0)
    path = tmp_path / "agents.yml"
    path.write_text("agents:\n  - id: helper\n    contextBridge: {recentSessions: 2}\n")
    registry = AgentRegistry(path)
    assert registry.get("helper").context_bridge.recent_sessions == 2

    path.write_text("agents:\n  - id: helper\n    contextBridge: {recentSessions: 5}\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert registry.get("helper").context_bridge.recent_sessions == 5

    with caplog.at_level(logging.ERROR, logger="graph.continuity.agents"):
        path.write_text("agents:\n  - id: helper\n    contextBridge: {recentSessions: many}\n")
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 2_000_000))
        assert registry.get("helper").context_bridge.recent_sessions == 5
    assert "line 3: agents.0.contextBridge.recentSessions" in caplog.text


def test_a_missing_file_stops_start_up(tmp_path: Path) -> None:
    with pytest.raises(AgentConfigError, match="cannot be read"):
        AgentRegistry(tmp_path / "nowhere.yml")
