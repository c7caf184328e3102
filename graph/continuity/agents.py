"""Agents and their configuration: a YAML file in the seed's shape, reloaded when it changes.

```yaml
defaults:                 # agents the file does not name
  contextBridge: {enabled: true, recentSessions: 3, includeProfile: true, tokenBudget: 2000, memoryMatches: 6}
agents:
  - id: engineering-assistant
    contextBridge:
      enabled: true
      recentSessions: 3   # how many past sessions the bridge includes
      includeProfile: true
      tokenBudget: 1500
```

A bad file stops start-up with an error naming its line and field. Afterwards the file is
looked at again (its modification time, at most once a second) whenever an agent's
configuration is asked for: an edit takes effect without a restart in every API process,
and a bad edit is logged and the last good configuration kept.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from graph.core.errors import ContextNetworkError, InvalidInput
from graph.core.values import check_id

log = logging.getLogger(__name__)

#: How often (seconds) the file's modification time is looked at, at most.
RELOAD_CHECK_SECONDS = 1.0


class AgentConfigError(ContextNetworkError):
    """The agents file cannot be used; the message names the file, line and field."""

    code = "agent_config_invalid"


class _Strict(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)


class BridgeConfig(_Strict):
    """How the context bridge treats an agent's sessions."""

    enabled: bool = True
    recent_sessions: int = Field(default=3, ge=0, le=50, description="Past sessions the bridge includes.")
    include_profile: bool = Field(default=True, description="Whether the user's profile is included.")
    token_budget: int = Field(default=2000, ge=100, le=100_000, description="Most tokens the block may use.")
    memory_matches: int = Field(
        default=6, ge=0, le=50, description="Most notes and insights on the opening topic it includes."
    )


class Defaults(_Strict):
    """What an agent the file does not name gets."""

    context_bridge: BridgeConfig = BridgeConfig()


class AgentConfig(_Strict):
    """One agent of the file."""

    id: str
    context_bridge: BridgeConfig = BridgeConfig()

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        try:
            return check_id(value, "id")
        except InvalidInput as exc:
            raise ValueError(exc.message.removeprefix("id ")) from None


class AgentsFile(_Strict):
    """The whole file."""

    defaults: Defaults = Defaults()
    agents: list[AgentConfig] = Field(default_factory=list)


class Agent(BaseModel):
    """An agent as the service applies it: its own entry, or the defaults."""

    id: str
    configured: bool = Field(description="Whether the agents file names it (else the defaults apply).")
    context_bridge: BridgeConfig


def _line_of(root: yaml.Node | None, loc: Sequence[int | str]) -> int | None:
    """The 1-based line of the YAML node at ``loc`` (keys and list indices), or of the
    deepest node on the way that exists."""
    node = root
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            found = next((v for k, v in node.value if getattr(k, "value", None) == part), None)
            if found is None:
                key = next((k for k, _ in node.value if getattr(k, "value", None) == part), None)
                return key.start_mark.line + 1 if key is not None else line
            node = found
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            return line
        line = node.start_mark.line + 1
    return line


def parse_agents(text: str, source: str = "agents file") -> AgentsFile:
    """The file's configuration, or :class:`AgentConfigError` naming the line and the field."""
    try:
        root = yaml.compose(text)
        data: Any = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}, line {mark.line + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or str(exc)
        raise AgentConfigError(f"{where}: not valid YAML: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise AgentConfigError(f"{source}, line 1: the file must be a mapping with `agents:`")
    try:
        parsed = AgentsFile.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = list(error["loc"])
        field = ".".join(str(p) for p in loc) or "(file)"
        message = error["msg"].removeprefix("Value error, ")
        raise AgentConfigError(f"{source}, line {_line_of(root, loc)}: {field}: {message}") from None
    seen: set[str] = set()
    for i, agent in enumerate(parsed.agents):
        if agent.id in seen:
            line = _line_of(root, ["agents", i, "id"])
            raise AgentConfigError(f"{source}, line {line}: agents.{i}.id: {agent.id!r} is configured twice")
        seen.add(agent.id)
    return parsed


class AgentRegistry:
    """The agents file as it stands, reloaded when it changes (and only when it is valid)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._checked = 0.0
        self._stamp: tuple[int, int] | None = None
        self._config = AgentsFile()
        if path is not None:
            self._config = self._read(path)
            self._stamp = self._stat(path)

    @staticmethod
    def _stat(path: Path) -> tuple[int, int] | None:
        try:
            stat = path.stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    @staticmethod
    def _read(path: Path) -> AgentsFile:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise AgentConfigError(f"agents file {path}: cannot be read ({exc.strerror})") from None
        return parse_agents(text, str(path))

    def config(self) -> AgentsFile:
        """The current configuration; the file is looked at again at most once a second."""
        if self.path is None:
            return self._config
        now = time.monotonic()
        if now - self._checked < RELOAD_CHECK_SECONDS:
            return self._config
        with self._lock:
            self._checked = now
            stamp = self._stat(self.path)
            if stamp is not None and stamp != self._stamp:
                self._stamp = stamp
                try:
                    self._config = self._read(self.path)
                    log.info("agents file reloaded", extra={"path": str(self.path)})
                except AgentConfigError as exc:
                    log.error("agents file not reloaded, the last good one stays: %s", exc.message)
        return self._config

    def get(self, agent_id: str) -> Agent:
        """The agent's configuration: its own entry, or the defaults."""
        config = self.config()
        for agent in config.agents:
            if agent.id == agent_id:
                return Agent(id=agent.id, configured=True, context_bridge=agent.context_bridge)
        return Agent(id=agent_id, configured=False, context_bridge=config.defaults.context_bridge)

    def configured(self) -> list[Agent]:
        """Every agent the file names, in its order."""
        return [
            Agent(id=a.id, configured=True, context_bridge=a.context_bridge) for a in self.config().agents
        ]
