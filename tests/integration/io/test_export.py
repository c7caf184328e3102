"""`ctxnet export` against the real API and Neo4j: export, import into another user and export
again gives the same file (all but what an import cannot carry over), with conversation
memory and sessions."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ctxnet.client import AsyncClient
from ctxnet.io.exporter import run_export
from ctxnet.io.importer import run_import
from graph.core.principals import Role
from tests.integration.conftest import MakeCaller
from tests.integration.io.test_import import write_vault
from tests.support.jobs import run_job
from tests.support.servers import ApiProcess


def comparable(text: str) -> list[dict[str, Any]]:
    """An export's lines without what an import cannot carry over (docs/import.md): the
    header, the times of notes, threads, sessions and pending actions, the notes' merges,
    and who recorded a tool call. (Messages keep their times: they are compared.)"""
    lines = [json.loads(line) for line in text.splitlines()][1:]
    for line in lines:
        dropped = ["mergeCount", "merges", "startedAt", "endedAt", "recordedAt"]
        if line["record"] != "message":
            dropped += ["createdAt", "updatedAt"]
        if line["record"] == "toolCall":
            dropped += ["role", "agentId"]
        for key in dropped:
            line.pop(key, None)
        for action in line.get("pendingActions", []):
            action.pop("createdAt", None)
            action.pop("resolvedAt", None)
    return lines


async def remember_conversations_and_sessions(cn: AsyncClient, http: Any) -> None:
    """Two linked threads (one through the feedback loop: insights, and notes made of them),
    and three sessions of an agent: the first leaves two actions, one carried into the second
    and one cleared; the second leaves one, carried into the third, still open; tool calls."""
    messages = [
        {"id": "m1", "role": "user", "content": "I prefer dark mode in every editor.",
         "createdAt": "2026-03-01T09:00:00+00:00"},
        {"id": "m2", "role": "user", "content": "We decided to use Postgres for billing.",
         "createdAt": "2026-03-01T09:01:00+00:00"},
        {"id": "m3", "role": "user", "content": "How should we back up the billing database?"},
    ]  # fmt: skip
    await cn.request_json("POST", "/v1/threads", {"id": "t1", "topic": "Billing", "contextType": "planning"})
    await cn.request_json("POST", "/v1/threads/t1/messages", {"messages": messages})
    await cn.request_json("POST", "/v1/threads", {"id": "t2", "topic": "Editors"})
    hello = {"messages": [{"role": "user", "content": "Hi."}]}
    await cn.request_json("POST", "/v1/threads/t2/messages", hello)
    await cn.request_json("POST", "/v1/threads/t1/links", {"threadId": "t2"})
    loop = await run_job(http, "/v1/threads/t1/feedback-loop")
    assert loop["status"] == "done" and loop["counts"]["created"] >= 1, loop
    start = {"id": "s1", "agentId": "coder", "topic": "Billing", "threadId": "t1"}
    await cn.request_json("POST", "/v1/sessions", start)
    calls = [{"tool": "search", "arguments": {"q": "billing"}, "at": "2026-03-01T10:00:00+00:00"},
             {"tool": "remember", "arguments": None, "resultSummary": "ok", "durationMs": 12}]  # fmt: skip
    await cn.request_json("POST", "/v1/sessions/s1/tool-calls", {"items": calls})
    end = {"summary": "Chose Postgres.", "topics": ["billing"], "pendingActions": ["Back up", "Index"]}
    left = (await cn.request_json("POST", "/v1/sessions/s1/end", end))["pendingActions"]
    await cn.request_json("POST", "/v1/sessions", {"id": "s2", "agentId": "coder"})
    await cn.request_json("POST", f"/v1/pending-actions/{left[0]['id']}/carry", {"sessionId": "s2"})
    await cn.request_json("POST", f"/v1/pending-actions/{left[1]['id']}/ack", {"resolution": "Indexed."})
    end = {"summary": "Backups planned.", "keyDecisions": ["Daily"], "pendingActions": ["Drill"]}
    drill = (await cn.request_json("POST", "/v1/sessions/s2/end", end))["pendingActions"][0]["id"]
    await cn.request_json("POST", "/v1/sessions", {"id": "s3", "agentId": "coder", "topic": "Open still"})
    await cn.request_json("POST", f"/v1/pending-actions/{drill}/carry", {"sessionId": "s3"})  # still open


async def test_export_import_export_gives_the_same_file(
    make_caller: MakeCaller, api: ApiProcess, tmp_path: Path
) -> None:
    alice, empty = await make_caller(Role.HUMAN), await make_caller(Role.HUMAN)
    vault = tmp_path / "vault"
    write_vault(vault)
    async with AsyncClient(api.base_url, alice.key) as cn:
        await run_import(vault, cn, progress=io.StringIO())
        old = {
            "id": "adr-1",
            "title": "Orders in MySQL",
            "context": "Then.",
            "decision": "Orders live in MySQL.",
        }
        new = {
            "id": "adr-2", "title": "Orders in PostgreSQL", "context": "Now.",
            "decision": "Orders live in PostgreSQL.", "consequences": ["Migrate."], "agents": ["coder"],
            "tags": ["storage"],
        }  # fmt: skip
        for decision in (old, new):
            await cn.request_json("POST", "/v1/decisions", decision)
        await cn.request_json("POST", "/v1/decisions/adr-1/supersede", {"byId": "adr-2"})
        await cn.request_json(
            "POST", "/v1/patterns", {"title": "Small PRs", "description": "Keep changes small."}
        )
        await cn.request_json("PATCH", "/v1/knowledge/auth", {"status": "archived"})
        await remember_conversations_and_sessions(cn, alice.http)
    env = dict(os.environ) | {"CTXNET_API_URL": api.base_url}
    first = tmp_path / "first.jsonl"
    for caller, command in (
        (alice, ["export", "-o", str(first), "--embeddings"]),
        (empty, ["import", str(first)]),
    ):
        key = {"CTXNET_API_KEY": caller.key}
        done = subprocess.run(
            [sys.executable, "-m", "ctxnet", *command],
            env=env | key,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    second = tmp_path / "second.jsonl"
    command = [sys.executable, "-m", "ctxnet", "export", "-o", str(second), "--embeddings"]
    key = {"CTXNET_API_KEY": empty.key}
    done = subprocess.run(command, env=env | key, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    exported = comparable(first.read_text())
    assert comparable(second.read_text()) == exported
    kinds = [line["record"] for line in exported]
    assert kinds.count("decision") == 2 and kinds.count("pattern") == 1 and kinds.count("edge") >= 4
    statuses = {line["id"]: line["status"] for line in exported if "status" in line}
    assert statuses["adr-1"] == "superseded" and statuses["auth"] == "archived"
    assert kinds.count("thread") == 2 and kinds.count("message") == 4 and kinds.count("toolCall") == 2
    insights = [line for line in exported if line["record"] == "insight"]
    assert len(insights) == 3 and any(i["knowledgeIds"] for i in insights)
    sessions = {line["id"]: line for line in exported if line["record"] == "session"}
    assert sessions["s2"]["previousId"] == "s1" and sessions["s3"]["status"] == "open"
    actions = {a["text"]: a for a in sessions["s1"]["pendingActions"]}
    assert actions["Back up"]["sessionId"] == "s2" and actions["Back up"]["carriedCount"] == 1
    assert actions["Index"]["status"] == "done" and actions["Index"]["resolution"] == "Indexed."
    assert sessions["s2"]["pendingActions"][0]["sessionId"] == "s3"  # carried into an open session
    # The messages kept their times; a second import changes nothing, and says so.
    times = [line["createdAt"] for line in exported if line["record"] == "message"][:2]
    assert times == ["2026-03-01T09:00:00.000+00:00", "2026-03-01T09:01:00.000+00:00"]
    async with AsyncClient(api.base_url, empty.key) as cn:
        report = await run_import(first, cn, progress=io.StringIO())
    assert report.view()["changedNothing"], report.view()
    # Two imports of the export into one user at once: each thing is made once, as one import
    # makes it (the same file again).
    twice = await make_caller(Role.HUMAN)
    async with AsyncClient(api.base_url, twice.key) as cn:
        both = await asyncio.gather(*(run_import(first, cn, progress=io.StringIO()) for _ in range(2)))
        assert sum(r.created for r in both) == report.existing + report.created, [r.view() for r in both]
        assert sum(r.memory["sessions"] for r in both) == 3  # each started once (201 once)
        out = io.StringIO()
        await run_export(cn, out)
    without_vectors = [{k: v for k, v in line.items() if k != "embedding"} for line in exported]
    again = comparable(out.getvalue())
    differing = [(a, b) for a, b in zip(again, without_vectors, strict=False) if a != b]
    assert again == without_vectors, differing[:2]  # the first lines that differ, whole


async def test_export_as_of_and_as_known_at_writes_what_was_true_or_held_then(
    make_caller: MakeCaller, api: ApiProcess
) -> None:
    alice = await make_caller(Role.HUMAN)

    async def export(**clocks: str) -> dict[str, dict[str, Any]]:
        out = io.StringIO()
        async with AsyncClient(api.base_url, alice.key) as cn:
            await run_export(cn, out, **clocks)
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        return {
            line.get("id") or f"{line.get('sourceId')}>{line.get('targetId')}": line for line in lines[1:]
        }

    async with AsyncClient(api.base_url, alice.key) as cn:
        old = {"id": "port", "title": "Port", "content": "Staging listens on port 5432.", "type": "fact",
               "validFrom": "2025-01-01T00:00:00Z"}  # fmt: skip
        await cn.request_json("POST", "/v1/knowledge", old)
        new = old | {
            "id": "port-new",
            "content": "Staging listens on port 6432.",
            "validFrom": "2026-06-01T00:00:00Z",
        }
        await cn.request_json("POST", "/v1/knowledge", new)
        await asyncio.sleep(0.05)
        held_at = datetime.now(UTC).isoformat()
        await asyncio.sleep(0.05)
        await cn.request_json("PATCH", "/v1/knowledge/port-new", {"content": "Staging listens on port 7432."})

    now = await export()
    assert now["port"]["validUntil"].startswith("2026-06-01") and now["port-new"]["validFrom"].startswith(
        "2026-06-01"
    )
    assert "port-new>port" in now
    assert set(await export(as_of="2026-01-01T00:00:00Z")) == {"port"}
    then = await export(as_known_at=held_at)
    assert then["port-new"]["content"] == "Staging listens on port 6432." and "port-new>port" in then
    assert now["port-new"]["content"] == "Staging listens on port 7432."
