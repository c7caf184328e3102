"""The API over real HTTP: health, readiness, principals from API keys, error bodies."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from graph.core.db import Database
from graph.core.principals import ApiKeys, Role
from tests.integration.conftest import MakeCaller
from tests.support.servers import ApiProcess


def test_health_needs_no_key(anonymous: httpx.Client) -> None:
    response = anonymous.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_ready_reports_neo4j_schema_and_embedder(anonymous: httpx.Client) -> None:
    response = anonymous.get("/ready")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "ready"
    assert body["dimension"] == 384
    assert body["embedder"] == "bge-small-en-v1.5-onnx-int8"


@pytest.mark.smoke
def test_v1_without_a_key_is_401_with_a_clear_body(anonymous: httpx.Client) -> None:
    response = anonymous.get("/v1/me")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    error = response.json()["error"]
    assert error["code"] == "unauthenticated"
    assert "Authorization: Bearer" in error["message"]


def test_a_bad_or_malformed_key_is_401(anonymous: httpx.Client) -> None:
    bad = anonymous.get("/v1/me", headers={"Authorization": "Bearer ctxn_not-a-real-key"})
    assert bad.status_code == 401
    assert bad.json()["error"]["message"] == "invalid or revoked API key"
    basic = anonymous.get("/v1/me", headers={"Authorization": "Basic dXNlcjpwdw=="})
    assert basic.status_code == 401


@pytest.mark.smoke
async def test_a_key_resolves_to_its_principal(make_caller: MakeCaller) -> None:
    agent = await make_caller(Role.AGENT, agent_id="claude-code")
    response = await agent.http.get("/v1/me")
    assert response.status_code == 200
    assert response.json() == {
        "userId": agent.user_id,
        "role": "agent",
        "agentId": "claude-code",
        "keyId": agent.key_id,
        "scope": None,  # an unscoped key sees all of the user's memory
    }


async def test_a_revoked_key_stops_working(make_caller: MakeCaller, db: Database) -> None:
    human = await make_caller(Role.HUMAN)
    assert (await human.http.get("/v1/me")).status_code == 200
    await ApiKeys(db).revoke(human.key_id)
    response = await human.http.get("/v1/me")
    assert response.status_code == 401


async def test_keys_are_stored_hashed(make_caller: MakeCaller, db: Database) -> None:
    caller = await make_caller()
    [info] = await ApiKeys(db).list(caller.user_id)
    assert caller.key.startswith(info.prefix)
    assert len(info.prefix) < len(caller.key)
    rows = await db.read("queries/core/api_key_list", userId=caller.user_id, includeRevoked=True)
    assert [row["key"]["id"] for row in rows[0]["rows"]] == [info.id]
    assert caller.key not in str(rows)


def test_request_ids_are_echoed_or_made(anonymous: httpx.Client) -> None:
    given = anonymous.get("/health", headers={"X-Request-ID": "trace-123"})
    assert given.headers["x-request-id"] == "trace-123"
    made = anonymous.get("/health")
    assert len(made.headers["x-request-id"]) == 32


def test_unknown_paths_use_the_error_shape(anonymous: httpx.Client) -> None:
    response = anonymous.get("/no/such/path")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_openapi_docs_are_served(anonymous: httpx.Client) -> None:
    assert anonymous.get("/docs").status_code == 200
    spec = anonymous.get("/openapi.json").json()
    assert "/v1/me" in spec["paths"]
    assert "/ready" in spec["paths"]


def test_api_key_mode_disabled_makes_every_caller_the_local_human(tmp_path: Path, api: ApiProcess) -> None:
    local = ApiProcess(tmp_path / "api.log", {"CTXNET_API_KEY_MODE": "disabled"}).start()
    try:
        local.wait_ready()
        me = httpx.get(f"{local.base_url}/v1/me")
        assert me.status_code == 200
        assert me.json()["userId"] == "local"
        assert me.json()["role"] == "human"
    finally:
        local.stop()
