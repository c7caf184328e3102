"""The calls on the journal the undo and correction tests share: the latest mutation, an
undo, a note's fields (``None`` once it is gone)."""

from __future__ import annotations

from typing import Any

from tests.integration.conftest import Caller


async def latest(caller: Caller, **params: Any) -> dict[str, Any]:
    """The caller's newest mutation (among those ``params`` select)."""
    items = (await caller.http.get("/v1/mutations", params={"limit": 1, **params})).json()["items"]
    return dict(items[0])


async def undo(caller: Caller, mutation_id: str) -> Any:
    """The answer to undoing ``mutation_id``."""
    return await caller.http.post(f"/v1/mutations/{mutation_id}/undo")


async def fields(caller: Caller, node_id: str) -> dict[str, Any] | None:
    """A note's fields as the API answers them, ``None`` once it is gone."""
    got = await caller.http.get(f"/v1/knowledge/{node_id}")
    if got.status_code == 404:
        return None
    body = got.json()
    return {k: body[k] for k in ("title", "content", "type", "confidence", "tags", "status")}
