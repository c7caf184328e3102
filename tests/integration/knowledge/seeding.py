"""Helpers of the edge and search tests: notes made over HTTP, edges between them."""

from __future__ import annotations

from typing import Any

from tests.integration.conftest import Caller


def note(node_id: str, title: str, content: str, type: str = "fact", **extra: Any) -> dict[str, Any]:
    return {"id": node_id, "title": title, "content": content, "type": type, "dedupe": False, **extra}


async def seed(caller: Caller, *notes: dict[str, Any]) -> None:
    response = await caller.http.post("/v1/knowledge/batch", json={"items": list(notes)})
    assert response.status_code == 201, response.text


async def link(caller: Caller, from_id: str, kind: str, to_id: str, **extra: Any) -> Any:
    return await caller.http.post(
        f"/v1/knowledge/{from_id}/connections", json={"type": kind, "targetId": to_id, **extra}
    )


async def status_of(caller: Caller, node_id: str) -> str:
    return str((await caller.http.get(f"/v1/knowledge/{node_id}")).json()["status"])
