"""Settings come from CTXNET_* variables, with safe defaults and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from graph.core.settings import Settings


def test_defaults_point_at_the_local_runtime(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CTXNET_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CTXNET_NEO4J_BOLT_PORT", "17999")
    settings = Settings()
    assert settings.resolved_neo4j_uri == "bolt://127.0.0.1:17999"
    assert settings.neo4j_home == tmp_path / "neo4j"
    assert settings.resolved_neo4j_password() is None


def test_password_is_secret_and_falls_back_to_the_generated_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CTXNET_DATA_DIR", str(tmp_path))
    (tmp_path / "neo4j").mkdir()
    (tmp_path / "neo4j" / "password").write_text("generated-one\n")
    assert Settings().resolved_neo4j_password() == "generated-one"
    monkeypatch.setenv("CTXNET_NEO4J_PASSWORD", "set-by-user")
    settings = Settings()
    assert settings.resolved_neo4j_password() == "set-by-user"
    assert "set-by-user" not in repr(settings)


def test_routing_uris_are_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXNET_NEO4J_URI", "neo4j://cluster.example:7687")
    assert Settings().resolved_neo4j_uri == "neo4j://cluster.example:7687"


def test_openai_embedder_requires_a_dimension(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXNET_EMBEDDER", "openai")
    with pytest.raises(ValidationError, match="CTXNET_EMBEDDING_DIMENSION"):
        Settings()


def test_memory_sizes_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXNET_NEO4J_HEAP", "lots")
    with pytest.raises(ValidationError, match="neo4j_heap"):
        Settings()
