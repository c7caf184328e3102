"""An import on a slow or failing server, without a database (the API faked by an httpx
transport): batches cut to the server's pace and halved on a timeout, and a failure that
ends with the report of what landed and a state file that ``--resume`` finishes from."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import httpx

from ctxnet.client import AsyncClient
from ctxnet.io.importer import run_import
from ctxnet.wire.core import LimitsOut
from ctxnet.wire.limits import ServerLimits


def notes_file(folder: Path, count: int) -> Path:
    lines = [
        {"id": f"n{i}", "title": f"Note {i}", "content": f"Fact number {i}.", "type": "fact"}
        for i in range(count)
    ]
    source = folder / "notes.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return source


class FakeApi:
    """``/v1/me``, ``/v1/limits`` and the notes' batch create; ``timeout_over`` items time out, ``fail_after``
    batches succeed before a 500."""

    def __init__(self, *, timeout_over: int = 10_000, fail_after: int = 10_000) -> None:
        self.timeout_over, self.fail_after = timeout_over, fail_after
        self.batches: list[list[str]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/me":
            return httpx.Response(200, json={"userId": "u1", "role": "human"})
        if request.url.path == "/v1/limits":
            return httpx.Response(200, json=LimitsOut.of(ServerLimits(300, 384)).model_dump(by_alias=True))
        items: list[dict[str, Any]] = json.loads(request.content)["items"]
        if len(items) > self.timeout_over:
            raise httpx.ReadTimeout("the server is busy embedding", request=request)
        if len(self.batches) >= self.fail_after:
            return httpx.Response(500, json={"error": {"code": "internal", "message": "boom", "field": None}})
        self.batches.append([i["id"] for i in items])
        return httpx.Response(200, json={"results": [{"id": i["id"], "outcome": "created"} for i in items]})


def client(api: FakeApi) -> AsyncClient:
    return AsyncClient("http://api.test", "ctxn_test", retries=0, transport=httpx.MockTransport(api))


async def test_a_batch_that_times_out_is_sent_again_in_halves(tmp_path: Path) -> None:
    api = FakeApi(timeout_over=8)
    async with client(api) as cn:
        report = await run_import(notes_file(tmp_path, 50), cn, progress=io.StringIO())
    assert not report.failure and report.created == 50
    assert all(len(b) <= 8 for b in api.batches)
    assert sorted(i for b in api.batches for i in b) == sorted(f"n{i}" for i in range(50))


async def test_a_failure_ends_with_the_report_and_resume_finishes(tmp_path: Path) -> None:
    source = notes_file(tmp_path, 100)
    failing = FakeApi(fail_after=2)
    async with client(failing) as cn:
        report = await run_import(source, cn, progress=io.StringIO(), batch_size=20)
    view = report.view()
    landed = sum(len(b) for b in failing.batches)
    assert view["failed"] == "ApiError: 500 internal: boom" and view["created"] == landed == 40
    assert not view["changedNothing"] and "resume" in view
    state = json.loads(source.with_name("notes.jsonl.ctxnet-import.json").read_text())
    assert len(state["done"]) == 2
    healthy = FakeApi()
    async with client(healthy) as cn:
        resumed = await run_import(source, cn, progress=io.StringIO(), batch_size=20, resume=True)
    assert not resumed.failure and resumed.skipped_batches == 2
    sent_again = {i for b in healthy.batches for i in b}
    assert sent_again == {f"n{i}" for i in range(100)} - {i for b in failing.batches for i in b}
