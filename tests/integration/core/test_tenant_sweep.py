"""The tenant sweep, generated from the live OpenAPI document: every operation is tried by
another user against alice's data. An operation on one of alice's ids answers 404; no
answer of any operation carries alice's data; and afterwards alice's data is exactly as it
was. A new endpoint is swept the day it is added; one the sweep cannot place fails the test
until it is taught how (RESOURCES, in tests/support/resources.py) or exempted with a reason
(EXEMPT)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.integration.conftest import MakeCaller
from tests.support.sweep import seed_everything, snapshot, sweep

#: Operations with nothing of a user's to leak, and why.
EXEMPT = {
    ("get", "/health"): "liveness, no user data",
    ("get", "/ready"): "readiness, no user data",
    ("get", "/v1/me"): "the caller's own principal",
    ("get", "/v1/agents/{id}"): "the deployment's agent configuration, the same for every user",
}
#: Operations whose ``{id}`` is a name in the caller's own memory, not one of alice's things:
#: another user reaches their own agent of that name (200), and must still see nothing of alice's.
OWN_NAMES = {
    ("get", "/v1/agents/{id}/docs"),
    ("put", "/v1/agents/{id}/docs"),
    ("get", "/v1/agents/{id}/self-docs"),
    ("get", "/v1/agents/{id}/instructions"),
}


@pytest.mark.smoke
async def test_no_operation_reaches_another_users_data(make_caller: MakeCaller, api: Any) -> None:
    alice, mallory = await make_caller(), await make_caller()
    token = f"zq{uuid.uuid4().hex[:10]}"  # in alice's texts only (ids are echoed in 404s)
    ids = await seed_everything(alice, make_caller, token)
    before = await snapshot(alice, ids)

    document = httpx.get(f"{api.base_url}/openapi.json", timeout=30).json()
    answers, unplaced = await sweep(document, mallory, ids, EXEMPT)
    own = {(method, path.replace("{id}", ids["agent"])) for method, path in OWN_NAMES}
    for (method, url, params, body), answer in answers:
        assert answer.status_code < 500, (method, url, answer.text)
        assert token not in answer.text, ("alice's data leaked", method, url, answer.text[:300])
        if params and (method, url) not in own:
            assert answer.status_code == 404, (method, url, body, answer.status_code, answer.text)
    assert not unplaced, f"operations the sweep cannot place (teach RESOURCES or EXEMPT them): {unplaced}"
    assert len(answers) + len(EXEMPT) == sum(len(ops) for ops in document["paths"].values())
    assert await snapshot(alice, ids) == before, "another user's calls changed alice's data"
