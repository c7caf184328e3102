"""The light client stays light: ``ctxnet.client`` and the wire contract load nothing of the
server, in a fresh interpreter, and the base distribution's dependencies (``pip install
context-network``, no extra) pull no Neo4j driver, onnxruntime or FastAPI."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from ctxnet.wire import limits
from ctxnet.wire.knowledge.notes import NoteIn

#: Top-level modules a client process must not load: the service's own and its dependencies'.
SERVER_MODULES = ("graph", "api", "neo4j", "fastapi", "onnxruntime", "uvicorn", "typer")
#: Distributions the base install must not pull.
SERVER_DISTRIBUTIONS = frozenset({"neo4j", "onnxruntime", "fastapi"})

_LOADED = """
import importlib, json, pkgutil, sys
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    for found in pkgutil.walk_packages(getattr(module, "__path__", []), name + "."):
        importlib.import_module(found.name)
print(json.dumps(sorted(sys.modules)))
"""


def _loaded(*modules: str) -> list[str]:
    """Every module a fresh interpreter holds after importing ``modules`` (and their submodules)."""
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, *modules], capture_output=True, text=True, check=True, timeout=120
    )
    return list(json.loads(done.stdout))


def _server_modules(loaded: list[str], allowed: tuple[str, ...] = ()) -> list[str]:
    tops = {name.partition(".")[0] for name in loaded}
    return sorted(tops & (set(SERVER_MODULES) - set(allowed)))


def test_the_client_and_the_wire_load_nothing_of_the_server() -> None:
    loaded = _loaded("ctxnet.client", "ctxnet.wire")
    assert "ctxnet.client" in loaded and "ctxnet.wire.knowledge.notes" in loaded
    found = _server_modules(loaded)
    assert not found, f"importing ctxnet.client and ctxnet.wire loaded server modules: {found}"


def test_the_mcp_server_loads_nothing_of_the_service() -> None:
    # The mcp SDK serves HTTP with starlette and uvicorn itself (its own dependencies, the mcp
    # extra's): of the service, nothing.
    loaded = _loaded("ctxnet.mcp_server")
    found = _server_modules(loaded, allowed=("uvicorn",))
    assert not found, f"importing ctxnet.mcp_server loaded the service's modules: {found}"


INTEGRATIONS = {
    "langgraph": "ctxnet.integrations.langgraph",
    "llamaindex": "ctxnet.integrations.llamaindex",
    "openai-agents": "ctxnet.integrations.openai_agents",
    "anthropic": "ctxnet.integrations.anthropic_memory",
}


@pytest.mark.parametrize("extra", sorted(INTEGRATIONS))
def test_an_integration_loads_nothing_of_the_service(extra: str) -> None:
    # The OpenAI Agents SDK imports the mcp SDK, which serves HTTP with uvicorn: the
    # framework's own dependency, not the service.
    loaded = _loaded(INTEGRATIONS[extra])
    assert INTEGRATIONS[extra] in loaded
    found = _server_modules(loaded, allowed=("uvicorn",))
    assert not found, f"importing {INTEGRATIONS[extra]} loaded the service's modules: {found}"


def _closure(distribution: str, extras: frozenset[str] = frozenset()) -> set[str]:
    """The distributions ``distribution`` (with ``extras``) requires, recursively, as installed
    here: markers evaluated for this interpreter, a requirement's extras only where named."""
    seen: set[tuple[str, frozenset[str]]] = set()
    names: set[str] = set()
    todo = [(canonicalize_name(distribution), extras)]
    while todo:
        name, wanted = todo.pop()
        if (name, wanted) in seen:
            continue
        seen.add((name, wanted))
        names.add(name)
        for line in metadata.requires(name) or []:
            requirement = Requirement(line)
            environments = [{**default_environment(), "extra": extra} for extra in ("", *wanted)]
            marker = requirement.marker
            if marker is None or any(marker.evaluate(env) for env in environments):
                todo.append((canonicalize_name(requirement.name), frozenset(requirement.extras)))
    return names - {canonicalize_name(distribution)}


def test_the_base_install_pulls_no_server_dependency() -> None:
    base = _closure("context-network")
    assert {"pydantic", "httpx"} <= base
    assert not base & SERVER_DISTRIBUTIONS, f"the base install pulls {sorted(base & SERVER_DISTRIBUTIONS)}"
    # The walk does see them where they are: the server extra.
    assert _closure("context-network", frozenset({"server"})) >= SERVER_DISTRIBUTIONS


def test_the_integrations_extras_pull_no_server_dependency() -> None:
    pulled = _closure("context-network", frozenset(INTEGRATIONS))
    assert {"langgraph", "llama-index-core", "openai-agents", "anthropic"} <= pulled
    assert not pulled & SERVER_DISTRIBUTIONS, (
        f"the integrations' extras pull {sorted(pulled & SERVER_DISTRIBUTIONS)}"
    )


def test_without_a_provider_the_word_limit_is_the_servers_to_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "_provider", None)
    long = {"title": "Long", "content": "word " * 400, "type": "fact"}
    assert len(NoteIn.model_validate(long).content.split()) == 400
    # A limit the caller knows (the server's, from GET /v1/limits) is checked when given.
    known = {limits.LIMITS: limits.ServerLimits(note_max_words=300, vector_size=384)}
    with pytest.raises(ValueError, match="at most 300"):
        NoteIn.model_validate(long, context=known)
    monkeypatch.setattr(limits, "_provider", lambda: limits.ServerLimits(note_max_words=500, vector_size=384))
    NoteIn.model_validate(long)
    with pytest.raises(ValueError, match="at most 300"):
        NoteIn.model_validate(long, context=known)  # the context's over the process's provider
