"""Forgetting (``POST /v1/forget``) over HTTP against the real Neo4j: a run cut short is
finished by running it again, and ``ctxnet users forget`` leaves nothing of a user but the
tombstone. What a match reaches on the shapes real memory takes, and that it is gone from
every read path, is ``test_forget_shapes.py``'s."""

from __future__ import annotations

import contextlib
import sys
import uuid
from typing import Any

import httpx
import pytest

from graph.core.principals import Principal, Role
from graph.core.users import forget_user
from graph.knowledge.search import TenantSizes
from graph.project.forget import ForgetMatch, ForgetService
from tests.integration.conftest import MakeCaller, inspect
from tests.support.sweep import seed_everything


def token() -> str:
    """A text no other test writes."""
    return f"zq{uuid.uuid4().hex[:10]}"


async def ok(answer: httpx.Response) -> dict[str, Any]:
    """The answer's JSON, once it is a 200 or 201."""
    assert answer.status_code in (200, 201), (answer.request.url, answer.status_code, answer.text)
    body: dict[str, Any] = answer.json()
    return body


class CrashingGate:
    """A write gate whose ``crash_at``-th transaction dies before it commits (the process went)."""

    def __init__(self, gate: Any, crash_at: int) -> None:
        self._gate, self._crash_at, self.calls = gate, crash_at, 0

    async def write(self, user_id: str, work: Any) -> Any:
        """The gate's write, or the process's death at the ``crash_at``-th."""
        self.calls += 1
        if self.calls == self._crash_at:
            raise RuntimeError("the process died")
        return await self._gate.write(user_id, work)


async def test_a_run_cut_short_is_finished_by_running_it_again(
    make_caller: MakeCaller, db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = await make_caller()
    mark = token()
    notes = [{"id": f"n{k}", "title": f"{mark} {k}", "content": f"{mark} note {k}.", "type": "fact",
              "tags": ["gone"], "dedupe": False} for k in range(25)]  # fmt: skip
    await ok(await alice.http.post("/v1/knowledge/batch", json={"items": notes}))
    for module in [m for name, m in sys.modules.items() if name.startswith("graph.project.forget")]:
        if hasattr(module, "BATCH"):
            monkeypatch.setattr(module, "BATCH", 10)  # 25 notes: three transactions
    service = ForgetService(db, TenantSizes())
    person = Principal(user_id=alice.user_id, role=Role.HUMAN)
    gate = service._gate
    service._gate = CrashingGate(gate, crash_at=3)  # type: ignore[assignment]
    with contextlib.suppress(RuntimeError):
        await service.forget(person, ForgetMatch(tags=("gone",)), dry_run=False, limit=100)
    service._gate = gate
    left = (await ok(await alice.http.get("/v1/knowledge", params={"tag": "gone", "limit": 100})))["items"]
    assert 0 < len(left) < 25, len(left)
    again = await service.forget(person, ForgetMatch(tags=("gone",)), dry_run=False, limit=100)
    assert again["counts"]["notes"] == len(left)
    assert (await ok(await alice.http.get("/v1/knowledge", params={"tag": "gone"})))["items"] == []
    rows = await inspect(db, "MATCH (t:Tenant {userId: $u}) RETURN t.notes AS notes", u=alice.user_id)
    assert rows == [{"notes": 0}]
    mutations = (await ok(await alice.http.get("/v1/mutations", params={"limit": 200})))["items"]
    assert mark not in str(mutations)


async def test_forgetting_a_user_leaves_nothing_of_theirs_but_the_tombstone(
    make_caller: MakeCaller, db: Any
) -> None:
    alice = await make_caller()
    mark = token()
    await seed_everything(alice, make_caller, mark)
    assert (await alice.http.post("/v1/forget", json={"match": {"query": mark}})).status_code == 200
    await forget_user(db, alice.user_id)
    left = await inspect(
        db, "MATCH (n) WHERE n.userId = $u RETURN labels(n) AS labels, n AS node", u=alice.user_id
    )
    assert [r["labels"] for r in left] == [["Tenant"]], left
    assert mark not in str(left[0]["node"])
    answer = await alice.http.get("/v1/knowledge")
    assert answer.status_code == 401, answer.text
