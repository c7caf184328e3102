"""Conversation-memory figures: the feedback-loop pipeline and consolidation.

On a private Neo4j, with the API in its own process:

* pipeline throughput (extract → validate → update-or-create knowledge) on 1,000 threads
  of 20 messages, with the offline rule extractor, and with an LLM extractor pointed at a
  local OpenAI-compatible stub that answers instantly (so the figure is our overhead);
* consolidation of 10,000 high-confidence insights into knowledge.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from bench.common import machine, private_neo4j, save
from graph.core.db import Database
from graph.core.principals import ApiKeys, Role
from graph.core.settings import Settings
from tests.support.openai_stub import OpenAIStub
from tests.support.servers import ApiProcess

TOPICS = [
    "billing",
    "deploys",
    "search",
    "caching",
    "auth",
    "editors",
    "backups",
    "alerts",
    "pricing",
    "docs",
]


def messages(thread: int) -> list[dict[str, str]]:
    """20 messages: a few stated preferences, facts, decisions and questions among chatter."""
    topic = TOPICS[thread % len(TOPICS)]
    lines = [
        ("user", f"I prefer short answers about {topic} number {thread}."),
        ("assistant", f"Understood, I will keep {topic} answers short."),
        ("user", f"I work at company {thread} on the {topic} team."),
        ("assistant", "Thanks for the context."),
        ("user", f"We decided to use tool {thread} for {topic}."),
        ("assistant", "That sounds reasonable."),
        ("user", f"How should we monitor {topic} {thread} in production?"),
    ]
    while len(lines) < 20:
        lines.append(
            ("assistant" if len(lines) % 2 else "user", f"Some more discussion of {topic} item {len(lines)}.")
        )
    return [{"id": f"th{thread}-m{i}", "role": role, "content": text} for i, (role, text) in enumerate(lines)]


async def key_for(settings: Settings, user: str) -> str:
    """A fresh agent key."""
    db = Database.from_settings(settings)
    try:
        await db.wait_until_reachable(60)
        return (await ApiKeys(db).create(user, Role.AGENT, agent_id="bench"))[1]
    finally:
        await db.close()


async def load_threads(http: httpx.AsyncClient, count: int, prefix: str) -> list[str]:
    """Create ``count`` threads of 20 messages."""
    ids = []
    for t in range(count):
        tid = f"{prefix}{t}"
        await http.post(
            "/v1/threads", json={"id": tid, "topic": TOPICS[t % len(TOPICS)], "contextType": "planning"}
        )
        response = await http.post(f"/v1/threads/{tid}/messages", json={"messages": messages(t)})
        response.raise_for_status()
        ids.append(tid)
    return ids


async def run_jobs(
    http: httpx.AsyncClient, paths: list[str], in_flight: int = 8
) -> tuple[float, dict[str, int]]:
    """Run every job (``in_flight`` at a time); seconds and summed counts."""
    totals: dict[str, int] = {}
    queue = list(paths)
    failed = 0

    async def worker() -> None:
        nonlocal failed
        while queue:
            path = queue.pop()
            job_id = (await http.post(path)).json()["jobId"]
            while True:
                job = (await http.get(f"/v1/jobs/{job_id}")).json()
                if job["status"] in ("done", "failed"):
                    break
                await asyncio.sleep(0.05)
            if job["status"] == "failed":
                failed += 1
            for k, v in (job.get("counts") or {}).items():
                totals[k] = totals.get(k, 0) + v

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(in_flight)))
    totals["failedJobs"] = failed
    return time.perf_counter() - started, totals


async def pipeline(api: ApiProcess, settings: Settings, label: str, threads: int) -> dict[str, Any]:
    """Feedback loop over ``threads`` threads."""
    key = await key_for(settings, f"bench-conv-{label}")
    async with httpx.AsyncClient(
        base_url=api.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=300
    ) as http:
        ids = await load_threads(http, threads, f"{label}-")
        seconds, counts = await run_jobs(http, [f"/v1/threads/{tid}/feedback-loop" for tid in ids])
    return {
        "threads": threads,
        "seconds": round(seconds, 1),
        "threads_per_s": round(threads / seconds, 1),
        **counts,
    }


async def consolidation(api: ApiProcess, settings: Settings, threads: int = 500) -> dict[str, Any]:
    """Extract 20 high-confidence insights from each of ``threads`` threads, then consolidate them all."""
    key = await key_for(settings, "bench-consolidate")
    async with httpx.AsyncClient(
        base_url=api.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=300
    ) as http:
        ids = await load_threads(http, threads, "c-")
        _, counts = await run_jobs(http, [f"/v1/threads/{tid}/extract" for tid in ids])
        started = time.perf_counter()
        consolidated = 0
        for tid in ids:
            response = await http.post(f"/v1/threads/{tid}/consolidate")
            response.raise_for_status()
            consolidated += response.json()["consolidated"]
        seconds = time.perf_counter() - started
    return {
        "insights": counts.get("stored", 0),
        "consolidated": consolidated,
        "seconds": round(seconds, 1),
        "insights_per_s": round(consolidated / seconds, 1),
    }


def main(threads: int = 1_000) -> dict[str, Any]:
    """Run on a private Neo4j and save the figures."""
    figures: dict[str, Any] = {}
    with private_neo4j("ctxnet-bench-conv-") as (settings, base_env, local):
        local.start()
        folder = settings.data_dir
        rules = ApiProcess(folder / "rules.log", {**base_env, "CTXNET_EXTRACTOR": "rules"}).start()
        try:
            rules.wait_ready()
            figures["pipeline_rules"] = asyncio.run(pipeline(rules, settings, "rules", threads))
            print("rules:", figures["pipeline_rules"], flush=True)
        finally:
            rules.stop()
        with OpenAIStub(echo_insights=20) as stub:
            llm_env = {**base_env, "CTXNET_LLM_MODEL": "stub", "CTXNET_LLM_BASE_URL": stub.base_url}
            llm = ApiProcess(folder / "llm.log", llm_env).start()
            try:
                llm.wait_ready()
                stub.echo_insights = 4
                figures["pipeline_llm_stub"] = asyncio.run(pipeline(llm, settings, "llm", threads))
                print("llm stub:", figures["pipeline_llm_stub"], flush=True)
                stub.echo_insights = 20
                figures["consolidation"] = asyncio.run(consolidation(llm, settings, threads // 2))
                print("consolidation:", figures["consolidation"], flush=True)
            finally:
                llm.stop()
    path = save("conversations", figures)
    print(f"conversation figures on {machine()['cpu']} ({machine()['cores']} cores) -> {path}")
    return figures


if __name__ == "__main__":
    import sys

    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000)
