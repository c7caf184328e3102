"""Conversation memory and sessions through export and import, beside the writes they replay.

On a private Neo4j with the API in its own process, one user is written the way an agent
would write it, by a bare HTTP client, one call after the other (the **direct** side): threads
of messages with the insights found in them (``POST /v1/threads/{id}/insights``, embedded
by the service), and sessions of an agent with tool calls, ends and pending actions, some
carried into the next session and some cleared. That user is exported (``ctxnet export``),
and the export imported into an empty user (``ctxnet import``): the import makes the same
calls, plus the reads that let a second run change nothing. Figures: records a second for
the direct writes, the export and the import, and the import beside the direct writes (after a small user
written first, so neither side pays for a cold start).

Run with ``python -m bench.memory_io`` (``quick`` for a small run that is not saved).
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.common import machine, private_neo4j, save
from bench.continuity import _auth
from bench.imports import keys
from ctxnet.client import AsyncClient
from ctxnet.io.exporter import run_export
from ctxnet.io.importer import run_import
from tests.support.servers import running_api

WORDS = ("billing", "search", "cache", "queue", "deploy", "schema", "backup", "index", "token", "latency")


@dataclass(frozen=True)
class Size:
    """What the user holds."""

    threads: int = 1_000
    messages: int = 20
    insights: int = 5
    sessions: int = 500
    tool_calls: int = 5


FULL = Size()
QUICK = Size(threads=50, sessions=25)


def sentence(n: int, m: int) -> str:
    """A message that reads differently per thread and turn."""
    return (
        f"We talked about {WORDS[n % len(WORDS)]} and {WORDS[(n * 7 + m) % len(WORDS)]} in turn {m} of {n}."
    )


def write_directly(base_url: str, key: str, size: Size) -> tuple[float, int]:
    """The user's memory, one call after the other: seconds, and records written."""
    records = 0
    with httpx.Client(base_url=base_url, headers=_auth(key), timeout=600) as client:

        def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
            answer = client.post(path, json=body)
            answer.raise_for_status()
            return dict(answer.json())

        started = time.perf_counter()
        for n in range(size.threads):
            thread = f"t{n}"
            post("/v1/threads", {"id": thread, "topic": f"{WORDS[n % len(WORDS)]} {n}"})
            messages = [
                {"id": f"{thread}-m{m}", "role": "user", "content": sentence(n, m)}
                for m in range(size.messages)
            ]
            post(f"/v1/threads/{thread}/messages", {"messages": messages})
            found = [
                {"id": f"{thread}-i{i}", "messageId": f"{thread}-m{i}", "type": "fact", "confidence": 0.9,
                 "content": f"The team settled {WORDS[(n + i) % len(WORDS)]} for case {n}-{i}."}
                for i in range(size.insights)
            ]  # fmt: skip
            post(f"/v1/threads/{thread}/insights", {"items": found})
            records += 1 + len(messages) + len(found)
        left: list[str] = []
        for n in range(size.sessions):
            session = f"s{n}"
            post("/v1/sessions", {"id": session, "agentId": "coder", "topic": f"work {n}"})
            for action in left[:1]:  # the last session's first action goes on here
                post(f"/v1/pending-actions/{action}/carry", {"sessionId": session})
            calls = [
                {"tool": "search", "arguments": {"q": WORDS[c % len(WORDS)]}} for c in range(size.tool_calls)
            ]
            post(f"/v1/sessions/{session}/tool-calls", {"items": calls})
            end = {"summary": f"Session {n} done.", "pendingActions": [f"Follow up {n}", f"Check {n}"]}
            left = [a["id"] for a in post(f"/v1/sessions/{session}/end", end)["pendingActions"]]
            post(f"/v1/pending-actions/{left[1]}/ack", {"resolution": "Checked."})
            records += 1 + len(calls)
        return time.perf_counter() - started, records


def export_and_import(base_url: str, source_key: str, target_key: str, path: Path) -> dict[str, Any]:
    """Export the source user to ``path``, import it into the target: seconds of each."""

    async def run() -> dict[str, Any]:
        async with AsyncClient(base_url, source_key) as client:
            started = time.perf_counter()
            with path.open("w") as out:
                counts = await run_export(client, out)
            exported = time.perf_counter() - started
        async with AsyncClient(base_url, target_key) as client:
            started = time.perf_counter()
            report = await run_import(path, client, progress=io.StringIO())
            imported = time.perf_counter() - started
            assert not report.rejected, report.rejected[:3]
            started = time.perf_counter()
            again = await run_import(path, client, progress=io.StringIO())
            second = time.perf_counter() - started
            assert again.view()["changedNothing"], again.view()
        return {"counts": counts, "export_s": exported, "import_s": imported, "second_import_s": second,
                "memory": dict(report.memory)}  # fmt: skip

    return asyncio.run(run())


def main(size: Size = FULL) -> dict[str, Any]:
    """Run on a private Neo4j and save the figures (``QUICK`` ones are not saved)."""
    figures: dict[str, Any] = {"size": size.__dict__}
    with private_neo4j("ctxnet-bench-memory-") as (settings, env, local):
        local.start()
        with running_api(settings.data_dir / "api.log", env) as api:
            secrets = asyncio.run(keys(settings, ["warm", "direct", "imported"]))
            write_directly(api.base_url, secrets["warm"], Size(threads=20, sessions=10))  # warm both up
            spent, records = write_directly(api.base_url, secrets["direct"], size)
            figures["records"] = records
            figures["direct_per_s"] = round(records / spent, 1)
            run = export_and_import(
                api.base_url, secrets["direct"], secrets["imported"], settings.data_dir / "m.jsonl"
            )
            figures["export_per_s"] = round(records / run["export_s"], 1)
            figures["import_per_s"] = round(records / run["import_s"], 1)
            figures["second_import_s"] = round(run["second_import_s"], 1)
            figures["import_ratio"] = round(figures["import_per_s"] / figures["direct_per_s"], 2)
            figures["exported"] = run["counts"]
            figures["imported"] = run["memory"]
    print(json.dumps(figures, indent=2))
    if size == QUICK:
        return figures
    path = save("memory_io", figures)
    print(f"memory export/import figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    main(QUICK if sys.argv[1:] == ["quick"] else FULL)
